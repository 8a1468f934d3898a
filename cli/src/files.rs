//! Reading inputs and writing outputs for the CLI.

use std::io::{Read, Write};
use std::path::Path;

use agent_checkpoint::{Error, SealKey};

/// A command-line path as UTF-8, or the core's `invalid_path` error.
pub fn utf8(path: &Path) -> Result<String, Error> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::invalid_path(path.to_string_lossy(), "not valid UTF-8"))
}

/// The bytes of `file`, or stdin for `-`.
pub fn read_bytes(file: &Path) -> Result<Vec<u8>, Error> {
    if file == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("<stdin>", e))?;
        return Ok(bytes);
    }
    std::fs::read(file).map_err(|e| Error::io(file.to_string_lossy(), e))
}

/// The text of a snapshot file (`-`: stdin). Bytes that are not UTF-8 are
/// not a snapshot: `malformed_snapshot`, as for any other bad document.
pub fn read_snapshot(file: &Path) -> Result<String, Error> {
    String::from_utf8(read_bytes(file)?).map_err(|e| {
        Error::malformed(format!(
            "{} is not UTF-8 text (invalid byte at offset {})",
            file.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Writes `text` to `output`, or to stdout (with a final newline). A file
/// is owner-only (`0600`), new or replaced: what the CLI writes (snapshots,
/// redo snapshots) holds captured file bytes. Its mode is set before the
/// first byte is written; a device or pipe (`/dev/stdout`) is written as
/// it is.
pub fn write_output(output: Option<&Path>, text: &str) -> Result<(), Error> {
    match output {
        Some(path) => {
            write_private(path, text.as_bytes()).map_err(|e| Error::io(path.to_string_lossy(), e))
        }
        None => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{text}").map_err(|e| Error::io("<stdout>", e))
        }
    }
}

/// The key in `file` (its bytes, exactly), if a file was named; an empty
/// file is refused (`invalid_argument`): an empty key seals nothing.
pub fn read_key(file: Option<&Path>) -> Result<Option<SealKey>, Error> {
    let Some(file) = file else { return Ok(None) };
    let bytes = std::fs::read(file).map_err(|e| Error::io(file.to_string_lossy(), e))?;
    SealKey::new(bytes).map(Some).map_err(|_| {
        Error::invalid_argument(
            "--key-file",
            format!("{} is empty; a sealing key must not be", file.display()),
        )
    })
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    #[cfg(unix)]
    if file.metadata()?.is_file() {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)?;
    file.flush()
}
