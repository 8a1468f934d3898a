//! The paths a caller names, made in-tree paths: relative to the working
//! tree's root (`./` and an absolute prefix of the root are accepted), no
//! `..`, and the directories a step never takes (`.git`, `.entire`) told
//! apart.

use std::path::{Component, Path};

use agent_checkpoint::{Error, RelPath, Result};

use super::ENTIRE_DIR;

/// A named path, sorted out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Named {
    /// An in-tree path a step may take.
    Path(RelPath),
    /// A path under `.git` or `.entire` (any case for `.git`): never taken.
    Reserved(String),
}

/// Makes `raw` an in-tree path of the working tree at `workdir`.
///
/// # Errors
/// `invalid_path` for an empty path, a `..` component, an absolute path
/// outside the working tree, or a name git cannot store.
pub(crate) fn named(raw: &str, workdir: &Path) -> Result<Named> {
    let path = Path::new(raw);
    let relative = if path.is_absolute() {
        strip_root(path, workdir)
            .ok_or_else(|| Error::invalid_path(raw, "an absolute path outside the working tree"))?
    } else {
        path.to_path_buf()
    };
    let mut parts: Vec<&str> = Vec::new();
    for component in relative.components() {
        match component {
            Component::CurDir => {}
            Component::Normal(name) => parts.push(
                name.to_str()
                    .ok_or_else(|| Error::invalid_path(raw, "not UTF-8"))?,
            ),
            Component::ParentDir => {
                return Err(Error::invalid_path(raw, "a `..` component"));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(Error::invalid_path(raw, "not a relative path"));
            }
        }
    }
    if parts.is_empty() {
        return Err(Error::invalid_path(
            raw,
            "names the root of the working tree",
        ));
    }
    let rel = RelPath::from_components(&parts)?;
    Ok(if is_reserved(rel.as_str()) {
        Named::Reserved(rel.as_str().to_owned())
    } else {
        Named::Path(rel)
    })
}

/// Whether an in-tree path is under `.entire/` (or is it) or has a `.git`
/// component.
pub(crate) fn is_reserved(path: &str) -> bool {
    let first = path.split('/').next().unwrap_or(path);
    first == ENTIRE_DIR || path.split('/').any(|c| c.eq_ignore_ascii_case(".git"))
}

fn strip_root(path: &Path, workdir: &Path) -> Option<std::path::PathBuf> {
    if let Ok(rest) = path.strip_prefix(workdir) {
        return Some(rest.to_path_buf());
    }
    let canonical = workdir.canonicalize().ok()?;
    path.strip_prefix(&canonical).ok().map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn named_paths() {
        let root = Path::new("/work/repo");
        let p = |s: &str| named(s, root).unwrap();
        assert_eq!(
            p("./src/a.rs"),
            Named::Path(RelPath::try_from("src/a.rs").unwrap())
        );
        assert_eq!(
            p("/work/repo/b"),
            Named::Path(RelPath::try_from("b").unwrap())
        );
        assert_eq!(
            p("src//c"),
            Named::Path(RelPath::try_from("src/c").unwrap())
        );
        assert_eq!(p(".entire/x"), Named::Reserved(".entire/x".into()));
        assert_eq!(p("a/.GIT/config"), Named::Reserved("a/.GIT/config".into()));
        for bad in ["", ".", "../x", "a/../../x", "/etc/passwd"] {
            assert!(named(bad, root).is_err(), "{bad}");
        }
    }
}
