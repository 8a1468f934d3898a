//! What `git push --porcelain` says about each ref: one line
//! `<flag>\t<from>:<to>\t<summary> (<reason>)` per ref between `To <url>`
//! and `Done`.

use std::collections::HashMap;

/// The remote's answer for one pushed ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefStatus {
    /// The remote now holds our commit (new, fast-forwarded or already up to date).
    Confirmed,
    /// Not a fast-forward: the remote's ref moved on (`fetch first`,
    /// `non-fast-forward`).
    Diverged(String),
    /// Refused by the remote (a hook, a policy), with its reason.
    Refused(String),
    /// The connection failed before the remote reported (`[remote failure]`).
    Failed(String),
}

/// The status of each ref (by destination name) the output reports.
pub(crate) fn parse(stdout: &str) -> HashMap<String, RefStatus> {
    let mut out = HashMap::new();
    for line in stdout.lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(flag), Some(refs), Some(summary)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Some((_, to)) = refs.split_once(':') else {
            continue;
        };
        let reason = reason_of(summary);
        let status = match flag {
            " " | "*" | "=" | "+" | "-" => RefStatus::Confirmed,
            "!" if summary.starts_with("[rejected]")
                && (reason == "fetch first" || reason == "non-fast-forward") =>
            {
                RefStatus::Diverged(reason)
            }
            // The remote's ref moved under its own update (another push
            // at the same moment): as good as moved on.
            "!" if summary.starts_with("[remote rejected]") && raced(&reason) => {
                RefStatus::Diverged(reason)
            }
            "!" if summary.starts_with("[remote failure]") => RefStatus::Failed(reason),
            "!" => RefStatus::Refused(if reason.is_empty() {
                summary.to_owned()
            } else {
                reason
            }),
            _ => continue,
        };
        out.insert(to.to_owned(), status);
    }
    out
}

/// Whether a remote's refusal says its ref changed under the update.
fn raced(reason: &str) -> bool {
    reason.starts_with("failed to update ref")
        || reason.contains("cannot lock ref")
        || reason.contains("incorrect old value")
}

/// The text in the last parentheses of a summary (`[rejected] (fetch first)`).
fn reason_of(summary: &str) -> String {
    match (summary.find('('), summary.rfind(')')) {
        (Some(open), Some(close)) if open < close => summary[open + 1..close].trim().to_owned(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_line() {
        let out = concat!(
            "To file:///r.git\n",
            "*\trefs/a:refs/a\t[new reference]\n",
            "=\trefs/b:refs/b\t[up to date]\n",
            " \trefs/c:refs/c\t1111111..2222222\n",
            "!\trefs/d:refs/d\t[rejected] (fetch first)\n",
            "!\trefs/e:refs/e\t[rejected] (non-fast-forward)\n",
            "!\trefs/f:refs/f\t[remote rejected] (pre-receive hook declined)\n",
            "!\trefs/g:refs/g\t[remote failure] (remote failed to report status)\n",
            "!\trefs/h:refs/h\t[remote rejected] (failed to update ref)\n",
            "Done\n",
        );
        let s = parse(out);
        assert_eq!(s.len(), 8);
        assert_eq!(
            s["refs/h"],
            RefStatus::Diverged("failed to update ref".into())
        );
        assert_eq!(s["refs/a"], RefStatus::Confirmed);
        assert_eq!(s["refs/b"], RefStatus::Confirmed);
        assert_eq!(s["refs/c"], RefStatus::Confirmed);
        assert_eq!(s["refs/d"], RefStatus::Diverged("fetch first".into()));
        assert_eq!(s["refs/e"], RefStatus::Diverged("non-fast-forward".into()));
        assert_eq!(
            s["refs/f"],
            RefStatus::Refused("pre-receive hook declined".into())
        );
        assert_eq!(
            s["refs/g"],
            RefStatus::Failed("remote failed to report status".into())
        );
    }
}
