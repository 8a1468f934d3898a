//! What the native tree helpers do differently per platform: how a mode is
//! read and set, how a link or a special file is made, and which part of a
//! mode the platform can hold at all.
//!
//! On Windows a file's only permission is the read-only attribute (see
//! `core/src/root/cap/windows.rs`): a mode reads as `0o444` or `0o644`, and
//! trees are compared through that projection, since the executable and
//! set-id bits a POSIX case writes are not something Windows can hold.

use std::path::Path;

/// A file's mode as the tree helpers compare it.
#[cfg(unix)]
pub fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

/// A file's mode as the tree helpers compare it.
#[cfg(windows)]
pub fn mode_of(meta: &std::fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

/// Gives `path` the permission bits of `mode` that the platform holds.
#[cfg(unix)]
pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// Gives `path` the permission bits of `mode` that the platform holds.
#[cfg(windows)]
pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    let mut permissions = std::fs::metadata(path)?.permissions();
    permissions.set_readonly(mode & 0o222 == 0);
    std::fs::set_permissions(path, permissions)
}

/// Creates the symlink `path` pointing at `target`.
#[cfg(unix)]
pub fn make_link(target: &str, path: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, path)
}

/// Creates the symlink `path` pointing at `target` (`/` written as `\`; a
/// directory link when the target is a directory now).
#[cfg(windows)]
pub fn make_link(target: &str, path: &Path) -> std::io::Result<()> {
    let native = target.replace('/', "\\");
    let resolved = path.parent().map(|p| p.join(&native));
    if resolved.is_some_and(|r| r.is_dir()) {
        std::os::windows::fs::symlink_dir(native, path)?;
    } else {
        std::os::windows::fs::symlink_file(native, path)?;
    }
    // Wine 8 reports a link created and makes nothing.
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Ok(()),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "the symlink was reported created but is not there (Wine)",
        )),
    }
}

/// Creates a special file (a socket) at `path`.
#[cfg(unix)]
pub fn make_special(path: &Path) -> std::io::Result<()> {
    std::os::unix::net::UnixListener::bind(path).map(drop)
}

/// Windows has no FIFOs or sockets in the file namespace: refused.
#[cfg(windows)]
pub fn make_special(_path: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "setup: Windows has no special files in the file namespace",
    ))
}

/// A mode as the platform holds it (POSIX: itself).
#[cfg(unix)]
pub fn held_mode(mode: u32) -> u32 {
    mode
}

/// A mode as the platform holds it: read-only or not.
#[cfg(windows)]
pub fn held_mode(mode: u32) -> u32 {
    if mode & 0o222 == 0 {
        0o444
    } else {
        0o644
    }
}
