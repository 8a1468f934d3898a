//! Codex's hooks feature flag, in the `config.toml` beside its `hooks.json`:
//! `[features] codex_hooks = true`. Codex versions that have hooks behind a
//! flag know only `codex_hooks`; later ones turn hooks on by default, spell
//! the flag `hooks`, and still read `codex_hooks` as its alias. So `install`
//! writes `codex_hooks = true` unless either key already says `true`, and
//! sets a key that says `false` to `true` (the user asked for hooks). The
//! rest of the file, comments and layout included, is kept (`toml_edit`).
//! `uninstall` leaves the flag: other hooks may need it.
//!
//! Reference: <https://developers.openai.com/codex/hooks>.

use std::path::Path;

use agent_checkpoint::Error;
use toml_edit::{DocumentMut, Item};

/// The flag's keys under `[features]`: the one Codex has always read
/// first, its later canonical name second.
const KEYS: [&str; 2] = ["codex_hooks", "hooks"];

/// What a `config.toml` says about hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FlagState {
    /// A key says `true`.
    On,
    /// A key says `false` (and none `true`): the key.
    Off(&'static str),
    /// Neither key is there.
    Absent,
}

/// The flag's state in `text` (the file at `path`; `None`: no file).
pub(crate) fn flag_state(path: &Path, text: Option<&str>) -> Result<FlagState, Error> {
    let doc = parse(path, text)?;
    Ok(state_of(&doc))
}

/// `text` with the flag turned on, or `None` when it already is.
pub(crate) fn turn_on(path: &Path, text: Option<&str>) -> Result<Option<String>, Error> {
    let mut doc = parse(path, text)?;
    let key = match state_of(&doc) {
        FlagState::On => return Ok(None),
        FlagState::Off(key) => key,
        FlagState::Absent => KEYS[0],
    };
    let shown = path.to_string_lossy();
    let features = doc
        .entry("features")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .ok_or_else(|| {
            Error::invalid_argument(
                shown.clone(),
                "has a `features` that is not a table; nothing was changed",
            )
        })?;
    match features.get_mut(key).and_then(Item::as_value_mut) {
        // The key's comments and spacing are kept; only its value changes.
        Some(old) => {
            let decor = old.decor().clone();
            *old = toml_edit::Value::from(true);
            *old.decor_mut() = decor;
        }
        None => {
            features.insert(key, toml_edit::value(true));
        }
    }
    let mut out = doc.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(Some(out))
}

fn parse(path: &Path, text: Option<&str>) -> Result<DocumentMut, Error> {
    text.unwrap_or("").parse::<DocumentMut>().map_err(|e| {
        Error::invalid_argument(
            path.to_string_lossy(),
            format!("is not valid TOML: {}; nothing was changed", e.message()),
        )
    })
}

fn state_of(doc: &DocumentMut) -> FlagState {
    let features = doc.get("features").and_then(Item::as_table_like);
    let value = |key: &str| features.and_then(|f| f.get(key)).and_then(Item::as_bool);
    if KEYS.iter().any(|key| value(key) == Some(true)) {
        return FlagState::On;
    }
    KEYS.iter()
        .find(|key| value(key) == Some(false))
        .map_or(FlagState::Absent, |key| FlagState::Off(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(text: Option<&str>) -> Option<String> {
        turn_on(Path::new("config.toml"), text).expect("valid TOML")
    }

    #[test]
    fn the_flag_is_added_kept_or_turned_on_and_the_rest_of_the_file_kept() {
        assert_eq!(
            on(None).as_deref(),
            Some("[features]\ncodex_hooks = true\n")
        );
        let with_other = "# my model\nmodel = \"o3\"\n\n[features]\nweb_search = true\n";
        assert_eq!(
            on(Some(with_other)).as_deref(),
            Some(
                "# my model\nmodel = \"o3\"\n\n[features]\nweb_search = true\ncodex_hooks = true\n"
            )
        );
        assert_eq!(on(Some("[features]\nhooks = true\n")), None);
        assert_eq!(on(Some("features.codex_hooks = true\n")), None);
        assert_eq!(
            on(Some("[features]\nhooks = false # off for now\n")).as_deref(),
            Some("[features]\nhooks = true # off for now\n")
        );
        let err = turn_on(Path::new("c.toml"), Some("model = [")).expect_err("invalid");
        assert_eq!(err.code().as_str(), "invalid_argument");
        let err = turn_on(Path::new("c.toml"), Some("features = 3\n")).expect_err("not a table");
        assert_eq!(err.code().as_str(), "invalid_argument");
    }
}
