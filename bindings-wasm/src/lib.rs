//! wasm-bindgen bindings of agent-checkpoint, for browsers, bundlers and Node.
//!
//! Every pure function of the Node package under the same camelCase name, and
//! `createCheckpoint` / `rollback` / `planRollback` / `recordApplied` over a
//! filesystem the caller provides: any
//! JS object with the synchronous methods of the `CheckpointFs` interface
//! (see [`js_root`]), or the bundled in-memory [`memory_fs::MemoryFs`]. There
//! is no real filesystem on `wasm32-unknown-unknown`; the JS side brings one.
//!
//! Each function converts its arguments, calls the core and maps the error
//! (an `Error` with `.code`, see [`error`]); no semantics live here.

pub mod applied;
pub mod error;
pub mod js_root;
pub mod memory_fs;
pub mod naming;
pub mod options;
pub mod plan;
pub mod snapshot;

use wasm_bindgen::prelude::*;

// The TypeScript side of the contract: the filesystem interface the caller
// implements, and the plain objects functions take and return.
#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** The stable error codes (`err.code` of every error this package throws). */
export type ErrorCode =
  | "invalid_checkpoint_id" | "invalid_ref_name" | "invalid_path" | "path_escapes_root"
  | "not_a_file" | "malformed_snapshot" | "unsupported_version" | "too_large"
  | "unauthenticated" | "not_found" | "permission_denied" | "io";

/** Every error thrown by this package: a plain `Error` with a stable `code`. */
export interface CheckpointError extends Error {
  code: ErrorCode;
  /** The path the error is about, when it is about one. */
  path?: string;
}

/** What `stat` reports; `kind: "none"` (or `null`) when nothing is at the path. */
export interface FsStat {
  kind: "file" | "dir" | "symlink" | "other" | "none";
  /** Size in bytes (files; link text length for links). */
  size?: number;
  /** Permission bits (`mode & 0o7777`), default 0o644. */
  mode?: number;
}

/**
 * A synchronous filesystem the caller provides (an in-browser editor's buffers,
 * a virtual file system, ...). Paths are canonical and relative to the root:
 * `/`-separated, no `.`, `..`, empty component or leading `/` (e.g. `src/a.py`).
 *
 * The package checks every parent with `stat` first and never asks to walk
 * through a symlink, so an implementation may treat paths as plain keys.
 * A method signals failure by throwing; an error's `code` is kept, and Node-style
 * codes map to the core's: `ENOENT` -> `not_found`, `EACCES`/`EPERM` ->
 * `permission_denied`, anything else -> `io` (`EEXIST`, `ENOTDIR`, `EISDIR`,
 * `ENOTEMPTY`, `EINVAL` are recognised as such).
 */
export interface CheckpointFs {
  /** Absolute spelling of the root that absolute input paths may start with (optional). */
  readonly absolutePath?: string | null;
  /** `lstat`: never follows a final symlink. `null` or `{kind: "none"}` when absent. */
  stat(path: string): FsStat | null;
  /** The bytes of the regular file at `path`, or `null` when nothing is there. */
  readFile(path: string): Uint8Array | null;
  /**
   * Atomically replaces the file or symlink at `path` with a regular file holding
   * `data` and permission bits `mode` (never a partial write). The parent exists.
   * `durable` asks for the data to reach stable storage before returning.
   */
  writeFile(path: string, data: Uint8Array, mode: number, durable: boolean): void;
  /** Removes the file or symlink at `path` (never a directory). */
  removeFile(path: string): void;
  /** Creates one directory; its parent exists. Throws (`EEXIST`) if something is there. */
  mkdir(path: string): void;
  /** Removes one empty directory; throws (`ENOTEMPTY`) if it is not empty. */
  rmdir(path: string): void;
  /** The target text of the symlink at `path`. */
  readLink(path: string): string;
  /** Atomically replaces the file or symlink at `path` with a symlink to `target`. */
  writeLink(path: string, target: string): void;
  /** Optional: flush a directory's entries (`null` is the root). */
  syncDir?(path: string | null): void;
}

/** One target path of a batch: the path itself, or an object whose `file` names it. */
export type Operation = string | { file: string };

/**
 * A sealing key: bytes, or a string standing for its UTF-8 bytes (`'k1'` and
 * `new TextEncoder().encode('k1')` are the same key).
 */
export type SealingKey = string | Uint8Array;

/**
 * What rollback does with a path changed after the batch (known only after
 * `recordApplied`): restore it anyway, or leave it and list it in `conflicts`.
 * Any other value throws an `Error` with `code: 'InvalidArg'`.
 */
