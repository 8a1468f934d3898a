//! The version of the `git` program the store runs, asked once per process
//! (`git --version`) and checked against what a feature needs.

use std::sync::OnceLock;

use agent_checkpoint::{Error, Result};

/// A `git` version: major, minor, patch.
pub type Version = (u32, u32, u32);

/// The oldest git the store runs at all: `git fetch --stdin` and
/// `--no-write-fetch-head` (2.29), `git update-ref --stdin` transactions
/// (2.27), SHA-256 repositories (2.29).
pub const MIN_GIT: Version = (2, 29, 0);

/// The oldest git that reads and writes reftable repositories.
pub const MIN_GIT_REFTABLE: Version = (2, 45, 0);

/// `major.minor.patch`.
pub fn display(v: Version) -> String {
    format!("{}.{}.{}", v.0, v.1, v.2)
}

/// The version in `git --version`'s output (`git version 2.47.3`,
/// `git version 2.39.2 (Apple Git-143)`, `git version 2.45.1.windows.1`).
pub fn parse(text: &str) -> Option<Version> {
    let rest = text.trim().strip_prefix("git version ")?;
    let word = rest.split_whitespace().next()?;
    let mut nums = word.split('.').map(|p| {
        let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u32>().ok()
    });
    let major = nums.next()??;
    let minor = nums.next()??;
    let patch = nums.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

/// The version of the `git` on `PATH`, asked once per process.
fn found() -> std::result::Result<Version, String> {
    static FOUND: OnceLock<std::result::Result<Version, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let out = std::process::Command::new("git")
                .arg("--version")
                .env("LC_ALL", "C")
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| format!("running `git --version`: {e}"))?;
            let text = String::from_utf8_lossy(&out.stdout);
            parse(&text).ok_or_else(|| format!("`git --version` printed {:?}", text.trim()))
        })
        .clone()
}

/// Checks that the `git` on `PATH` is at least `needed` (for `what`).
///
/// # Errors
/// [`Error::GitTooOld`] naming the version found and the one needed; an
/// I/O error when `git` cannot be run.
pub fn require(needed: Version, what: &str) -> Result<()> {
    let found = found().map_err(|reason| Error::Io {
        path: None,
        error: std::io::Error::new(std::io::ErrorKind::NotFound, reason),
    })?;
    if found < needed {
        return Err(Error::GitTooOld {
            found: display(found),
            needed: display(needed),
            what: what.to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_as_git_prints_them() {
        assert_eq!(parse("git version 2.47.3\n"), Some((2, 47, 3)));
        assert_eq!(
            parse("git version 2.39.2 (Apple Git-143)"),
            Some((2, 39, 2))
        );
        assert_eq!(parse("git version 2.45.1.windows.1"), Some((2, 45, 1)));
        assert_eq!(parse("git version 2.50.0-rc1"), Some((2, 50, 0)));
        assert_eq!(parse("git version 3.0"), Some((3, 0, 0)));
        assert_eq!(parse("hub version 2.14"), None);
        assert!((2, 44, 9) < MIN_GIT_REFTABLE && MIN_GIT < MIN_GIT_REFTABLE);
    }

    #[test]
    fn a_git_too_old_is_a_typed_error_naming_both_versions() {
        let err = require((999, 0, 0), "this test").unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::GitTooOld { .. }), "{err:?}");
        assert!(
            text.contains("999.0.0") && text.contains("this test"),
            "{text}"
        );
    }
}
