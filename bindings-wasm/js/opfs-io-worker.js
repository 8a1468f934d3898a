// The helper worker of OpfsFs (opfs.js): does each filesystem call on the
// Origin Private File System asynchronously and writes the answer into the
// shared buffer the calling worker waits on with Atomics.wait.
//
// Every path is resolved by name from the root directory handle, one
// component at a time; OPFS itself refuses "." and ".." as names, and this
// file refuses them (and empty components) before asking, so nothing outside
// the root is ever reached. Requests are handled one at a time, in order.

const OK_JSON = 0
const OK_BYTES = 1
const FAILED = 2
const OK_TREE = 3
const CONTROL_BYTES = 16

const encoder = new TextEncoder()

let root = null
let control = null
let data = null
/** The answer being sent in chunks: { kind, bytes, offset }. */
let answer = null
let queue = Promise.resolve()

self.onmessage = ({ data: request }) => {
  queue = queue.then(() => handle(request))
}

async function handle(request) {
  if (request.op === 'init') return init(request)
  if (request.op === 'more') return sendChunk()
  let kind
  let bytes
  try {
    ;[kind, bytes] = await run(request)
  } catch (error) {
    ;[kind, bytes] = [FAILED, encoder.encode(JSON.stringify(errnoOf(error)))]
  }
  answer = { kind, bytes, offset: 0 }
  sendChunk()
}

async function init({ shared, root: parts, create }) {
  try {
    if (typeof FileSystemFileHandle?.prototype?.createSyncAccessHandle !== 'function') {
      throw errno('ENOSYS', 'this browser has no FileSystemSyncAccessHandle in workers')
    }
    if (typeof FileSystemFileHandle?.prototype?.move !== 'function') {
      throw errno('ENOSYS', 'this browser has no FileSystemFileHandle.move() (needed to replace files atomically)')
    }
    let dir = Array.isArray(parts) ? await navigator.storage.getDirectory() : parts
    for (const name of Array.isArray(parts) ? parts : []) dir = await childDir(dir, name, create)
    root = dir
    control = new Int32Array(shared, 0, CONTROL_BYTES / 4)
    data = new Uint8Array(shared, CONTROL_BYTES)
    self.postMessage({ ready: true })
  } catch (error) {
    self.postMessage({ error: errnoOf(error) })
  }
}

/** Copies the next chunk of `answer` into the shared buffer and wakes the caller. */
function sendChunk() {
  const { kind, bytes, offset } = answer
  const n = Math.min(bytes.length - offset, data.length)
  data.set(bytes.subarray(offset, offset + n))
  answer.offset += n
  Atomics.store(control, 1, kind)
  Atomics.store(control, 2, n)
  Atomics.store(control, 3, answer.offset < bytes.length ? 1 : 0)
  Atomics.store(control, 0, 1)
  Atomics.notify(control, 0)
}

const json = (value) => [OK_JSON, encoder.encode(JSON.stringify(value))]

async function run(request) {
  const { op, path } = request
  switch (op) {
    case 'stat':
      return json(await stat(path))
    case 'readFile': {
      const entry = await lookup(path)
      if (entry === null) return json(null)
      if (entry.kind !== 'file') throw errno('EISDIR', `is a directory: ${path}`)
      return [OK_BYTES, new Uint8Array(await (await entry.handle.getFile()).arrayBuffer())]
    }
    case 'readDir': {
      const names = []
      for await (const name of (await dirAt(components(path))).keys()) names.push(name)
      return json(names)
    }
    case 'writeFile':
      await writeFile(path, request.data, request.durable)
      return json(null)
    case 'removeFile': {
      const { parent, name } = await parentOf(path)
      const entry = await child(parent, name)
      if (entry === null) throw errno('ENOENT', `no such file: ${path}`)
      if (entry.kind !== 'file') throw errno('EISDIR', `is a directory: ${path}`)
      await parent.removeEntry(name)
      return json(null)
    }
    case 'mkdir': {
      const { parent, name } = await parentOf(path)
      if ((await child(parent, name)) !== null) throw errno('EEXIST', `exists: ${path}`)
      await parent.getDirectoryHandle(name, { create: true })
      return json(null)
    }
    case 'rmdir': {
      const { parent, name } = await parentOf(path)
      const entry = await child(parent, name)
      if (entry === null) throw errno('ENOENT', `no such directory: ${path}`)
      if (entry.kind !== 'dir') throw errno('ENOTDIR', `not a directory: ${path}`)
      try {
        await parent.removeEntry(name)
      } catch (error) {
        if (error?.name === 'InvalidModificationError') throw errno('ENOTEMPTY', `directory not empty: ${path}`)
        throw error
      }
      return json(null)
    }
    case 'putDir':
      await dirAt(components(path), true)
      return json(null)
    case 'putFile': {
      const parts = components(path)
      await dirAt(parts.slice(0, -1), true)
      await writeFile(path, request.data, false)
      return json(null)
    }
    case 'entries':
      return [OK_TREE, await entries()]
    default:
      throw errno('EINVAL', `unknown request ${op}`)
  }
}

/** The components of a canonical relative path; `""` is the root. */
function components(path) {
  if (typeof path !== 'string') throw errno('EINVAL', 'a path must be a string')
  if (path === '') return []
  const parts = path.split('/')
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..') throw errno('EINVAL', `not a canonical relative path: ${JSON.stringify(path)}`)
  }
  return parts
}

