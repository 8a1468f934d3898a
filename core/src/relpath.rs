//! [`RelPath`]: a validated, canonical path relative to a root.
//!
//! A `RelPath` is non-empty UTF-8, `/`-separated, with no empty, `.` or `..`
//! component, no leading or trailing `/`, no backslash, NUL or control
//! character. It never names the root itself. Whether a `.git` component is
//! acceptable is a policy decided by the caller ([`RelPath::has_git_component`]).

use std::fmt;

use crate::error::{Error, Result};

/// Longest accepted path, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest accepted path component, in bytes (Linux `NAME_MAX`).
pub const MAX_NAME_BYTES: usize = 255;

/// A canonical relative path inside a root. See the module docs.
///
/// Its `Debug` form is the quoted path (`"src/a.py"`), so messages that
/// quote a path read the same whether they hold a `RelPath` or a `&str`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelPath(String);

impl fmt::Debug for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl RelPath {
    /// The path as a string (`src/a.py`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The components, outermost first.
    pub fn components(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.0.split('/')
    }

    /// The number of components.
    pub fn depth(&self) -> usize {
        self.0.bytes().filter(|b| *b == b'/').count() + 1
    }

    /// The last component.
    pub fn file_name(&self) -> &str {
        match self.0.rfind('/') {
            Some(i) => &self.0[i + 1..],
            None => &self.0,
        }
    }

    /// The parent directory, or `None` when the parent is the root.
    pub fn parent(&self) -> Option<RelPath> {
        self.0.rfind('/').map(|i| RelPath(self.0[..i].to_owned()))
    }

    /// Every proper ancestor, outermost first (`a`, `a/b` for `a/b/c`).
    pub fn ancestors(&self) -> Vec<RelPath> {
        self.0
            .match_indices('/')
            .map(|(i, _)| RelPath(self.0[..i].to_owned()))
            .collect()
    }

    /// Whether `self` is a proper ancestor of `other` (`a` of `a/b`).
    pub fn is_ancestor_of(&self, other: &RelPath) -> bool {
        other.0.len() > self.0.len()
            && other.0.starts_with(&self.0)
            && other.0.as_bytes()[self.0.len()] == b'/'
    }

    /// Appends one validated component.
    pub fn join(&self, name: &str) -> Result<RelPath> {
        RelPath::try_from(format!("{}/{name}", self.0).as_str())
    }

    /// Builds a path from components that are each checked.
    pub fn from_components<S: AsRef<str>>(parts: &[S]) -> Result<RelPath> {
        let joined = parts
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join("/");
        RelPath::try_from(joined.as_str())
    }

    /// Whether any component is `.git` in any letter case.
    pub fn has_git_component(&self) -> bool {
        self.components().any(is_git_name)
    }
}

/// Whether one path component is `.git` in any letter case.
pub fn is_git_name(name: &str) -> bool {
    name.eq_ignore_ascii_case(".git")
}

/// Checks one path component; the error reason says what is wrong.
pub fn check_component(name: &str) -> std::result::Result<(), &'static str> {
    if name.is_empty() {
        return Err("empty path component");
    }
    if name == "." || name == ".." {
        return Err("`.` or `..` component");
    }
    if name.len() > MAX_NAME_BYTES {
        return Err("path component longer than 255 bytes");
    }
    if name.contains('\\') {
        return Err("backslash in path");
    }
    if name.chars().any(char::is_control) {
        return Err("NUL or control character in path");
    }
    #[cfg(windows)]
    check_windows_component(name)?;
    Ok(())
}

/// Checks one path component against what Windows does to names (applied
/// by [`check_component`] on Windows; callable anywhere, so other platforms
/// can test it): a name Windows would read as another file, a device or a
/// stream is refused, never an alias of a canonical key.
///
/// - reserved device names (`CON`, `PRN`, `AUX`, `NUL`, `COM0`-`COM9`,
///   `LPT0`-`LPT9`, `CONIN$`, `CONOUT$`), in any case and with any
///   extension (`aux.txt`);
/// - a trailing dot or space (Windows drops them: `a.` is `a`);
/// - `<`, `>`, `:`, `"`, `|`, `?`, `*` (a `:` names an alternate data
///   stream, `a.txt:stream`);
/// - an 8.3 short name (`PROGRA~1`, `ABCDE~12.TXT`): it may be another
///   file's second name.
#[cfg_attr(not(windows), allow(dead_code))]
pub fn check_windows_component(name: &str) -> std::result::Result<(), &'static str> {
    if name.ends_with('.') || name.ends_with(' ') {
        return Err("trailing dot or space (Windows drops it)");
    }
    if name.contains(['<', '>', ':', '"', '|', '?', '*']) {
        return Err("a character Windows refuses or reads as a stream (<>:\"|?*)");
    }
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    if is_reserved_device(stem) {
        return Err("a Windows device name (CON, NUL, COM1, ...)");
    }
    if is_short_name(name) {
        return Err("an 8.3 short name (it may be another file's second name)");
    }
    Ok(())
}

