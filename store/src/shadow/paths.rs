//! The paths a caller names, made in-tree paths: relative to the working
//! tree's root (`./` and an absolute prefix of the root are accepted), no
//! `..`, and the directories a step never takes (`.git`, `.entire`) told
//! apart. A [`Scope`] confines a step or rewind to one directory of the
//! working tree: paths are then named relative to it, and one outside it is
//! `path_escapes_root`.

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

/// The directory of the working tree a step or rewind is confined to (the
/// whole working tree when it has no prefix). With a prefix, named paths
/// are relative to that directory (absolute ones must lie inside it), a
/// path outside it is `path_escapes_root`, and reported paths are relative
/// to it again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Scope {
    prefix: Option<RelPath>,
}

impl Scope {
    /// The scope `raw` names (relative to the working tree at `workdir`, or
    /// absolute inside it); `None`, `""` and `"."` are the whole tree.
    ///
    /// # Errors
    /// `invalid_path` for a scope that is not an in-tree directory path or
    /// lies under `.git` / `.entire`; `path_escapes_root` for an absolute
    /// one outside the working tree.
    pub(crate) fn parse(raw: Option<&str>, workdir: &Path) -> Result<Scope> {
        let raw = match raw {
            None => return Ok(Scope::default()),
            Some(raw) if raw.is_empty() || raw == "." || raw == "./" => return Ok(Scope::default()),
            Some(raw) => raw,
        };
        if Path::new(raw).is_absolute() && strip_root(Path::new(raw), workdir).is_none() {
            return Err(Error::escapes(raw, "the scope is outside the working tree"));
        }
        match named(raw, workdir) {
            Ok(Named::Path(prefix)) => Ok(Scope {
                prefix: Some(prefix),
            }),
            Ok(Named::Reserved(p)) => {
                Err(Error::invalid_path(p, "a scope under `.git` or `.entire`"))
            }
            // The working tree's own root, spelled absolutely.
            Err(_) if Path::new(raw).is_absolute() => Ok(Scope::default()),
            Err(e) => Err(e),
        }
    }

    /// The scope's directory, relative to the working tree (`None`: all of it).
    pub(crate) fn prefix(&self) -> Option<&str> {
        self.prefix.as_ref().map(RelPath::as_str)
    }

    /// Whether the in-tree path `path` lies inside the scope.
    pub(crate) fn contains(&self, path: &str) -> bool {
        match self.prefix() {
            None => true,
            Some(prefix) => path
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/')),
        }
    }

    /// The in-tree path `path` relative to the scope (`None` outside it).
    pub(crate) fn strip<'p>(&self, path: &'p str) -> Option<&'p str> {
        match self.prefix() {
            None => Some(path),
            Some(prefix) => path.strip_prefix(prefix)?.strip_prefix('/'),
        }
    }

    /// Makes `raw` an in-tree path inside the scope: as [`named`], with
    /// relative paths taken from the scope's directory.
    ///
    /// # Errors
    /// As [`named`]; `path_escapes_root` for a path outside the scope
    /// (absolute, or with `..` leaving it).
    pub(crate) fn named(&self, raw: &str, workdir: &Path) -> Result<Named> {
        let Some(prefix) = &self.prefix else {
            return named(raw, workdir);
        };
        let path = Path::new(raw);
        if path.is_absolute() {
            let outside = || Error::escapes(raw, "outside the directory the call is confined to");
            let in_tree = strip_root(path, workdir).ok_or_else(outside)?;
            let in_tree = in_tree
                .to_str()
                .ok_or_else(|| Error::invalid_path(raw, "not UTF-8"))?;
            if self.strip(in_tree).is_none_or(str::is_empty) {
                return Err(outside());
            }
            return named(in_tree, workdir);
        }
        let mut depth = 0usize;
        for component in path.components() {
            match component {
                Component::Normal(_) => depth += 1,
                Component::ParentDir if depth == 0 => {
                    return Err(Error::escapes(
                        raw,
                        "a `..` component leaves the directory the call is confined to",
                    ));
                }
                Component::ParentDir => depth -= 1,
                _ => {}
            }
        }
        // The scope root itself is no file.
        named(raw, workdir)?;
        named(&format!("{}/{raw}", prefix.as_str()), workdir)
    }
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

    #[test]
    fn scoped_paths() {
        let root = Path::new("/work/repo");
        let scope = Scope::parse(Some("sub"), root).unwrap();
        assert_eq!(scope, Scope::parse(Some("/work/repo/sub/"), root).unwrap());
        let p = |s: &str| scope.named(s, root).unwrap();
        assert_eq!(
            p("a.rs"),
            Named::Path(RelPath::try_from("sub/a.rs").unwrap())
        );
        assert_eq!(
            p("/work/repo/sub/d/b"),
            Named::Path(RelPath::try_from("sub/d/b").unwrap())
        );
        assert_eq!(p("d/.git/x"), Named::Reserved("sub/d/.git/x".into()));
        let code = |s: &str| scope.named(s, root).unwrap_err().code().as_str();
        for escaping in [
            "../other/secret",
            "a/../../x",
            "/work/repo/other/x",
            "/work/repo/sub",
            "/etc/passwd",
            "/work/repo/subx/y",
        ] {
            assert_eq!(code(escaping), "path_escapes_root", "{escaping}");
        }
        assert_eq!(code("a/../b"), "invalid_path");
        assert!(scope.contains("sub/a") && !scope.contains("sub") && !scope.contains("subx/a"));
        assert_eq!(scope.strip("sub/a/b"), Some("a/b"));
        assert_eq!(scope.strip("other/a"), None);
        assert_eq!(Scope::parse(Some("."), root).unwrap(), Scope::default());
        assert_eq!(
            Scope::parse(Some("/work/repo"), root).unwrap(),
            Scope::default()
        );
        assert!(Scope::parse(Some("../x"), root).is_err());
        assert!(Scope::parse(Some(".git/x"), root).is_err());
        assert_eq!(
            Scope::parse(Some("/elsewhere"), root)
                .unwrap_err()
                .code()
                .as_str(),
            "path_escapes_root"
        );
    }
}