/** The directory `name` in `dir` (created when `create`); Node-style errors. */
async function childDir(dir, name, create = false) {
  try {
    return await dir.getDirectoryHandle(name, { create })
  } catch (error) {
    if (error?.name === 'TypeMismatchError') throw errno('ENOTDIR', `not a directory: ${name}`)
    throw error
  }
}

async function dirAt(parts, create = false) {
  let dir = root
  for (const name of parts) dir = await childDir(dir, name, create)
  return dir
}

async function parentOf(path) {
  const parts = components(path)
  if (parts.length === 0) throw errno('EINVAL', 'the root itself cannot be replaced or removed')
  return { parent: await dirAt(parts.slice(0, -1)), name: parts[parts.length - 1] }
}

/** What `name` is in `dir`: `{kind: "file"|"dir", handle}` or `null`. */
async function child(dir, name) {
  try {
    return { kind: 'file', handle: await dir.getFileHandle(name) }
  } catch (error) {
    if (error?.name === 'NotFoundError') return null
    if (error?.name !== 'TypeMismatchError') throw error
  }
  return { kind: 'dir', handle: await dir.getDirectoryHandle(name) }
}

/** The entry at `path`, or `null` when it (or a parent) is missing or a parent is a file. */
async function lookup(path) {
  const parts = components(path)
  if (parts.length === 0) return { kind: 'dir', handle: root }
  let parent
  try {
    parent = await dirAt(parts.slice(0, -1))
  } catch (error) {
    const { code } = errnoOf(error)
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    throw error
  }
  return child(parent, parts[parts.length - 1])
}

async function stat(path) {
  const entry = await lookup(path)
  if (entry === null) return { kind: 'none' }
  if (entry.kind === 'dir') return { kind: 'dir' }
  const file = await entry.handle.getFile()
  return { kind: 'file', size: file.size, mode: 0o644, mtimeMs: file.lastModified }
}

/** A temp name in the target's directory, never one a user would pick. */
function tempName() {
  const random = crypto.getRandomValues(new Uint8Array(8))
  return `.ckpt-opfs-${Array.from(random, (b) => b.toString(16).padStart(2, '0')).join('')}.tmp`
}

/**
 * Writes `bytes` to a temp file beside `path` through a sync access handle
 * (flushed when `durable`), then moves it over `path`: readers see the old
 * file or the new one, never a part. The temp goes away on any failure.
 */
async function writeFile(path, bytes, durable) {
  const { parent, name } = await parentOf(path)
  const existing = await child(parent, name)
  if (existing?.kind === 'dir') throw errno('EISDIR', `is a directory: ${path}`)
  const temp = tempName()
  const handle = await parent.getFileHandle(temp, { create: true })
  try {
    const access = await handle.createSyncAccessHandle()
    try {
      let written = 0
      while (written < bytes.length) {
        const n = access.write(bytes.subarray(written), { at: written })
        if (!(n > 0)) throw errno('EIO', `short write to ${path}`)
        written += n
      }
      if (durable) access.flush()
    } finally {
      access.close()
    }
    await handle.move(parent, name)
  } catch (error) {
    await parent.removeEntry(temp).catch(() => {})
    throw error
  }
}

/** Every entry below the root: u32 length, a JSON list {path, kind, offset?, size?}, the bytes. */
async function entries() {
  const list = []
  const blobs = []
  let offset = 0
  async function walk(dir, prefix) {
    for await (const [name, handle] of dir.entries()) {
      const path = prefix === '' ? name : `${prefix}/${name}`
      if (handle.kind === 'directory') {
        list.push({ path, kind: 'dir' })
        await walk(handle, path)
      } else {
        const bytes = new Uint8Array(await (await handle.getFile()).arrayBuffer())
        list.push({ path, kind: 'file', offset, size: bytes.length })
        blobs.push(bytes)
        offset += bytes.length
      }
    }
  }
  await walk(root, '')
  list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const head = encoder.encode(JSON.stringify(list))
  const out = new Uint8Array(4 + head.length + offset)
  new DataView(out.buffer).setUint32(0, head.length, true)
  out.set(head, 4)
  let at = 4 + head.length
  for (const blob of blobs) {
    out.set(blob, at)
    at += blob.length
  }
  return out
}

/** An error with a Node-style code. */
function errno(code, message) {
  return Object.assign(new Error(message), { code })
}

/** Any thrown value as `{code, message}`: DOMException names become Node-style codes. */
function errnoOf(error) {
  if (typeof error?.code === 'string' && /^E[A-Z]+$/.test(error.code)) return { code: error.code, message: error.message }
  const codes = {
    NotFoundError: 'ENOENT',
    TypeMismatchError: 'ENOTDIR',
    InvalidModificationError: 'ENOTEMPTY',
    NoModificationAllowedError: 'EBUSY',
    QuotaExceededError: 'ENOSPC',
    NotAllowedError: 'EACCES',
    SecurityError: 'EACCES',
    TypeError: 'EINVAL',
  }
  const name = error?.name ?? 'Error'
  return { code: codes[name] ?? 'EIO', message: `${name}: ${error?.message ?? String(error)}` }
}
