//! A repository's sharing mode (`core.sharedRepository`) and the modes of
//! the files and directories made under it: the one policy every file and
//! directory the store and the push queue create follows.
//!
//! - [`Sharing::Private`] (git's `umask`/`false`, the default): files
//!   `0600`, directories `0700`, whatever the umask. Stricter than git,
//!   because what the store keeps (undo snapshots above all) may hold the
//!   bytes of files only their owner could read.
//! - [`Sharing::Group`] (`group`/`true`/`1`) and [`Sharing::Everybody`]
//!   (`all`/`world`/`everybody`/`2`): git's `calc_shared_perm`, so files
//!   `0660` / `0664` and directories `02770` / `02775` (setgid, as git
//!   makes them, so a second member of the group can write where
//!   `git update-ref` works for them).
//! - [`Sharing::Mode`] (an octal `0xxx`, which must give the owner read and
//!   write): files exactly that mode (write bits for others dropped),
//!   directories that mode with execute bits where it reads, and setgid.
//!
//! Modes are set with `chmod` after creation, so the umask does not narrow
//! a shared mode; only what the caller created is changed.

use std::fs;
use std::io;
use std::path::Path;

/// How a repository is shared (`core.sharedRepository`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sharing {
    /// Not shared: owner-only files and directories.
    #[default]
    Private,
    /// Shared with the group (`0660` files).
    Group,
    /// Readable by everybody, writable by the group (`0664` files).
    Everybody,
    /// Exactly this file mode (`0640`, `0660`, ...).
    Mode(u32),
}

impl Sharing {
    /// Reads a `core.sharedRepository` value as git's `git_config_perm`
    /// does (`None`: the key without a value, which git takes as `group`).
    /// A value git would refuse (not a boolean, a name or an octal mode
    /// giving the owner read and write) is [`Sharing::Private`].
    pub fn from_config(value: Option<&str>) -> Sharing {
        let Some(value) = value else {
            return Sharing::Group;
        };
        let value = value.trim();
        match value {
            "umask" => return Sharing::Private,
            "group" => return Sharing::Group,
            "all" | "world" | "everybody" => return Sharing::Everybody,
            _ => {}
        }
        if let Some(mode) = parse_octal(value) {
            return match mode {
                0 => Sharing::Private,
                1 => Sharing::Group,
                2 => Sharing::Everybody,
                m if m & 0o600 == 0o600 => Sharing::Mode(m & 0o666),
                _ => Sharing::Private,
            };
        }
        match value.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Sharing::Group,
            _ => Sharing::Private,
        }
    }

    /// Whether anyone besides the owner gets access.
    pub fn is_shared(self) -> bool {
        self != Sharing::Private
    }

    /// The mode of a new file.
    pub fn file_mode(self) -> u32 {
        self.shared_perm(0o600)
    }

    /// The mode of a new directory (with setgid when shared).
    pub fn dir_mode(self) -> u32 {
        let mode = self.shared_perm(0o700);
        if self.is_shared() {
            mode | 0o2000
        } else {
            mode
        }
    }

    // git's calc_shared_perm for a mode the owner can write.
    fn shared_perm(self, mode: u32) -> u32 {
        let (mut tweak, exact) = match self {
            Sharing::Private => return mode,
            Sharing::Group => (0o660, false),
            Sharing::Everybody => (0o664, false),
            Sharing::Mode(m) => (m, true),
        };
        if mode & 0o100 != 0 {
            tweak |= (tweak & 0o444) >> 2;
        }
        if exact {
            (mode & !0o777) | tweak
        } else {
            mode | tweak
        }
    }

    /// Sets the mode of a file the caller just created (`fchmod`, so the
    /// file itself whatever its path became).
    ///
    /// # Errors
    /// The `fchmod` failure.
    pub fn set_file_mode(self, file: &fs::File) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(fs::Permissions::from_mode(self.file_mode()))
        }
        #[cfg(not(unix))]
        {
            let _ = file;
            Ok(())
        }
    }

    /// Creates the directory `path` (its parent must exist) with
    /// [`Sharing::dir_mode`]; an existing directory is left as it is.
    ///
    /// # Errors
    /// The `mkdir` or `chmod` failure.
    pub fn create_dir(self, path: &Path) -> io::Result<()> {
        #[cfg_attr(not(unix), allow(unused_mut))]
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(path) {
            Ok(()) => set_mode(path, self.dir_mode()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `options` set to create a file that only the owner can open until
    /// [`Sharing::set_file_mode`] widens it.
    pub fn creating(self, options: &mut fs::OpenOptions) -> &mut fs::OpenOptions {
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(options, 0o600);
        options
    }
}

fn parse_octal(value: &str) -> Option<u32> {
    if value.is_empty() || !value.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return None;
    }
    u32::from_str_radix(value, 8).ok()
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_git() {
        assert_eq!(Sharing::from_config(Some("umask")), Sharing::Private);
        assert_eq!(Sharing::from_config(Some("false")), Sharing::Private);
        assert_eq!(Sharing::from_config(Some("0")), Sharing::Private);
        assert_eq!(Sharing::from_config(None), Sharing::Group);
        assert_eq!(Sharing::from_config(Some("true")), Sharing::Group);
        assert_eq!(Sharing::from_config(Some("1")), Sharing::Group);
        assert_eq!(Sharing::from_config(Some("world")), Sharing::Everybody);
        assert_eq!(Sharing::from_config(Some("2")), Sharing::Everybody);
        assert_eq!(Sharing::from_config(Some("0640")), Sharing::Mode(0o640));
        assert_eq!(Sharing::from_config(Some("0440")), Sharing::Private);
        assert_eq!(Sharing::Private.file_mode(), 0o600);
        assert_eq!(Sharing::Private.dir_mode(), 0o700);
        assert_eq!(Sharing::Group.file_mode(), 0o660);
        assert_eq!(Sharing::Group.dir_mode(), 0o2770);
        assert_eq!(Sharing::Everybody.file_mode(), 0o664);
        assert_eq!(Sharing::Everybody.dir_mode(), 0o2775);
        assert_eq!(Sharing::Mode(0o640).file_mode(), 0o640);
        assert_eq!(Sharing::Mode(0o640).dir_mode(), 0o2750);
        assert_eq!(Sharing::Mode(0o666).file_mode(), 0o666);
    }
}