/// Whether `stem` (a name before its first dot) is a Windows device.
#[cfg_attr(not(windows), allow(dead_code))]
fn is_reserved_device(stem: &str) -> bool {
    let upper = stem.to_ascii_uppercase();
    if ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"].contains(&upper.as_str()) {
        return true;
    }
    let numbered = upper
        .strip_prefix("COM")
        .or_else(|| upper.strip_prefix("LPT"));
    numbered.is_some_and(|n| {
        let mut chars = n.chars();
        matches!(
            (chars.next(), chars.next()),
            (Some('0'..='9' | '\u{b9}' | '\u{b2}' | '\u{b3}'), None)
        )
    })
}

#[cfg_attr(not(windows), allow(dead_code))]
/// Whether `name` has the shape of an 8.3 short name: at most 8 characters
/// ending in `~` and digits, then at most a 3-character extension.
fn is_short_name(name: &str) -> bool {
    let (base, ext) = match name.rsplit_once('.') {
        Some((base, ext)) => (base, Some(ext)),
        None => (name, None),
    };
    let Some((head, digits)) = base.rsplit_once('~') else {
        return false;
    };
    !head.is_empty()
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && base.len() <= 8
        && ext.is_none_or(|e| e.len() <= 3 && !e.contains('.'))
        && !base.contains('.')
}

impl TryFrom<&str> for RelPath {
    type Error = Error;

    fn try_from(s: &str) -> Result<RelPath> {
        if s.is_empty() {
            return Err(Error::invalid_path(s, "empty path"));
        }
        if s.len() > MAX_PATH_BYTES {
            return Err(Error::invalid_path(
                truncate_for_message(s),
                "path longer than 4096 bytes",
            ));
        }
        if s.starts_with('/') {
            return Err(Error::invalid_path(s, "absolute path"));
        }
        for part in s.split('/') {
            check_component(part).map_err(|reason| Error::invalid_path(s, reason))?;
        }
        Ok(RelPath(s.to_owned()))
    }
}

impl TryFrom<String> for RelPath {
    type Error = Error;

    fn try_from(s: String) -> Result<RelPath> {
        RelPath::try_from(s.as_str())
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for RelPath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Shortens a very long input for an error message, on a char boundary.
pub(crate) fn truncate_for_message(s: &str) -> String {
    const KEEP: usize = 200;
    if s.len() <= KEEP {
        return s.to_owned();
    }
    let mut end = KEEP;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_canonical_paths() {
        for ok in [
            "a", "a.py", "src/a.py", "a/b/c", ".hidden", "..a", "a..", "é/ü",
        ] {
            // Windows drops a trailing dot: `a..` is `a` there.
            if cfg!(windows) && ok == "a.." {
                assert!(RelPath::try_from(ok).is_err());
                continue;
            }
            assert_eq!(
                RelPath::try_from(ok).map(|p| p.to_string()).ok(),
                Some(ok.into())
            );
        }
    }

    #[test]
    fn rejects_non_canonical_paths() {
        for bad in [
            "", "/a", "a/", "a//b", "./a", "a/.", "../a", "a/../b", "a\\b", "a\0b", "a\nb",
            "a\u{7f}",
        ] {
            let err = RelPath::try_from(bad).err();
            assert_eq!(
                err.map(|e| e.code()),
                Some(crate::ErrorCode::InvalidPath),
                "{bad:?}"
            );
        }
        assert!(RelPath::try_from("x".repeat(256).as_str()).is_err());
        assert!(RelPath::try_from("x/".repeat(2100).trim_end_matches('/')).is_err());
    }

    #[test]
    fn windows_name_rules() {
        for bad in [
            "CON",
            "nul",
            "Aux.txt",
            "com1",
            "LPT9.log",
            "COM\u{b9}",
            "conin$",
            "NUL .txt",
            "a.",
            "a ",
            "a.txt:stream",
            "a<b",
            "q?",
            "PROGRA~1",
            "ABCDE~12.TXT",
            "x~1.c",
        ] {
            assert!(check_windows_component(bad).is_err(), "{bad:?}");
        }
        for ok in [
            "CONS",
            "console.txt",
            "COM10",
            "LPT",
            "a.txt",
            ".hidden",
            "..a",
            "PROGRA~",
            "~1",
            "longername~1",
            "a~1.text",
            "é",
        ] {
            assert_eq!(check_windows_component(ok), Ok(()), "{ok:?}");
        }
    }

    #[test]
    fn family_relations() {
        let p = RelPath::try_from("a/b/c").unwrap();
        assert_eq!(p.file_name(), "c");
        assert_eq!(p.depth(), 3);
        assert_eq!(p.parent().unwrap().as_str(), "a/b");
        let names: Vec<String> = p.ancestors().iter().map(|x| x.to_string()).collect();
        assert_eq!(names, ["a", "a/b"]);
        assert!(RelPath::try_from("a").unwrap().is_ancestor_of(&p));
        assert!(!RelPath::try_from("ab").unwrap().is_ancestor_of(&p));
        assert!(!p.is_ancestor_of(&p));
        assert!(RelPath::try_from("x/.GiT/y").unwrap().has_git_component());
        assert!(!RelPath::try_from("x/.gitignore")
            .unwrap()
            .has_git_component());
    }
}
