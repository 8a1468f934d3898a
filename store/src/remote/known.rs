//! Whether a remote exists before a push answers: an unknown remote is
//! `remote_unreachable` even when there is nothing to push (issue 40).

use std::path::Path;

use agent_checkpoint::{Error, Result};

/// `Ok` when `remote` is a remote configured in `repo`, a URL
/// (`scheme://...` or scp-like `host:path`), or a path that exists
/// (relative to the working tree, where `git` runs); else
/// `remote_unreachable`.
pub(crate) fn require_known(repo: &gix::Repository, remote: &str) -> Result<()> {
    let cwd: &Path = repo.workdir().unwrap_or_else(|| repo.git_dir());
    let configured = repo
        .remote_names()
        .iter()
        .any(|name| AsRef::<[u8]>::as_ref(name) == remote.as_bytes());
    if configured || is_url(remote) || cwd.join(remote).exists() {
        return Ok(());
    }
    Err(Error::RemoteUnreachable {
        remote: remote.to_owned(),
        reason: "no such remote: not a configured remote name, a URL or an existing path"
            .to_owned(),
    })
}

/// `scheme://...`, or git's scp-like `[user@]host:path` (a `:` before any
/// `/`).
fn is_url(remote: &str) -> bool {
    if remote.contains("://") {
        return true;
    }
    match (remote.find(':'), remote.find('/')) {
        (Some(colon), Some(slash)) => colon < slash,
        (Some(_), None) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_url;

    #[test]
    fn urls_and_scp_forms() {
        assert!(is_url("https://example.com/r.git"));
        assert!(is_url("file:///tmp/r.git"));
        assert!(is_url("git@example.com:owner/r.git"));
        assert!(!is_url("origin"));
        assert!(!is_url("../r.git"));
        assert!(!is_url("./a:b"));
    }
}
