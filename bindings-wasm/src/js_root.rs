//! [`JsRoot`]: the core [`Root`] over a caller-provided JS filesystem.
//!
//! The JS object implements the `CheckpointFs` interface of the `.d.ts`
//! (synchronous `stat`, `readFile`, `writeFile`, `removeFile`, `mkdir`,
//! `rmdir`, `readLink`, `writeLink`, optional `syncDir`). `JsRoot` keeps the
//! `Root` contract itself: it stats every parent first and refuses to walk
//! through a symlink or a non-directory, so a JS filesystem may treat paths
//! as plain keys and still gets exactly the core's semantics.

use std::io;

use agent_checkpoint::root::{
    check_expect, walk_parents, EntryKind, Expect, Metadata, Parents, Root, WriteOptions,
};
use agent_checkpoint::{Error, RelPath, Result};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// A JS object implementing the `CheckpointFs` interface.
    #[wasm_bindgen(typescript_type = "CheckpointFs")]
    pub type CheckpointFs;

    #[wasm_bindgen(method, catch)]
    fn stat(this: &CheckpointFs, path: &str) -> std::result::Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = readFile)]
    fn read_file(this: &CheckpointFs, path: &str) -> std::result::Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = readDir)]
    fn read_dir(this: &CheckpointFs, path: &str) -> std::result::Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = writeFile)]
    fn write_file(
        this: &CheckpointFs,
        path: &str,
        data: &js_sys::Uint8Array,
        mode: u32,
        durable: bool,
    ) -> std::result::Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = removeFile)]
    fn remove_file(this: &CheckpointFs, path: &str) -> std::result::Result<(), JsValue>;

    #[wasm_bindgen(method, catch)]
    fn mkdir(this: &CheckpointFs, path: &str) -> std::result::Result<(), JsValue>;

    #[wasm_bindgen(method, catch)]
    fn rmdir(this: &CheckpointFs, path: &str) -> std::result::Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = readLink)]
    fn read_link(this: &CheckpointFs, path: &str) -> std::result::Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = writeLink)]
    fn write_link(
        this: &CheckpointFs,
        path: &str,
        target: &str,
    ) -> std::result::Result<(), JsValue>;
}

/// The core [`Root`] over a [`CheckpointFs`].
pub struct JsRoot<'a> {
    fs: &'a CheckpointFs,
}

