//! Treeless fetches, done as git's partial clone does them (STORE.md §5):
//! `git fetch --filter=blob:none` brings commits and trees, and the blobs
//! it leaves on the remote are fetched when a read needs them, through a
//! *promisor remote*: `git fsck`, `git gc` and git's own reads then treat
//! the missing blobs as promised, not lost (without one, `git gc` fails on
//! them).
//!
//! The promisor is a remote of its own, `entire-promisor-<hash of the
//! URL>` (`promisor = true`, `partialclonefilter = blob:none`,
//! `skipFetchAll`, no fetch refspec), never the user's remote: git turns a
//! promisor remote without a filter into a blobless one on its first lazy
//! fetch, and every later `git fetch origin` of the user's code would then
//! leave blobs behind. The filtered fetch itself names the user's remote
//! with the promisor settings on its command line only, so nothing about
//! that remote is written and the repository format is left as it is.

use gix::ObjectId;
use sha2::{Digest, Sha256};

use crate::remote::git_program::{remote_error, GitProgram};
use agent_checkpoint::{Error, Result};

/// The filter of a treeless fetch: every blob stays on the remote.
pub(crate) const BLOB_FILTER: &str = "blob:none";

/// Prefix of the names of the promisor remotes a treeless fetch configures
/// (`entire-promisor-<12 hex digits of the URL's SHA-256>`).
pub const PROMISOR_PREFIX: &str = "entire-promisor-";

/// How a treeless fetch from one remote is run.
#[derive(Debug, Clone)]
pub(crate) struct Treeless {
    /// Arguments before `fetch`: the promisor settings for the remote the
    /// fetch names (none when it names the promisor remote itself).
    pub config: Vec<String>,
    /// The remote `git fetch` names.
    pub remote: String,
    /// The promisor remote (what later fetches of the left-out blobs name).
    pub promisor: String,
}

impl Treeless {
    /// `[<config>] fetch --filter=blob:none` then `rest`, then the remote
    /// when `rest` does not already end with one (see [`Treeless::remote`]).
    pub(crate) fn fetch_args(&self, rest: &[&str]) -> Vec<String> {
        let mut args = self.config.clone();
        args.push("fetch".to_owned());
        args.push(format!("--filter={BLOB_FILTER}"));
        args.extend(rest.iter().map(|s| (*s).to_owned()));
        args
    }
}

/// The promisor remote's name for `url`.
fn promisor_name(url: &str) -> String {
    let digest = Sha256::digest(url.as_bytes());
    format!("{PROMISOR_PREFIX}{}", hex::encode(&digest[..6]))
}

/// The URL git uses for `remote` (`url.<base>.insteadOf` applied; a URL
/// or path given as the remote is itself), without contacting it.
pub(crate) fn effective_url(git: &GitProgram, remote: &str) -> Option<String> {
    let out = git.run(&["ls-remote", "--get-url", remote], None).ok()?;
    if !out.status.success() {
        return None;
    }
    let url = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!url.is_empty() && !url.chars().any(char::is_control)).then_some(url)
}

/// Whether `name` may be set on git's command line as `-c <key>=<value>`
/// inside a key: git splits `-c` at the first `=`.
fn fits_command_line(name: &str) -> bool {
    !name.contains('=') && !name.is_empty()
}

/// Makes `remote`'s promisor remote exist with the settings a treeless
/// fetch needs, and says how to run that fetch; `None` when it cannot be
/// set up (git's configuration cannot be written, the URL is unknown): the
/// caller fetches everything then.
pub(crate) fn prepare(git: &GitProgram, repo: &gix::Repository, remote: &str) -> Option<Treeless> {
    let url = effective_url(git, remote)?;
    let name = promisor_name(&url);
    let config = repo.config_snapshot();
    let current = |key: &str| {
        config
            .string(format!("remote.{name}.{key}").as_str())
            .map(|v| v.to_string())
    };
    let wanted = [
        ("url", url.as_str()),
        ("promisor", "true"),
        ("partialclonefilter", BLOB_FILTER),
        ("skipFetchAll", "true"),
        ("skipDefaultUpdate", "true"),
    ];
    let stale: Vec<(&str, &str)> = wanted
        .iter()
        .copied()
        .filter(|(key, value)| current(key).as_deref() != Some(value))
        .collect();
    for (key, value) in stale {
        let key = format!("remote.{name}.{key}");
        let out = git.run(&["config", "--local", &key, value], None).ok()?;
        if !out.status.success() {
            return None;
        }
    }
    let configured = repo
        .remote_names()
        .iter()
        .any(|n| AsRef::<[u8]>::as_ref(n) == remote.as_bytes());
    if configured && fits_command_line(remote) {
        // The user's remote, with its own settings, as a promisor for this
        // one command: git then writes nothing about it.
        Some(Treeless {
            config: vec![
                "-c".to_owned(),
                format!("remote.{remote}.promisor=true"),
                "-c".to_owned(),
                format!("remote.{remote}.partialclonefilter={BLOB_FILTER}"),
            ],
            remote: remote.to_owned(),
            promisor: name,
        })
    } else {
        Some(Treeless {
            config: Vec::new(),
            remote: name.clone(),
            promisor: name,
        })
    }
}

/// The promisor remotes of `repo`, in the order git asks them for a missing
/// object: `extensions.partialClone` first, then each remote with
/// `promisor = true` (or a `partialclonefilter`) as configured. The
/// repository's own config file is read afresh (a treeless fetch may have
/// added one since `repo` was opened).
pub(crate) fn promisor_remotes(repo: &gix::Repository) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let snapshot = repo.config_snapshot();
    let fresh = gix::config::File::from_path_no_includes(
        repo.common_dir().join("config"),
        gix::config::Source::Local,
    )
    .ok();
    for file in std::iter::once(snapshot.plumbing()).chain(fresh.as_ref()) {
        if let Some(name) = file.string("extensions.partialClone") {
            let name = name.to_string();
            if !out.contains(&name) {
                out.insert(0, name);
            }
        }
        promisors_in(file, &mut out);
    }
    out
}

