//! Case-insensitive and normalising filesystems (APFS and NTFS by default).
//!
//! On such a filesystem `README.md` and `readme.md`, or `é` written
//! composed (NFC) and decomposed (NFD), name one entry. The core keys a
//! snapshot by path text, so it must not record one file twice nor let a
//! rollback leave a file under a spelling the batch gave it. What it does
//! (docs/FORMAT.md, "Case-insensitive and normalising filesystems"):
//!
//! - [`spell`]: at capture, every existing path in a directory that folds
//!   names is recorded under its on-disk spelling, and two spellings of one
//!   missing path under the first one given: one entry either way.
//! - [`respell`]: at rollback, a restored path whose directory folds names
//!   and holds it under another spelling (the batch renamed `a.txt` to
//!   `A.txt`) gets its captured name back.
//!
//! Whether a directory folds names is asked of the directory itself, once
//! per directory ([`probe::Folding`]): the other spelling of an existing
//! entry is looked up and compared with the entry (kind, size, mode and
//! change stamp, which derives from the inode). On a case-sensitive
//! filesystem that lookup finds nothing and nothing else happens.

pub(crate) mod probe;
pub(crate) mod respell;
pub(crate) mod spell;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization as _;

/// The key two spellings share when a case-insensitive, normalising
/// filesystem takes them for one name: lowercase, NFC.
pub(crate) fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.nfd()
        .flat_map(char::to_lowercase)
        .nfc()
        .collect::<String>()
}

/// Another spelling of `name` that a folding filesystem takes for the same
/// name and a case-sensitive, non-normalising one does not: ASCII letters
/// flipped in case, or else the other Unicode normal form. A letter that a
/// combining mark follows (`e` of a decomposed `é`) is left alone: flipped,
/// it composes to another non-ASCII letter (`É`), which a filesystem that
/// folds ASCII case only takes for another name. `None` when the name has
/// neither (it then has no other spelling to look up).
pub(crate) fn other_spelling(name: &str) -> Option<String> {
    let chars: Vec<char> = name.chars().collect();
    let flippable = |i: usize| {
        chars[i].is_ascii_alphabetic()
            && !chars
                .get(i + 1)
                .is_some_and(|next| is_combining_mark(*next))
    };
    if (0..chars.len()).any(flippable) {
        let flipped = (0..chars.len())
            .map(|i| match chars[i] {
                c if !flippable(i) => c,
                c if c.is_ascii_lowercase() => c.to_ascii_uppercase(),
                c => c.to_ascii_lowercase(),
            })
            .collect();
        return Some(flipped);
    }
    if name.is_ascii() {
        return None;
    }
    let nfd: String = name.nfd().collect();
    if nfd != name {
        return Some(nfd);
    }
    let nfc: String = name.nfc().collect();
    (nfc != name).then_some(nfc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_ignores_case_and_normal_form() {
        assert_eq!(fold("README.md"), fold("readme.md"));
        assert_eq!(fold("caf\u{e9}"), fold("cafe\u{301}"));
        assert_eq!(fold("CAF\u{c9}"), fold("cafe\u{301}"));
        assert_ne!(fold("a.txt"), fold("b.txt"));
    }

    #[test]
    fn other_spelling_flips_case_or_normal_form() {
        assert_eq!(other_spelling("a.Txt").as_deref(), Some("A.tXT"));
        assert_eq!(other_spelling("\u{e9}").as_deref(), Some("e\u{301}"));
        assert_eq!(other_spelling("e\u{301}").as_deref(), Some("\u{e9}"));
        assert_eq!(
            other_spelling("cafe\u{301}.txt").as_deref(),
            Some("CAFe\u{301}.TXT")
        );
        assert_eq!(other_spelling("123"), None);
        assert_eq!(other_spelling("\u{4e2d}"), None);
    }
}