impl<'a> JsRoot<'a> {
    /// Wraps `fs`; it must be an object (its methods are looked up per call).
    pub fn new(fs: &'a CheckpointFs) -> std::result::Result<JsRoot<'a>, JsValue> {
        if !fs.is_object() {
            return Err(crate::error::type_error(
                "fs must be an object implementing CheckpointFs",
            ));
        }
        Ok(JsRoot { fs })
    }

    fn stat_path(&self, path: &str) -> Result<Option<Metadata>> {
        let value = self.fs.stat(path).map_err(|e| js_io_error(path, &e))?;
        parse_stat(path, &value)
    }

    /// Every ancestor of `path` must be a directory. `Ok(false)` when one is
    /// missing or not a directory; an error when one is a symlink.
    fn parents_are_dirs(&self, path: &RelPath) -> Result<bool> {
        let walked = walk_parents(path, |dir| self.stat_path(dir.as_str()))?;
        Ok(walked == Parents::Dirs)
    }

    fn check_parents(&self, path: &RelPath) -> Result<()> {
        if self.parents_are_dirs(path)? {
            Ok(())
        } else {
            Err(io_error(
                path,
                io::ErrorKind::NotFound,
                "a parent directory does not exist",
            ))
        }
    }

    fn refuse_dir(&self, path: &RelPath) -> Result<Option<Metadata>> {
        let meta = self.stat_path(path.as_str())?;
        if meta.is_some_and(|m| m.kind == EntryKind::Dir) {
            return Err(io_error(
                path,
                io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        Ok(meta)
    }

    /// The last look before a replace: `options.expect`, then an empty
    /// directory there goes when allowed.
    fn prepare_replace(&self, path: &RelPath, options: &WriteOptions) -> Result<()> {
        self.check_parents(path)?;
        let found = self.stat_path(path.as_str())?;
        check_expect(path, found.as_ref(), options.expect)?;
        if found.is_some_and(|m| m.kind == EntryKind::Dir) {
            if !options.replace_empty_dir {
                return Err(io_error(
                    path,
                    io::ErrorKind::IsADirectory,
                    "is a directory",
                ));
            }
            self.fs
                .rmdir(path.as_str())
                .map_err(|e| js_io_error(path.as_str(), &e))?;
        }
        Ok(())
    }
}

impl Root for JsRoot<'_> {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        if !self.parents_are_dirs(path)? {
            return Ok(None);
        }
        self.stat_path(path.as_str())
    }

    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        self.check_parents(path)?;
        let Some(meta) = self.stat_path(path.as_str())? else {
            return Err(io_error(path, io::ErrorKind::NotFound, "no such file"));
        };
        if meta.kind != EntryKind::File {
            return Err(Error::NotAFile {
                path: path.to_string(),
                kind: meta.kind.describe().to_owned(),
            });
        }
        let too_large = |size: u64| {
            max_bytes
                .filter(|l| size > *l)
                .map(|limit| Error::file_too_large(path.as_str(), size, limit))
        };
        if let Some(e) = too_large(meta.len) {
            return Err(e);
        }
        let value = self
            .fs
            .read_file(path.as_str())
            .map_err(|e| js_io_error(path.as_str(), &e))?;
        if value.is_null() || value.is_undefined() {
            return Err(io_error(path, io::ErrorKind::NotFound, "no such file"));
        }
        let Some(array) = value.dyn_ref::<js_sys::Uint8Array>() else {
            return Err(io_error(
                path,
                io::ErrorKind::InvalidData,
                "readFile must return a Uint8Array or null",
            ));
        };
        // Checked before anything is copied into wasm memory: a `stat` that
        // under-reports the size cannot make a huge allocation.
        if let Some(e) = too_large(u64::from(array.length())) {
            return Err(e);
        }
        Ok(array.to_vec())
    }

    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        let shown = dir.map_or("", RelPath::as_str);
        if let Some(d) = dir {
            self.check_parents(d)?;
        }
        let value = self
            .fs
            .read_dir(shown)
            .map_err(|e| js_io_error(shown, &e))?;
        let array = value.dyn_ref::<js_sys::Array>().ok_or_else(|| {
            Error::io(
                shown,
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "readDir must return an array of names",
                ),
            )
        })?;
        array
            .iter()
            .map(|name| {
                name.as_string().ok_or_else(|| {
                    Error::io(
                        shown,
                        io::Error::new(io::ErrorKind::InvalidData, "readDir names must be strings"),
                    )
                })
            })
            .collect()
    }

    fn read_link(&self, path: &RelPath) -> Result<String> {
        self.check_parents(path)?;
        let value = self
            .fs
            .read_link(path.as_str())
            .map_err(|e| js_io_error(path.as_str(), &e))?;
        value.as_string().ok_or_else(|| {
            io_error(
                path,
                io::ErrorKind::InvalidData,
                "readLink must return a string",
            )
        })
    }

    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        self.prepare_replace(path, options)?;
        // A copy owned by JS: a view into wasm memory could change under the callee.
        let data = js_sys::Uint8Array::from(bytes);
        self.fs
            .write_file(path.as_str(), &data, options.mode & 0o7777, options.durable)
            .map_err(|e| js_io_error(path.as_str(), &e))
    }

    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        self.prepare_replace(path, options)?;
        self.fs
            .write_link(path.as_str(), target)
            .map_err(|e| js_io_error(path.as_str(), &e))
    }

    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        self.check_parents(path)?;
        let found = self.refuse_dir(path)?;
        check_expect(path, found.as_ref(), expect)?;
        if found.is_none() {
            return Err(io_error(path, io::ErrorKind::NotFound, "no such file"));
        }
        self.fs
            .remove_file(path.as_str())
            .map_err(|e| js_io_error(path.as_str(), &e))
    }

    fn create_dir(&self, path: &RelPath) -> Result<()> {
        self.check_parents(path)?;
        if self.stat_path(path.as_str())?.is_some() {
            return Err(io_error(
                path,
                io::ErrorKind::AlreadyExists,
                "already exists",
            ));
        }
        self.fs
            .mkdir(path.as_str())
            .map_err(|e| js_io_error(path.as_str(), &e))
    }

    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        self.check_parents(path)?;
        match self.stat_path(path.as_str())?.map(|m| m.kind) {
            Some(EntryKind::Dir) => self
                .fs
                .rmdir(path.as_str())
                .map_err(|e| js_io_error(path.as_str(), &e)),
            Some(_) => Err(io_error(
                path,
                io::ErrorKind::NotADirectory,
                "not a directory",
            )),
            None => Err(io_error(path, io::ErrorKind::NotFound, "no such directory")),
        }
    }

    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
        let shown = path.map_or(".", RelPath::as_str);
        let method =
            js_sys::Reflect::get(self.fs, &"syncDir".into()).map_err(|e| js_io_error(shown, &e))?;
        let Some(method) = method.dyn_ref::<js_sys::Function>() else {
            return Ok(());
        };
        let arg = path.map_or(JsValue::NULL, |p| JsValue::from(p.as_str()));
        method
            .call1(self.fs, &arg)
            .map(drop)
            .map_err(|e| js_io_error(shown, &e))
    }

    fn absolute_prefixes(&self) -> Vec<String> {
        js_sys::Reflect::get(self.fs, &"absolutePath".into())
            .ok()
            .and_then(|v| v.as_string())
            .map(|s| s.trim_end_matches('/').to_owned())
            .filter(|s| !s.is_empty())
            .into_iter()
            .collect()
    }
}

