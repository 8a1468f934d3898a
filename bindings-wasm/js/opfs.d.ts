// Types of opfs.js: a CheckpointFs over the Origin Private File System.

import type { CheckpointFs, FsStat, MemoryEntry } from './agent_checkpoint_wasm.js'

/** Options of `OpfsFs.open`. */
export interface OpfsOptions {
  /** Create the root directory (and its parents) when missing (default `true`). */
  create?: boolean;
  /**
   * The absolute spelling of the root that absolute input paths may start
   * with, recorded in snapshots as where they were taken (default: none, so
   * absolute input paths are refused with `path_escapes_root`).
   */
  absolutePath?: string | null;
  /**
   * OPFS has no permission bits. By default writing a file whose mode is
   * not 0o644 throws `EPERM` and writes nothing (a rollback reports the
   * path in `unrestored` with code `permission_denied`); `true` writes it as
   * a plain OPFS file instead, and its mode is lost.
   */
  ignoreModes?: boolean;
  /** How long one call may wait for OPFS, in ms (default 30 000); then `ETIMEDOUT` and the fs is closed. */
  timeoutMs?: number;
  /** Size of the shared answer buffer in bytes (default 1 MiB; larger answers come in chunks). */
  bufferBytes?: number;
  /** Where `opfs-io-worker.js` is served (default: next to `opfs.js`). */
  workerUrl?: string | URL;
}

/** What `OpfsFs.stat` reports: OPFS holds only files (mode 0o644) and directories. */
export interface OpfsStat extends FsStat {
  kind: "file" | "dir" | "none";
}

/**
 * A synchronous `CheckpointFs` over a directory of the Origin Private File
 * System, for a **dedicated Worker** of a **cross-origin isolated** page
 * (SharedArrayBuffer). Each call is carried out by a helper worker
 * (`opfs-io-worker.js`) while this one waits on `Atomics.wait`, so it acts on
 * OPFS as it is at that moment.
 *
 * Methods throw `Error`s with a Node-style `code` (`ENOENT`, `EEXIST`,
 * `ENOTEMPTY`, `EISDIR`, `ENOTDIR`, `EPERM`, `EBUSY`, `ENOSPC`, `ETIMEDOUT`,
 * `EIO`, ...) and `path`. What OPFS cannot hold is refused per path with
 * `EPERM` (code `permission_denied` in a rollback's `unrestored`): a file
 * mode other than 0o644, and symlinks.
 */
export declare class OpfsFs implements CheckpointFs {
  private constructor();
  /**
   * Opens `root`: a `/`-separated path below the OPFS root (`""`, the
   * default, is the OPFS root itself) or a directory handle. Rejects with a
   * `NotSupportedError` outside a dedicated worker, without
   * SharedArrayBuffer, or without OPFS.
   */
  static open(root?: string | FileSystemDirectoryHandle, options?: OpfsOptions): Promise<OpfsFs>;
  /** Stops the helper worker; later calls throw `EBADF`. */
  close(): void;
  /** The `absolutePath` given to `open`, or `null`. */
  readonly absolutePath: string | null;
  stat(path: string): OpfsStat;
  readFile(path: string): Uint8Array | null;
  readDir(path: string): string[];
  /** Temp file through a sync access handle (flushed when `durable`), then moved over `path`. */
  writeFile(path: string, data: Uint8Array, mode?: number, durable?: boolean): void;
  removeFile(path: string): void;
  mkdir(path: string): void;
  rmdir(path: string): void;
  /** OPFS has no symlinks: always throws `EINVAL`. */
  readLink(path: string): never;
  /** OPFS cannot hold symlinks: always throws `EPERM`. */
  writeLink(path: string, target: string): never;
  /** Nothing to do: OPFS commits directory changes itself. */
  syncDir(path: string | null): void;
  /** Writes a file (strings as UTF-8), creating parent directories; `mode` other than 0o644 throws `EPERM`. */
  putFile(path: string, contents: string | Uint8Array, mode?: number): void;
  /** Creates a directory and its parents. */
  putDir(path: string): void;
  /** Always throws `EPERM`. */
  putLink(path: string, target: string): never;
  /** The bytes of the file at `path`, or `null` when no file is there. */
  getFile(path: string): Uint8Array | null;
  /** The file at `path` as UTF-8 text, or `null` when no file is there. */
  getText(path: string): string | null;
  /** Every file and directory below the root, sorted by path. */
  entries(): MemoryEntry[];
}
