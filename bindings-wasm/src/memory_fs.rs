//! [`MemoryFs`]: an in-memory `CheckpointFs` backed by the core's [`MemRoot`].
//!
//! It implements the filesystem interface (so `createCheckpoint(fs, ...)` and
//! `rollback(fs, ...)` accept it like any JS filesystem) plus helpers to put
//! and get nodes, for tests and for apps that keep their files in memory.

use agent_checkpoint::root::{EntryKind, Expect, MemNode, Root, WriteOptions};
use agent_checkpoint::{Error, MemRoot, RelPath};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::{js_code, js_result, type_error, with_code};
use crate::js_root::kind_errno;

/// An in-memory filesystem with the same rules as a real directory: parents
/// must be directories (a symlink in a parent is refused), a directory is
/// removed only when empty, files replace files or links but never directories.
#[wasm_bindgen]
pub struct MemoryFs {
    root: MemRoot,
}

fn rel(path: &str) -> Result<RelPath, JsValue> {
    js_result(RelPath::try_from(path))
}

/// An error of a filesystem method: I/O errors carry a Node-style code
/// (`ENOENT`, ...), the others the core's code.
fn fs_error(error: &Error) -> JsValue {
    let code = match error {
        Error::Io { error, .. } => kind_errno(error.kind()),
        _ => js_code(error.code()),
    };
    with_code(&error.to_string(), code, error.path())
}

fn fs_result<T>(result: agent_checkpoint::Result<T>) -> Result<T, JsValue> {
    result.map_err(|e| fs_error(&e))
}

fn set(object: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(object, &key.into(), value).map(drop)
}

/// Bytes from a `Uint8Array` or a string (UTF-8 encoded).
fn bytes_of(contents: &JsValue) -> Result<Vec<u8>, JsValue> {
    if let Some(text) = contents.as_string() {
        return Ok(text.into_bytes());
    }
    contents
        .dyn_ref::<js_sys::Uint8Array>()
        .map(js_sys::Uint8Array::to_vec)
        .ok_or_else(|| type_error("contents must be a string or a Uint8Array"))
}