fn io_error(path: &RelPath, kind: io::ErrorKind, what: &str) -> Error {
    Error::io(path.as_str(), io::Error::new(kind, what.to_owned()))
}

/// Reads a `stat` result: `null`/`undefined`/`{kind: "none"}` is absent.
fn parse_stat(path: &str, value: &JsValue) -> Result<Option<Metadata>> {
    if value.is_null() || value.is_undefined() {
        return Ok(None);
    }
    let field =
        |name: &str| js_sys::Reflect::get(value, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let kind = match field("kind").as_string().as_deref() {
        Some("none") => return Ok(None),
        Some("file") => EntryKind::File,
        Some("dir") => EntryKind::Dir,
        Some("symlink") => EntryKind::Symlink,
        Some("other") => EntryKind::Other,
        _ => return Err(Error::io(
            path,
            io::Error::new(
                io::ErrorKind::InvalidData,
                "stat must return {kind: \"file\"|\"dir\"|\"symlink\"|\"other\"|\"none\"} or null",
            ),
        )),
    };
    let number = |name: &str, default: f64| {
        field(name)
            .as_f64()
            .filter(|n| *n >= 0.0)
            .unwrap_or(default)
    };
    // JS numbers are exact to 2^53; sizes never come near.
    let meta = Metadata::new(
        kind,
        number("size", 0.0) as u64,
        (number("mode", 420.0) as u32) & 0o7777,
    );
    // Optional: anything that changes when the entry does (a version
    // counter, `mtimeMs`), for the last look of a guarded rollback.
    let stamp = ["version", "mtimeMs"]
        .iter()
        .find_map(|name| field(name).as_f64())
        .map_or(0, f64::to_bits);
    Ok(Some(meta.with_stamp(stamp)))
}

/// A value thrown by a JS filesystem method, as a core I/O error about `path`.
/// Its `code` and `message` are kept in the text; Node-style codes choose the kind.
pub fn js_io_error(path: &str, thrown: &JsValue) -> Error {
    let get = |name: &str| {
        js_sys::Reflect::get(thrown, &name.into())
            .ok()
            .and_then(|v| v.as_string())
    };
    let (code, message) = if thrown.is_object() {
        (get("code"), get("message"))
    } else {
        (None, thrown.as_string())
    };
    let message = message.unwrap_or_else(|| "the filesystem threw a non-Error value".to_owned());
    let kind = code.as_deref().map_or(io::ErrorKind::Other, errno_kind);
    let text = match code {
        Some(code) => format!("{code}: {message}"),
        None => message,
    };
    Error::io(path, io::Error::new(kind, text))
}

/// The I/O error kind of a Node-style error code (or a core snake_case one).
pub fn errno_kind(code: &str) -> io::ErrorKind {
    match code {
        "ENOENT" | "not_found" => io::ErrorKind::NotFound,
        "EACCES" | "EPERM" | "permission_denied" => io::ErrorKind::PermissionDenied,
        "EEXIST" => io::ErrorKind::AlreadyExists,
        "ENOTDIR" => io::ErrorKind::NotADirectory,
        "EISDIR" => io::ErrorKind::IsADirectory,
        "ENOTEMPTY" => io::ErrorKind::DirectoryNotEmpty,
        "EINVAL" => io::ErrorKind::InvalidInput,
        _ => io::ErrorKind::Other,
    }
}

/// The Node-style code of an I/O error kind, the inverse of [`errno_kind`]
/// (`EIO` for everything else).
pub fn kind_errno(kind: io::ErrorKind) -> &'static str {
    match kind {
        io::ErrorKind::NotFound => "ENOENT",
        io::ErrorKind::PermissionDenied => "EACCES",
        io::ErrorKind::AlreadyExists => "EEXIST",
        io::ErrorKind::NotADirectory => "ENOTDIR",
        io::ErrorKind::IsADirectory => "EISDIR",
        io::ErrorKind::DirectoryNotEmpty => "ENOTEMPTY",
        io::ErrorKind::InvalidInput => "EINVAL",
        _ => "EIO",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errno_codes_round_trip() {
        for code in [
            "ENOENT",
            "EACCES",
            "EEXIST",
            "ENOTDIR",
            "EISDIR",
            "ENOTEMPTY",
            "EINVAL",
        ] {
            assert_eq!(kind_errno(errno_kind(code)), code);
        }
        assert_eq!(errno_kind("EPERM"), io::ErrorKind::PermissionDenied);
        assert_eq!(errno_kind("EWHATEVER"), io::ErrorKind::Other);
        assert_eq!(kind_errno(io::ErrorKind::Other), "EIO");
    }
}
