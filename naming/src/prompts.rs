//! `prompt.txt`: several prompts stored in one file, joined by a separator.

/// The separator between prompts in `prompt.txt`.
pub const PROMPT_SEPARATOR: &str = "\n\n---\n\n";

/// Joins prompts with [`PROMPT_SEPARATOR`], nothing added or trimmed
/// (`[]` -> `""`, `["a"]` -> `"a"`).
pub fn join_prompts<S: AsRef<str>>(prompts: &[S]) -> String {
    let mut out = String::new();
    for (i, prompt) in prompts.iter().enumerate() {
        if i > 0 {
            out.push_str(PROMPT_SEPARATOR);
        }
        out.push_str(prompt.as_ref());
    }
    out
}

/// Splits `prompt.txt` content into prompts: `""` gives none; otherwise the
/// content is split on every [`PROMPT_SEPARATOR`] (left to right, without
/// overlap) and only the trailing empty pieces are dropped. Nothing is
/// trimmed, and empty pieces before the last non-empty one are kept.
pub fn split_prompts(content: &str) -> Vec<String> {
    let mut prompts: Vec<String> = content.split(PROMPT_SEPARATOR).map(str::to_owned).collect();
    while prompts.last().is_some_and(String::is_empty) {
        prompts.pop();
    }
    prompts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let prompts = ["first line\nwith newline", "second prompt"];
        assert_eq!(split_prompts(&join_prompts(&prompts)), prompts);
    }

    #[test]
    fn edges() {
        assert!(split_prompts("").is_empty());
        assert!(split_prompts(PROMPT_SEPARATOR).is_empty());
        assert_eq!(split_prompts("a\n\n---\n\n"), ["a"]);
        assert_eq!(split_prompts("\n\n---\n\nb"), ["", "b"]);
        assert_eq!(split_prompts(" a "), [" a "]);
        assert_eq!(join_prompts::<&str>(&[]), "");
        assert_eq!(
            join_prompts(&[String::new(), String::new()]),
            PROMPT_SEPARATOR
        );
    }
}
