// OpfsFs: a `CheckpointFs` over the browser's Origin Private File System, for
// a dedicated Worker. Shipped in pkg/web as `opfs.js` (types: `opfs.d.ts`),
// with its helper worker `opfs-io-worker.js`.
//
// Why a helper worker. The package's filesystem calls are synchronous (the
// core is synchronous Rust), but OPFS is asynchronous everywhere except the
// byte I/O of an already open `FileSystemSyncAccessHandle`: looking up a
// directory, creating or opening a file, listing, removing and renaming all
// return Promises. A Worker cannot wait for its own Promises inside a
// synchronous call, so each call here is handed to a second dedicated worker
// (`opfs-io-worker.js`), which does the OPFS work asynchronously and writes
// the answer into a SharedArrayBuffer, while this worker blocks on
// `Atomics.wait` until it is there. Every call therefore acts on OPFS as it
// is at that moment (no cached tree goes stale), and when a write returns the
// file is in place. The cost: SharedArrayBuffer needs a cross-origin isolated
// page (COOP/COEP headers), and `Atomics.wait` is allowed only in workers.
//
// What OPFS cannot hold is refused per path, never dropped silently: a file
// mode other than 0o644 (OPFS has no permission bits) and symlinks are
// `EPERM` errors, which a rollback reports in `unrestored` with code
// `permission_denied` and the reason.

/** Answer kinds in control[1]. */
const OK_JSON = 0
const OK_BYTES = 1
const FAILED = 2
const OK_TREE = 3

/** control: [0] answered (0/1), [1] kind, [2] bytes in this chunk, [3] more chunks follow. */
const CONTROL_BYTES = 16
const DEFAULT_BUFFER_BYTES = 1 << 20
const DEFAULT_TIMEOUT_MS = 30_000
/** The only mode an OPFS file has (what `stat` reports). */
const FILE_MODE = 0o644

const decoder = new TextDecoder()
const encoder = new TextEncoder()
const constructing = Symbol('OpfsFs.open')

/** An `Error` with a Node-style `code` (how `CheckpointFs` methods signal failure). */
function fsError(code, message, path) {
  const error = new Error(message)
  error.code = code
  if (path !== undefined) error.path = path
  return error
}

