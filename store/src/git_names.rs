//! Git's rules for a tree entry name, as `git fsck --strict` (and a remote
//! with `receive.fsckObjects`) applies them to every tree it sees: not
//! empty, `.` or `..`, no `/` or NUL, at most 4,096 bytes
//! (`fsck.largePathname`), never `.git` in any spelling the HFS+ or NTFS
//! file systems would open as `.git` (`.GIT`, `.git.`, `.git `, `git~1`,
//! `.g\u{200c}it`, ...: gix-validate's check, the one git itself runs with
//! `core.protectHFS` and `core.protectNTFS`), `.gitmodules` never a symlink,
//! and `.gitmodules` / `.gitattributes` never a directory (fsck wants them
//! as files, in every spelling too).

use gix::bstr::ByteSlice;
use gix::validate::path::component::{Mode, Options};

/// The longest tree entry name `git fsck` accepts, in bytes.
pub(crate) const MAX_NAME_BYTES: usize = 4096;

/// What a name will be in its tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryAs {
    /// A subtree.
    Dir,
    /// A blob (regular or executable file).
    File,
    /// A symlink.
    Symlink,
}

/// Why git would refuse `name` as a tree entry of kind `kind`; `None` when
/// it takes it.
pub(crate) fn refused(name: &[u8], kind: EntryAs) -> Option<String> {
    if name.is_empty() || name == b"." || name == b".." || name.contains(&b'/') {
        return Some("empty, `.`, `..` or with `/`".to_owned());
    }
    if name.contains(&0) {
        return Some("has a NUL byte".to_owned());
    }
    if name.len() > MAX_NAME_BYTES {
        return Some(format!(
            "{} bytes long (git takes at most {MAX_NAME_BYTES})",
            name.len()
        ));
    }
    let options = Options {
        protect_windows: false,
        protect_hfs: true,
        protect_ntfs: true,
    };
    let mode = (kind == EntryAs::Symlink).then_some(Mode::Symlink);
    if let Err(e) = gix::validate::path::component(name.as_bstr(), mode, options) {
        return Some(format!("git refuses it: {e}"));
    }
    if kind == EntryAs::Dir
        && (is_alias(name, "gitmodules", "gi7eba") || is_alias(name, "gitattributes", "gi7d29"))
    {
        return Some("git wants `.gitmodules` and `.gitattributes` to be files".to_owned());
    }
    None
}

/// Whether `name` is `.<base>` as HFS+ or NTFS would open it (git's
/// `is_hfs_dot<base>` / `is_ntfs_dot<base>`; `short` is the hashed 8.3
/// prefix NTFS uses after `~4`).
fn is_alias(name: &[u8], base: &str, short: &str) -> bool {
    is_hfs_alias(name, base) || is_ntfs_alias(name, base.as_bytes(), short.as_bytes())
}

fn is_hfs_alias(name: &[u8], base: &str) -> bool {
    // HFS+ ignores these code points when comparing names.
    const IGNORED: &[u32] = &[
        0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x206a, 0x206b,
        0x206c, 0x206d, 0x206e, 0x206f, 0xfeff,
    ];
    let mut kept = name.chars().filter(|c| !IGNORED.contains(&u32::from(*c)));
    if kept.next() != Some('.') {
        return false;
    }
    let rest: String = kept.collect();
    rest.eq_ignore_ascii_case(base)
}

fn is_ntfs_alias(name: &[u8], base: &[u8], short: &[u8]) -> bool {
    if let Some(rest) = name.strip_prefix(b".") {
        return rest.len() >= base.len()
            && rest[..base.len()].eq_ignore_ascii_case(base)
            && ntfs_done(&rest[base.len()..]);
    }
    // `gitmod~1` .. `gitmod~4`: the first six letters and a tilde.
    if name.len() >= 8
        && name[..6].eq_ignore_ascii_case(&base[..6])
        && name[6] == b'~'
        && (b'1'..=b'4').contains(&name[7])
    {
        return ntfs_done(&name[8..]);
    }
    // The hashed form: up to six letters of `short`, `~`, digits (first 1-9).
    let mut pos = 0;
    let mut saw_tilde = false;
    while pos < 8 {
        let Some(&b) = name.get(pos) else {
            return false;
        };
        if saw_tilde {
            if !b.is_ascii_digit() {
                return false;
            }
        } else if b == b'~' {
            saw_tilde = true;
            pos += 1;
            match name.get(pos) {
                Some(d) if (b'1'..=b'9').contains(d) => {}
                _ => return false,
            }
        } else if pos >= 6
            || b & 0x80 != 0
            || short.get(pos).is_none_or(|s| !b.eq_ignore_ascii_case(s))
        {
            return false;
        }
        pos += 1;
    }
    ntfs_done(&name[pos..])
}

/// Whether what follows a match leaves it the same name on NTFS: only
/// spaces and dots, up to the end or an alternate stream (`:`).
fn ntfs_done(rest: &[u8]) -> bool {
    for &b in rest {
        if b == b':' {
            return true;
        }
        if b != b' ' && b != b'.' {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names `git fsck --strict` refuses as a directory (checked against
    /// the real git in `store/tests/remote_hostile_names.rs`).
    const HOSTILE: &[&str] = &[
        ".git",
        ".GIT",
        ".Git",
        ".git.",
        ".git ",
        ".git . .",
        ".git::$INDEX_ALLOCATION",
        "git~1",
        "GIT~1",
        ".g\u{200c}it",
        "\u{feff}.git",
        ".gi\u{200d}t",
        ".gitmodules",
        ".GITMODULES",
        ".gitmodules ",
        "gitmod~1",
        "GI7EBA~1",
        "gi7eba~9",
        ".gitattributes",
        ".gitattributes.",
        "gitatt~2",
        "gi7d29~1",
        ".git\u{200f}attributes",
    ];

    #[test]
    fn every_spelling_of_the_reserved_names_is_refused_as_a_directory() {
        for name in HOSTILE {
            assert!(
                refused(name.as_bytes(), EntryAs::Dir).is_some(),
                "{name:?} taken"
            );
        }
        let long = "a".repeat(MAX_NAME_BYTES + 1);
        assert!(refused(long.as_bytes(), EntryAs::Dir).is_some());
        assert!(refused("a".repeat(MAX_NAME_BYTES).as_bytes(), EntryAs::Dir).is_none());
        for bad in ["", ".", "..", "a/b", "a\0b"] {
            assert!(refused(bad.as_bytes(), EntryAs::File).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn ordinary_names_and_files_called_like_git_files_are_taken() {
        for ok in [
            "toolu_01ABC",
            "2026-01-02-abc_DEF.1",
            ".github",
            ".gitignore",
            "git",
            ".gitx",
            "gitmod~5",
            "a:b",
            "CON",
            "x.",
        ] {
            assert!(
                refused(ok.as_bytes(), EntryAs::Dir).is_none(),
                "{ok:?} refused"
            );
        }
        // As files, `.gitmodules` and `.gitattributes` are what git expects.
        assert!(refused(b".gitmodules", EntryAs::File).is_none());
        assert!(refused(b".gitattributes", EntryAs::Symlink).is_none());
        assert!(refused(b".gitmodules", EntryAs::Symlink).is_some());
        assert!(refused(b".git", EntryAs::File).is_some());
    }
}
