//! Reading a configuration file, and changing one safely: a backup of the
//! old bytes first, then the new bytes written to a temporary file beside
//! it and renamed over it (the file's mode kept, a symlink followed to the
//! file it names), so a crash leaves the old file or the new one, never
//! half of either.

use std::io::Write;
use std::path::{Path, PathBuf};

use agent_checkpoint::Error;

/// A configuration larger than this is refused (`too_large`): agents'
/// settings files are a few kilobytes.
pub(crate) const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// The suffix of the backup written beside a file before it is changed.
pub(crate) const BACKUP_SUFFIX: &str = ".agent-checkpoint.bak";

/// The text of the file at `path`, `None` when there is no file. A file
/// that is not UTF-8 or larger than [`MAX_CONFIG_BYTES`] is refused.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, Error> {
    let shown = path.to_string_lossy();
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(shown, e)),
    };
    if !meta.is_file() {
        return Err(Error::invalid_argument(
            shown,
            "is not a regular file: a configuration file was expected there",
        ));
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(Error::file_too_large(shown, meta.len(), MAX_CONFIG_BYTES));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path.to_string_lossy(), e))?;
    String::from_utf8(bytes).map(Some).map_err(|e| {
        Error::invalid_argument(
            path.to_string_lossy(),
            format!(
                "is not UTF-8 text (invalid byte at offset {}), so it is left as it is",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The backup path of `path`: `<path>.agent-checkpoint.bak`.
pub(crate) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(BACKUP_SUFFIX);
    PathBuf::from(name)
}

/// Replaces the file at `path` (or creates it, and its missing parent
/// directories) with `text`. An existing file is first copied to its
/// [`backup_path`], whose path is returned; its permissions are kept on the
/// new file. A new file gets mode `0644`.
pub(crate) fn replace(path: &Path, text: &str) -> Result<Option<PathBuf>, Error> {
    let target = resolve_symlink(path)?;
    let shown = target.to_string_lossy().into_owned();
    let old = match std::fs::metadata(&target) {
        Ok(meta) => Some(meta.permissions()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(shown, e)),
    };
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.to_string_lossy(), e))?;
    let backup = match &old {
        Some(permissions) => Some(write_backup(path, &target, permissions)?),
        None => None,
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".agent-checkpoint-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir.to_string_lossy(), e))?;
    let io = |e| Error::io(shown.clone(), e);
    temp.write_all(text.as_bytes()).map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    if let Some(permissions) = old.or_else(new_file_permissions) {
        std::fs::set_permissions(temp.path(), permissions).map_err(io)?;
    }
    temp.persist(&target).map_err(|e| io(e.error))?;
    sync_dir(dir);
    Ok(backup)
}

/// Removes the file at `path` after copying it to its [`backup_path`]
/// (returned).
pub(crate) fn remove(path: &Path) -> Result<PathBuf, Error> {
    let target = resolve_symlink(path)?;
    let meta = std::fs::metadata(&target).map_err(|e| Error::io(target.to_string_lossy(), e))?;
    let backup = write_backup(path, &target, &meta.permissions())?;
    std::fs::remove_file(path).map_err(|e| Error::io(path.to_string_lossy(), e))?;
    Ok(backup)
}

/// The file a symlink at `path` names (followed to its end), else `path`:
/// a dotfile kept as a symlink into a dotfiles repository stays a symlink.
fn resolve_symlink(path: &Path) -> Result<PathBuf, Error> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(path).map_err(|e| Error::io(path.to_string_lossy(), e))
        }
        _ => Ok(path.to_path_buf()),
    }
}

/// Copies `target`'s bytes to the backup of `path`, with the same
/// permissions (a settings file may hold tokens).
fn write_backup(
    path: &Path,
    target: &Path,
    permissions: &std::fs::Permissions,
) -> Result<PathBuf, Error> {
    let backup = backup_path(path);
    let shown = backup.to_string_lossy().into_owned();
    let bytes = std::fs::read(target).map_err(|e| Error::io(target.to_string_lossy(), e))?;
    // A stale backup is replaced: the backup holds the state just before
    // the latest change.
    match std::fs::remove_file(&backup) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(shown, e)),
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&backup)
        .map_err(|e| Error::io(shown.clone(), e))?;
    file.write_all(&bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io(shown.clone(), e))?;
    std::fs::set_permissions(&backup, permissions.clone()).map_err(|e| Error::io(shown, e))?;
    Ok(backup)
}

#[cfg(unix)]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

/// Elsewhere a new file keeps the permissions the system gave it.
#[cfg(not(unix))]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    None
}

#[cfg(unix)]
fn sync_dir(dir: &Path) {
    // Best effort: the rename is already visible; this makes it durable.
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) {}
