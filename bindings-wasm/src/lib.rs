//! wasm-bindgen bindings of agent-checkpoint, for browsers, bundlers and Node.
//!
//! Every pure function of the Node package under the same camelCase name, and
//! `createCheckpoint` / `rollback` / `planRollback` / `recordApplied` over a
//! filesystem the caller provides: any
//! JS object with the synchronous methods of the `CheckpointFs` interface
//! (see [`js_root`]), or the bundled in-memory [`memory_fs::MemoryFs`]. There
//! is no real filesystem on `wasm32-unknown-unknown`; the JS side brings one.
//!
//! Secret redaction ([`redact`]): `redactText`, `redactJson`, `redactBlob`
//! and the `Redactor` class, as in the Node package.
//!
//! Each function converts its arguments, calls the core and maps the error
//! (an `Error` with `.code`, see [`error`]); no semantics live here.

pub mod applied;
pub mod diff;
pub mod error;
pub mod js_root;
pub mod memory_fs;
pub mod naming;
pub mod options;
pub mod plan;
pub mod redact;
pub mod snapshot;

use wasm_bindgen::prelude::*;

// The TypeScript side of the contract: the filesystem interface the caller
// implements, and the plain objects functions take and return.
#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** The stable error codes (`err.code` of every error this package throws). */
export type ErrorCode =
  | "invalid_checkpoint_id" | "invalid_ref_name" | "invalid_path"
  | "path_escapes_root" | "not_a_file" | "not_a_directory" | "malformed_snapshot"
  | "unsupported_version" | "too_large" | "invalid_argument" | "invalid_pattern"
  | "unauthenticated" | "root_mismatch" | "not_found" | "no_transcript"
  | "not_a_repository" | "corrupt_object" | "ref_busy" | "conflict"
  | "remote_unreachable" | "auth_failed" | "rejected" | "permission_denied" | "io";

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
  /**
   * Optional: a number that changes whenever the entry does (a version
   * counter; `mtimeMs` is used when this is absent). A guarded rollback
   * (`onConflict: "skip"`) compares it right before each write, to leave
   * alone a file saved while it ran.
   */
  version?: number;
  mtimeMs?: number;
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
   * The names of the entries of the directory `path` (`""` is the root), in
   * any order. Rollback lists a directory it wants gone to tell whether it
   * holds anything the snapshot does not cover.
   */
  readDir(path: string): string[];
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
 * Any other value throws a `RangeError` with `code: "invalid_argument"`.
 */
export type OnConflict = "overwrite" | "skip";

/** Options of `createCheckpoint`. */
export interface CaptureOptions {
  /** Accept paths with a `.git` component (refused by default). */
  allowGitDir?: boolean;
  /**
   * Skip, unread, any file larger than this many bytes (default 100 MiB):
   * the snapshot lists it under `skipped` (path -> size), a rollback under
   * `notCovered`.
   */
  maxFileBytes?: number;
  /**
   * Seal the snapshot with this key (HMAC-SHA256): a rollback given the key
   * then refuses it if it was altered (`unauthenticated`).
   */
  key?: SealingKey;
  /** Record the root's `absolutePath` in the snapshot (default `true`). */
  recordRoot?: boolean;
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
  /** Restore set-user-id / set-group-id bits (default `false`: never). */
  restoreSetid?: boolean;
  /** Refuse (`root_mismatch`) a snapshot taken under another root (default: `otherRoot` says so). */
  strictRoot?: boolean;
  /** The largest current file read into memory for the redo (default 100 MiB, the core's `DEFAULT_MAX_FILE_BYTES`). */
  maxFileBytes?: number;
}

/**
 * Options of `planRollback`: those of `rollback` that change what it would
 * do, and the diffs. No option of this package takes a progress callback
 * (the Node and Python packages have one): every call here is synchronous,
 * so the JavaScript thread could not run it, and `wasm32-unknown-unknown`
 * has no clock to throttle reports with.
 */
export interface PlanOptions {
  /** Accept snapshot keys with a `.git` component (refused by default). */
  allowGitDir?: boolean;
  /** As in `rollback`: with `"skip"`, a changed path is planned as `conflict`. */
  onConflict?: OnConflict;
  /** Throw `unauthenticated` unless the snapshot is sealed with this key. */
  key?: SealingKey;
  /** As in `rollback`. */
  restoreSetid?: boolean;
  /** As in `rollback`. */
  strictRoot?: boolean;
  /**
   * Describe each change (`PlanItem.diff`, `diffSummary`, `hunks`): a unified
   * diff where one can be shown, one line otherwise (default `false`: it
   * reads every file the rollback would rewrite).
   */
  diff?: boolean;
  /** Unchanged lines shown around each change (default 3). */
  diffContext?: number;
  /** Files larger than this on either side get one line instead of a line diff (default 1 MiB). */
  diffMaxBytes?: number;
}

/** Options of `recordApplied`. */
export interface RecordAppliedOptions {
  /** Accept snapshot keys with a `.git` component (refused by default). */
  allowGitDir?: boolean;
  /** The key of a sealed snapshot (required for one): verified, and the result sealed again. */
  key?: SealingKey;
}

/** One path a rollback could not restore, or that its redo cannot carry. */
export interface PathProblem {
  path: string;
  code: ErrorCode;
  reason: string;
}

/**
 * What `rollback` did. It never throws for a snapshot it refuses: `valid`
 * is then false, with `errorCode`, and nothing was touched.
 */