function concat(parts) {
  if (parts.length === 1) return parts[0]
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/** Throws unless this is a dedicated worker of a cross-origin isolated page. */
function requireBlockingWorker() {
  const inWorker = typeof WorkerGlobalScope !== 'undefined' && typeof window === 'undefined'
  if (!inWorker) {
    throw new DOMException(
      'OpfsFs runs in a dedicated Worker (its calls block on Atomics.wait, which the main thread may not do); ' +
        'on the main thread use MemoryFs or your own CheckpointFs',
      'NotSupportedError',
    )
  }
  if (typeof SharedArrayBuffer === 'undefined' || !globalThis.crossOriginIsolated) {
    throw new DOMException(
      'OpfsFs needs SharedArrayBuffer: serve the page cross-origin isolated ' +
        '(Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp or credentialless)',
      'NotSupportedError',
    )
  }
  if (typeof navigator === 'undefined' || !navigator.storage?.getDirectory) {
    throw new DOMException('this browser has no Origin Private File System (navigator.storage.getDirectory)', 'NotSupportedError')
  }
}

/** `root` as path components below the OPFS root (a string), or the handle itself. */
function rootParts(root) {
  if (typeof root !== 'string') {
    if (root && typeof root === 'object' && root.kind === 'directory') return root
    throw new TypeError('root must be a path string inside OPFS or a FileSystemDirectoryHandle')
  }
  const parts = root.split('/').filter((p) => p !== '')
  for (const part of parts) {
    if (part === '.' || part === '..' || part.includes('\\')) {
      throw new TypeError(`root must be a plain path inside OPFS (no ".", ".." or "\\"): ${JSON.stringify(root)}`)
    }
  }
  return parts
}

/**
 * A synchronous `CheckpointFs` over a directory of the Origin Private File
 * System. Create it with `await OpfsFs.open(root, options)` inside a
 * dedicated Worker of a cross-origin isolated page; pass it to
 * `createCheckpoint`, `rollback`, `planRollback` and `recordApplied`.
 */
export class OpfsFs {
  #worker
  #control
  #data
  #timeoutMs
  #ignoreModes
  #absolutePath
  #closed = null

  /** Use `OpfsFs.open()`. */
  constructor(token, worker, shared, options) {
    if (token !== constructing) throw new TypeError('use `await OpfsFs.open(root, options)`')
    this.#worker = worker
    this.#control = new Int32Array(shared, 0, CONTROL_BYTES / 4)
    this.#data = new Uint8Array(shared, CONTROL_BYTES)
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.#ignoreModes = options.ignoreModes === true
    this.#absolutePath = options.absolutePath ?? null
  }

  /**
   * Opens `root` — a `/`-separated path below the OPFS root (`""` is the
   * OPFS root itself) or a `FileSystemDirectoryHandle` — and starts the
   * helper worker. Options: `create` (default `true`: create `root` and its
   * parents when missing), `absolutePath` (the absolute spelling absolute
   * input paths may start with, recorded in snapshots; default none),
   * `ignoreModes` (default `false`: refuse to write a file whose mode is not
   * 0o644), `timeoutMs` (default 30 000: how long one call may take),
   * `bufferBytes` (default 1 MiB: the shared buffer; larger answers come in
   * chunks), `workerUrl` (where `opfs-io-worker.js` is served, default next
   * to this module).
   */
  static async open(root = '', options = {}) {
    requireBlockingWorker()
    const parts = rootParts(root)
    const bufferBytes = options.bufferBytes ?? DEFAULT_BUFFER_BYTES
    if (!Number.isInteger(bufferBytes) || bufferBytes < 1024) throw new RangeError('bufferBytes must be an integer >= 1024')
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be a positive number')
    const shared = new SharedArrayBuffer(CONTROL_BYTES + bufferBytes)
    const url = options.workerUrl ?? new URL('./opfs-io-worker.js', import.meta.url)
    const worker = new Worker(url, { type: 'module', name: 'agent-checkpoint-opfs-io' })
    try {
      await new Promise((resolve, reject) => {
        worker.onmessage = ({ data }) => {
          if (data?.ready) resolve()
          else reject(fsError(data?.error?.code ?? 'EIO', data?.error?.message ?? 'the OPFS worker failed to start'))
        }
        worker.onerror = (event) => {
          event.preventDefault?.()
          reject(fsError('EIO', `the OPFS worker (${url}) failed to load: ${event.message ?? 'error'}`))
        }
        worker.postMessage({ op: 'init', shared, root: parts, create: options.create !== false })
      })
    } catch (error) {
      worker.terminate()
      throw error
    }
    worker.onmessage = null
    worker.onerror = null
    return new OpfsFs(constructing, worker, shared, { ...options, timeoutMs })
  }

  /** Stops the helper worker; every later call throws `EBADF`. */
  close() {
    if (this.#closed) return
    this.#closed = fsError('EBADF', 'this OpfsFs is closed')
    this.#worker.terminate()
  }

  /** One request to the helper worker, answered through the shared buffer. */
  #call(request) {
    if (this.#closed) throw this.#closed
    const control = this.#control
    Atomics.store(control, 0, 0)
    this.#worker.postMessage(request)
    const parts = []
    let kind
    for (;;) {
      if (Atomics.wait(control, 0, 0, this.#timeoutMs) === 'timed-out') {
        const error = fsError('ETIMEDOUT', `OPFS did not answer ${request.op} ${request.path ?? ''} within ${this.#timeoutMs} ms`, request.path)
        this.close()
        this.#closed = error
        throw error
      }
      kind = Atomics.load(control, 1)
      parts.push(this.#data.slice(0, Atomics.load(control, 2)))
      if (Atomics.load(control, 3) === 0) break
      Atomics.store(control, 0, 0)
      this.#worker.postMessage({ op: 'more' })
    }
    const bytes = concat(parts)
    switch (kind) {
      case OK_BYTES:
        return bytes
      case OK_JSON:
        return JSON.parse(decoder.decode(bytes))
      case OK_TREE:
        return readTree(bytes)
      default: {
        const { code, message } = JSON.parse(decoder.decode(bytes))
        throw fsError(code, message, request.path)
      }
    }
  }

  #checkMode(path, mode) {
    const bits = (mode ?? FILE_MODE) & 0o7777
    if (bits !== FILE_MODE && !this.#ignoreModes) {
      throw fsError(
        'EPERM',
        `OPFS has no permission bits: ${path} cannot have mode 0${bits.toString(8)}; nothing written ` +
          '(open with { ignoreModes: true } to write it as a plain OPFS file)',
        path,
      )
    }
  }

  /** The absolute spelling of the root given to `open`, or `null`. */
  get absolutePath() {
    return this.#absolutePath
  }

  /** `{kind: "file", size, mode: 0o644, mtimeMs}`, `{kind: "dir"}` or `{kind: "none"}`. */
  stat(path) {
    return this.#call({ op: 'stat', path })
  }

  /** The bytes of the file at `path`, or `null` when nothing is there. */
  readFile(path) {
    return this.#call({ op: 'readFile', path })
  }

  /** The names in the directory `path` (`""` is the root). */
  readDir(path) {
    return this.#call({ op: 'readDir', path })
  }

  /**
   * Replaces the file at `path` with `data`: written to a temp file in the
   * same directory through a `FileSystemSyncAccessHandle` (flushed when
   * `durable`), then moved over `path`. A `mode` other than 0o644 throws
   * `EPERM` and writes nothing (unless opened with `ignoreModes`).
   */
  writeFile(path, data, mode = FILE_MODE, durable = true) {
    this.#checkMode(path, mode)
    if (!(data instanceof Uint8Array)) throw new TypeError('data must be a Uint8Array')
    this.#call({ op: 'writeFile', path, data, durable: durable !== false })
  }

  /** Removes the file at `path` (never a directory). */
  removeFile(path) {
    this.#call({ op: 'removeFile', path })
  }

  /** Creates one directory (its parent exists); `EEXIST` when something is there. */
  mkdir(path) {
    this.#call({ op: 'mkdir', path })
  }

  /** Removes one empty directory; `ENOTEMPTY` otherwise. */
  rmdir(path) {
    this.#call({ op: 'rmdir', path })
  }

  /** OPFS has no symlinks: always throws `EINVAL`. */
  readLink(path) {
    throw fsError('EINVAL', `OPFS has no symlinks: ${path} is not one`, path)
  }

  /** OPFS cannot hold symlinks: always throws `EPERM`, and nothing changes. */
  writeLink(path, target) {
    throw fsError('EPERM', `OPFS cannot hold symlinks: ${path} -> ${target} not written`, path)
  }

  /** Nothing to do: OPFS commits directory changes itself. */
  syncDir(_path) {}

  // --- helpers, as MemoryFs has them ---

  /** Writes a file (string contents are UTF-8), creating parent directories. */
  putFile(path, contents, mode = FILE_MODE) {
    this.#checkMode(path, mode)
    const data = typeof contents === 'string' ? encoder.encode(contents) : contents
    if (!(data instanceof Uint8Array)) throw new TypeError('contents must be a string or a Uint8Array')
    this.#call({ op: 'putFile', path, data })
  }

  /** Creates a directory and its parents (nothing happens when it exists). */
  putDir(path) {
    this.#call({ op: 'putDir', path })
  }

  /** OPFS cannot hold symlinks: always throws `EPERM`. */
  putLink(path, target) {
    this.writeLink(path, target)
  }

  /** The bytes of the file at `path`, or `null` if no file is there. */
  getFile(path) {
    return this.stat(path).kind === 'file' ? this.readFile(path) : null
  }

  /** The file at `path` as UTF-8 text (lossy), or `null` if no file is there. */
  getText(path) {
    const bytes = this.getFile(path)
    return bytes === null ? null : decoder.decode(bytes)
  }

  /** Every file and directory below the root, sorted by path (files with `data` and `mode`). */
  entries() {
    return this.#call({ op: 'entries' })
  }
}

/** An `entries` answer: u32 length of a JSON list, the list, then the file bytes. */
function readTree(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const length = view.getUint32(0, true)
  const list = JSON.parse(decoder.decode(bytes.subarray(4, 4 + length)))
  const blob = bytes.subarray(4 + length)
  return list.map(({ path, kind, offset, size }) =>
    kind === 'file' ? { path, kind, data: blob.slice(offset, offset + size), mode: FILE_MODE } : { path, kind },
  )
}
