//! The unified diff `--dry-run` prints for each file a change would touch.

use std::path::Path;

/// The unified diff (3 lines of context) from `old` to `new` of the file at
/// `path` (its path in both headers): `None` is no file (`/dev/null`). Empty when the
/// texts are equal.
pub(crate) fn unified_diff(path: &Path, old: Option<&str>, new: Option<&str>) -> String {
    if old == new {
        return String::new();
    }
    let shown = path.to_string_lossy();
    let side = |present: bool| {
        if present {
            shown.to_string()
        } else {
            "/dev/null".to_owned()
        }
    };
    let (from, to) = (side(old.is_some()), side(new.is_some()));
    let (old, new) = (old.unwrap_or(""), new.unwrap_or(""));
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = diff
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(true)
        .header(&from, &to)
        .to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_diffs_from_dev_null_and_equal_texts_give_nothing() {
        let path = Path::new("x/settings.json");
        let diff = unified_diff(path, None, Some("{\n}\n"));
        assert!(
            diff.starts_with("--- /dev/null\n+++ x/settings.json\n"),
            "{diff}"
        );
        assert!(diff.contains("+{\n+}\n"), "{diff}");
        assert_eq!(unified_diff(path, Some("a\n"), Some("a\n")), "");
        let removed = unified_diff(path, Some("a\n"), None);
        assert!(
            removed.contains("+++ /dev/null\n") && removed.contains("-a\n"),
            "{removed}"
        );
    }
}