export interface RollbackReport {
  /** Paths now as captured, sorted. */
  restored: string[];
  /** Paths that could not be restored, sorted, each with its code and reason. */
  unrestored: PathProblem[];
  /**
   * Paths left as they were because they changed after the batch
   * (`onConflict: "skip"`), sorted: neither restored nor unrestored.
   */
  conflicts: string[];
  /** Whether the snapshot was accepted (and so applied). */
  valid: boolean;
  /** Valid, and every path restored. */
  ok: boolean;
  /** The code of the refusal when `valid` is false, else `null`. */
  errorCode: ErrorCode | null;
  /** The message of the refusal when `valid` is false, else `null`. */
  error: string | null;
  /** The plan this rollback carried out (what `planRollback` says). */
  plan: PlanItem[];
  /**
   * The captured paths as they were just before this rollback: rolling it
   * back brings the batch's result back. `null` when refused, or with `redo: false`.
   */
  redo: string | null;
  /** Captured paths the redo cannot carry, and why. */
  notInRedo: PathProblem[];
  /**
   * Paths the capture skipped for their size (over `maxFileBytes`), each
   * with that size: neither restored nor removed, left as they are.
   */
  notCovered: { path: string; size: number; code: ErrorCode }[];
  /** The root the snapshot was taken under, when it is not this one. */
  otherRoot: string | null;
}

/** The former name of `RollbackReport`. */
export type RollbackResult = RollbackReport;

/** What rollback would do to one path. */
export type PlanAction = "keep" | "write" | "remove" | "rmdir" | "conflict" | "refuse";

/** One line of `planRollback`'s result. */
export interface PlanItem {
  /** The captured path, created directory, or empty directory in the way. */
  path: string;
  /**
   * `keep`: already as captured (or a directory that stays); `write`: write
   * the captured file or link; `remove`: remove what the batch created;
   * `rmdir`: remove a directory the batch created; `conflict`: changed after
   * the batch, left alone (`"skip"`); `refuse`: cannot be restored without
   * destroying what the snapshot does not cover, reported with `code`.
   */
  action: PlanAction;
  /**
   * Whether the path changed after the batch (known only after
   * `recordApplied`); with `"overwrite"` it is still written or removed.
   */
  conflict: boolean;
  /** For `refuse`: the error code the rollback reports for the path. */
  code: ErrorCode | null;
  /** Why, when the action needs a word. */
  reason: string | null;
  /**
   * With `diff: true`, for a path the rollback changes: the unified diff from
   * the file as it is now to the one the rollback restores when there is a
   * line diff, else the one-line `diffSummary`; `null` otherwise.
   */
  diff: string | null;
  /** With `diff: true`, for a path the rollback changes: one line for people (`+3 -1`, `new file, 2 lines`, `mode 644 -> 755`, ...). */
  diffSummary: string | null;
  /** The hunks of the line diff, with line numbers (empty without one). */
  hunks: Hunk[];
}

/** One hunk of a unified diff, from the file as it is now (old) to the one the rollback restores (new). */
export interface Hunk {
  /** First line of the hunk in the current file (1-based; 0 when it covers no line there). */
  oldStart: number;
  /** Lines of the current file the hunk covers. */
  oldLines: number;
  /** First line of the hunk in the restored file (1-based; 0 when it covers no line there). */
  newStart: number;
  /** Lines of the restored file the hunk covers. */
  newLines: number;
  /** The lines, in order. */
  lines: DiffLine[];
}

/** One line of a hunk. */
export interface DiffLine {
  /** `context`: unchanged; `removed`: on disk now, gone after the rollback; `added`: restored. */
  kind: "context" | "removed" | "added";
  /** The line's text, without its line ending. */
  text: string;
  /** Its number in the current file (1-based), when it is there. */
  oldLine?: number;
  /** Its number in the restored file (1-based), when it is there. */
  newLine?: number;
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

/** Options of the redaction functions and of `new Redactor()`. */
export interface RedactOptions {
  /**
   * Also replace e-mail addresses, phone numbers and street addresses
   * (`[REDACTED_EMAIL]`, `[REDACTED_PHONE]`, `[REDACTED_ADDRESS]`; default `false`).
   */
  personalData?: boolean;
  /**
   * Extra rules, `[name, regex]` pairs (Rust `regex` syntax): every match is
   * replaced and reported as `name`. A pattern that does not compile throws
   * an `Error` with `code: "invalid_pattern"`.
   */
  rules?: Array<[string, string]>;
}

/**
 * One replaced span: the rule that found it and its byte range in the
 * input's UTF-8 encoding (not UTF-16 string indices), never the secret.
 */
export interface Finding {
  /** The rule's name (`github_pat`, `entropy`, `email`, a caller's rule, ...). */
  rule: string;
  /** First byte of the replaced span in the UTF-8 input. */
  start: number;
  /** One past the last byte of the replaced span. */
  end: number;
}

/** A redacted text and what was replaced in it. */
export interface Redaction {
  output: string;
  /** The replaced spans, sorted by `start`. */
  findings: Finding[];
}

/** Redacted bytes and what was replaced in them. */
export interface BlobRedaction {
  /** The redacted bytes (a copy of the input when nothing was replaced). */
  output: Uint8Array;
  /** The replaced spans, sorted by `start`. */
  findings: Finding[];
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