/// Appends the remotes `file` marks as promisors to `out` (once each).
fn promisors_in(file: &gix::config::File, out: &mut Vec<String>) {
    let Some(sections) = file.sections_by_name("remote") else {
        return;
    };
    for section in sections {
        let Some(name) = section.header().subsection_name() else {
            continue;
        };
        let name = name.to_string();
        let promisor = section
            .value("promisor")
            .and_then(|v| {
                let v: &gix::bstr::BStr = v.as_ref();
                gix::config::Boolean::try_from(v).ok()
            })
            .is_some_and(|b| b.0);
        let filtered = section.value("partialclonefilter").is_some();
        if (promisor || filtered) && !out.contains(&name) {
            out.push(name);
        }
    }
}

/// A copy of `repo` whose object lookups never rescan the object
/// directories on a miss (checking thousands of blobs a treeless fetch
/// left out would rescan once per blob).
pub(crate) fn without_refresh(repo: &gix::Repository) -> gix::Repository {
    let mut quiet = repo.clone();
    quiet.objects.refresh_never();
    quiet
}

/// The objects among `oids` that `repo` does not hold (in order, once
/// each). Looked up without rescanning the object directories per miss;
/// when one seems missing, one lookup that rescans them first picks up
/// packs that arrived since `repo` last looked.
pub(crate) fn missing(repo: &gix::Repository, oids: &[ObjectId]) -> Vec<ObjectId> {
    let pass = |quiet: &gix::Repository| {
        let mut seen = std::collections::HashSet::new();
        oids.iter()
            .copied()
            .filter(|oid| seen.insert(*oid) && !quiet.has_object(oid))
            .collect::<Vec<_>>()
    };
    let first = pass(&without_refresh(repo));
    match first.first() {
        Some(oid) if repo.has_object(oid) => pass(&without_refresh(repo)),
        _ => first,
    }
}

/// The objects among `oids` still missing after a fetch: each miss
/// rescans the object directories, so a pack that just arrived is seen.
fn still_missing(repo: &gix::Repository, oids: &[ObjectId]) -> Vec<ObjectId> {
    oids.iter()
        .copied()
        .filter(|oid| !repo.has_object(oid))
        .collect()
}

/// Fetches the objects `oids` (those missing from `repo`) from its promisor
/// remotes, all of them in one `git fetch` per remote asked (the next
/// remote is asked only for what the previous one did not have); returns
/// how many arrived. With no promisor remote nothing is fetched (`0`): a
/// missing object is then damage, which the read reports.
///
/// # Errors
/// `remote_unreachable` / `auth_failed` (offline, say) from the last remote
/// asked, when some of `oids` are still missing.
pub(crate) fn fetch_objects(
    git: &GitProgram,
    repo: &gix::Repository,
    oids: &[ObjectId],
) -> Result<usize> {
    fetch_objects_from(git, repo, oids, &promisor_remotes(repo))
}

/// As [`fetch_objects`], from `remotes` (in order).
///
/// # Errors
/// As [`fetch_objects`].
pub(crate) fn fetch_objects_from(
    git: &GitProgram,
    repo: &gix::Repository,
    oids: &[ObjectId],
    remotes: &[String],
) -> Result<usize> {
    let wanted = missing(repo, oids);
    if wanted.is_empty() {
        return Ok(0);
    }
    let mut left = wanted.clone();
    let mut failure: Option<Error> = None;
    for remote in remotes {
        if left.is_empty() {
            break;
        }
        let mut stdin = String::with_capacity(left.len() * 41);
        for oid in &left {
            stdin.push_str(&oid.to_string());
            stdin.push('\n');
        }
        let mut args: Vec<String> = vec!["-c".into(), "fetch.negotiationAlgorithm=noop".into()];
        if fits_command_line(remote) {
            // Never let git record a filter on a promisor remote it lacks.
            args.push("-c".into());
            args.push(format!("remote.{remote}.partialclonefilter={BLOB_FILTER}"));
        }
        args.extend(
            [
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-write-fetch-head",
                "--recurse-submodules=no",
            ]
            .map(str::to_owned),
        );
        args.push(format!("--filter={BLOB_FILTER}"));
        args.push("--stdin".into());
        args.push(remote.clone());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = git.run(&argv, Some(stdin.as_bytes()))?;
        if !out.status.success() {
            failure = Some(remote_error(remote, &String::from_utf8_lossy(&out.stderr)));
        }
        left = still_missing(repo, &left);
    }
    if !left.is_empty() {
        if let Some(e) = failure {
            return Err(e);
        }
    }
    Ok(wanted.len() - left.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_command_line_keys() {
        let a = promisor_name("file:///tmp/r.git");
        assert!(a.starts_with(PROMISOR_PREFIX) && a.len() == PROMISOR_PREFIX.len() + 12);
        assert_ne!(a, promisor_name("file:///tmp/s.git"));
        assert!(fits_command_line("origin"));
        assert!(!fits_command_line("https://h/r?a=b"));
        let t = Treeless {
            config: vec!["-c".into(), "x.y=z".into()],
            remote: "origin".into(),
            promisor: a,
        };
        assert_eq!(
            t.fetch_args(&["--no-tags", "origin"]),
            [
                "-c",
                "x.y=z",
                "fetch",
                "--filter=blob:none",
                "--no-tags",
                "origin"
            ]
        );
    }
}