#[wasm_bindgen]
impl MemoryFs {
    /// An empty filesystem. `absolutePath`, if given, is the absolute spelling
    /// of its root: absolute input paths under it are accepted, others escape.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(js_name = absolutePath)] absolute_path: Option<String>) -> MemoryFs {
        MemoryFs {
            root: match absolute_path {
                Some(path) => MemRoot::with_absolute_path(path),
                None => MemRoot::new(),
            },
        }
    }

    /// The absolute spelling of the root, if one was given.
    #[wasm_bindgen(getter, js_name = absolutePath)]
    pub fn absolute_path(&self) -> Option<String> {
        self.root.absolute_prefixes().into_iter().next()
    }

    // --- helpers for tests and apps ---

    /// Puts a file (string contents are UTF-8 encoded) at `path`, creating
    /// parent directories and replacing whatever was there. `mode` defaults to 0o644.
    #[wasm_bindgen(js_name = putFile)]
    pub fn put_file(
        &self,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] contents: JsValue,
        mode: Option<u32>,
    ) -> Result<(), JsValue> {
        let node = MemNode::File {
            bytes: bytes_of(&contents)?,
            mode: mode.unwrap_or(0o644) & 0o7777,
        };
        self.root.insert(&rel(path)?, node);
        Ok(())
    }

    /// Puts a directory at `path`, creating parents.
    #[wasm_bindgen(js_name = putDir)]
    pub fn put_dir(&self, path: &str) -> Result<(), JsValue> {
        self.root.insert(&rel(path)?, MemNode::Dir);
        Ok(())
    }

    /// Puts a symlink to `target` at `path`, creating parents.
    #[wasm_bindgen(js_name = putLink)]
    pub fn put_link(&self, path: &str, target: &str) -> Result<(), JsValue> {
        self.root
            .insert(&rel(path)?, MemNode::Symlink(target.to_owned()));
        Ok(())
    }

    /// Puts a special file (stands for a FIFO, socket or device) at `path`.
    #[wasm_bindgen(js_name = putSpecial)]
    pub fn put_special(&self, path: &str) -> Result<(), JsValue> {
        self.root.insert(&rel(path)?, MemNode::Other);
        Ok(())
    }

    /// The bytes of the file at `path`, or `null` if no regular file is there.
    #[wasm_bindgen(js_name = getFile, unchecked_return_type = "Uint8Array | null")]
    pub fn get_file(&self, path: &str) -> JsValue {
        match self.root.get(path) {
            Some(MemNode::File { bytes, .. }) => js_sys::Uint8Array::from(bytes.as_slice()).into(),
            _ => JsValue::NULL,
        }
    }

    /// The file at `path` decoded as UTF-8 (lossily), or `null` if no regular file is there.
    #[wasm_bindgen(js_name = getText, unchecked_return_type = "string | null")]
    pub fn get_text(&self, path: &str) -> JsValue {
        match self.root.get(path) {
            Some(MemNode::File { bytes, .. }) => String::from_utf8_lossy(&bytes).as_ref().into(),
            _ => JsValue::NULL,
        }
    }

    /// Every node, sorted by path.
    #[wasm_bindgen(unchecked_return_type = "MemoryEntry[]")]
    pub fn entries(&self) -> Result<js_sys::Array, JsValue> {
        let out = js_sys::Array::new();
        for (path, node) in self.root.entries() {
            let item = js_sys::Object::new();
            set(&item, "path", &path.into())?;
            let kind = match node {
                MemNode::File { bytes, mode } => {
                    set(&item, "data", &js_sys::Uint8Array::from(bytes.as_slice()))?;
                    set(&item, "mode", &mode.into())?;
                    "file"
                }
                MemNode::Dir => "dir",
                MemNode::Symlink(target) => {
                    set(&item, "target", &target.into())?;
                    "symlink"
                }
                MemNode::Other => "other",
            };
            set(&item, "kind", &kind.into())?;
            out.push(&item);
        }
        Ok(out)
    }

    // --- the CheckpointFs interface ---

    /// `lstat` of `path` (see `CheckpointFs.stat`).
    #[wasm_bindgen(unchecked_return_type = "FsStat")]
    pub fn stat(&self, path: &str) -> Result<JsValue, JsValue> {
        let meta = fs_result(self.root.metadata(&rel(path)?))?;
        let out = js_sys::Object::new();
        let Some(meta) = meta else {
            set(&out, "kind", &"none".into())?;
            return Ok(out.into());
        };
        let kind = match meta.kind {
            EntryKind::File => "file",
            EntryKind::Dir => "dir",
            EntryKind::Symlink => "symlink",
            _ => "other",
        };
        set(&out, "kind", &kind.into())?;
        set(&out, "size", &JsValue::from_f64(meta.len as f64))?;
        set(&out, "mode", &meta.mode.into())?;
        // The in-memory version counter: moves on every change.
        set(&out, "version", &JsValue::from_f64(meta.stamp as f64))?;
        Ok(out.into())
    }

    /// The bytes of the file at `path`, or `null` when nothing is there.
    #[wasm_bindgen(js_name = readFile, unchecked_return_type = "Uint8Array | null")]
    pub fn read_file(&self, path: &str) -> Result<JsValue, JsValue> {
        let path = rel(path)?;
        if fs_result(self.root.metadata(&path))?.is_none() {
            return Ok(JsValue::NULL);
        }
        let bytes = fs_result(self.root.read_file(&path, None))?;
        Ok(js_sys::Uint8Array::from(bytes.as_slice()).into())
    }

    /// Replaces the file or link at `path` with a file (see `CheckpointFs.writeFile`).
    #[wasm_bindgen(js_name = writeFile)]
    pub fn write_file(
        &self,
        path: &str,
        data: &[u8],
        mode: Option<u32>,
        durable: Option<bool>,
    ) -> Result<(), JsValue> {
        let options =
            WriteOptions::new(mode.unwrap_or(0o644)).with_durable(durable.unwrap_or(false));
        fs_result(self.root.write_file(&rel(path)?, data, &options))
    }

    /// Removes the file or link at `path`.
    #[wasm_bindgen(js_name = removeFile)]
    pub fn remove_file(&self, path: &str) -> Result<(), JsValue> {
        fs_result(self.root.remove_file(&rel(path)?, Expect::Any))
    }

    /// The names of the entries of the directory `path` (`""` is the root).
    #[wasm_bindgen(js_name = readDir)]
    pub fn read_dir(&self, path: &str) -> Result<Vec<String>, JsValue> {
        let dir = if path.is_empty() {
            None
        } else {
            Some(rel(path)?)
        };
        fs_result(self.root.read_dir(dir.as_ref()))
    }

    /// Creates one directory (its parent must exist).
    pub fn mkdir(&self, path: &str) -> Result<(), JsValue> {
        fs_result(self.root.create_dir(&rel(path)?))
    }

    /// Removes one empty directory.
    pub fn rmdir(&self, path: &str) -> Result<(), JsValue> {
        fs_result(self.root.remove_dir(&rel(path)?))
    }

    /// The target text of the symlink at `path`.
    #[wasm_bindgen(js_name = readLink)]
    pub fn read_link(&self, path: &str) -> Result<String, JsValue> {
        fs_result(self.root.read_link(&rel(path)?))
    }

    /// Replaces the file or link at `path` with a symlink to `target`.
    #[wasm_bindgen(js_name = writeLink)]
    pub fn write_link(&self, path: &str, target: &str) -> Result<(), JsValue> {
        fs_result(
            self.root
                .write_link(&rel(path)?, target, &WriteOptions::new(0o777)),
        )
    }
}

impl Default for MemoryFs {
    fn default() -> MemoryFs {
        MemoryFs::new(None)
    }
}