export type OnConflict = "overwrite" | "skip";

/** Options of `createCheckpoint`. */
export interface CaptureOptions {
  /** Accept paths with a `.git` component (refused by default). */
  allowGitDir?: boolean;
  /** Refuse (`too_large`) any file larger than this many bytes. */
  maxFileBytes?: number;
  /**
   * Seal the snapshot with this key (HMAC-SHA256): a rollback given the key
   * then refuses it if it was altered (`unauthenticated`).
   */
  key?: SealingKey;
}

/** Options of `rollback`. */
export interface RollbackOptions {
  /** Ask the filesystem to make each write durable (default `true`). */
  durable?: boolean;
  /** Accept snapshot keys with a `.git` component (refused by default). */
  allowGitDir?: boolean;
  /** What to do with a path changed after the batch (default `"overwrite"`). */
  onConflict?: OnConflict;
  /** Refuse the snapshot (`valid: false`, `unauthenticated`) unless it is sealed with this key. */
  key?: SealingKey;
  /** Return the `redo` snapshot (default `true`); `false` saves reading every captured path first. */
  redo?: boolean;
}

/** Options of `planRollback`: those of `rollback` that change what it would do. */
export interface PlanOptions {
  /** Accept snapshot keys with a `.git` component (refused by default). */
  allowGitDir?: boolean;
  /** As in `rollback`: with `"skip"`, a changed path is planned as `conflict`. */
  onConflict?: OnConflict;
  /** Throw `unauthenticated` unless the snapshot is sealed with this key. */
  key?: SealingKey;
}

/** Options of `recordApplied`. */
export interface RecordAppliedOptions {
  /** Accept snapshot keys with a `.git` component (refused by default). */
  allowGitDir?: boolean;
  /** The key of a sealed snapshot (required for one): verified, and the result sealed again. */
  key?: SealingKey;
}

/** What `rollback` did. It never throws for a malformed snapshot: `valid` is then false. */
export interface RollbackResult {
  /** Paths now as captured, sorted. */
  restored: string[];
  /** Paths that could not be restored, sorted. */
  unrestored: string[];
  /**
   * Paths left as they were because they changed after the batch
   * (`onConflict: "skip"`), sorted: neither restored nor unrestored.
   */
  conflicts: string[];
  /** Why each unrestored path failed. */
  failures: Record<string, string>;
  /** Whether the snapshot was well-formed (and so applied). */
  valid: boolean;
  /** Valid, and every path restored. */
  ok: boolean;
  /** The code of the refusal when `valid` is false, else `null`. */
  errorCode: ErrorCode | null;
  /** The message of the refusal when `valid` is false, else `null`. */
  error: string | null;
  /**
   * The captured paths as they were just before this rollback: rolling it
   * back brings the batch's result back. `null` when refused, or with `redo: false`.
   */
  redo: string | null;
}

/** What rollback would do to one path. */
export type PlanAction = "keep" | "write" | "remove" | "rmdir" | "conflict";

/** One line of `planRollback`'s result. */
export interface PlanItem {
  /** The captured path or created directory. */
  path: string;
  /**
   * `keep`: already as captured; `write`: write the captured file or link;
   * `remove`: remove what the batch created; `rmdir`: remove a directory the
   * batch created; `conflict`: changed after the batch, left alone (`"skip"`).
   */
  action: PlanAction;
  /**
   * Whether the path changed after the batch (known only after
   * `recordApplied`); with `"overwrite"` it is still written or removed.
   */
  conflict: boolean;
}

/** One captured path, as `inspectSnapshot` describes it. */
export interface CapturedPath {
  path: string;
  /** `file`: existed, with bytes; `new`: did not exist; `link`: a symlink. */
  kind: "file" | "new" | "link";
  /** Size in bytes of the captured content (files only). */
  size: number | null;
  /** Permission bits (files whose mode was recorded). */
  mode: number | null;
  /** Target text (links only). */
  linkTarget: string | null;
  /** SHA-256 (hex) of the captured content, when the snapshot records it. */
  digest: string | null;
}

/** One node of `MemoryFs.entries()`. */
export interface MemoryEntry {
  path: string;
  kind: "file" | "dir" | "symlink" | "other";
  /** File content (files only). */
  data?: Uint8Array;
  /** Permission bits (files only). */
  mode?: number;
  /** Link target (symlinks only). */
  target?: string;
}
"#;
