// The dedicated worker of opfs-host.html: the package's web build over
// OpfsFs, one OPFS directory per root (`vectors/<n>`). It serves the shared
// vector runner's FsRoot contract (tests/js/targets/wasm-opfs.mjs) and the
// browser tests. Everything, the setup of a case's tree included, goes
// through OpfsFs's methods: what OPFS cannot hold fails there, with a code.

import init, * as wasm from '../../pkg/web/agent_checkpoint_wasm.js'
import { OpfsFs } from '../../pkg/web/opfs.js'

const encoder = new TextEncoder()
const roots = new Map()
let nextRoot = 0

function toBase64(bytes) {
  let text = ''
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(text)
}

const fromBase64 = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
const bytesOf = (node) => ('text' in node ? encoder.encode(node.text) : fromBase64(node.b64))
const cannot = (what) => Object.assign(new Error(`OPFS cannot hold ${what}`), { code: 'EPERM' })

/** Creates every missing parent of `path` through the CheckpointFs methods. */
function ensureParents(fs, path) {
  const parts = path.split('/')
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/')
    if (fs.stat(dir).kind === 'none') fs.mkdir(dir)
  }
}

/** One vector mutate step, through the CheckpointFs methods (as tests/js/targets/wasm.mjs does). */
function mutate(fs, step) {
  if ('write' in step) {
    ensureParents(fs, step.write)
    fs.writeFile(step.write, bytesOf(step), step.mode ?? 0o644, false)
  } else if ('delete' in step) fs.removeFile(step.delete)
  else if ('rmdir' in step) fs.rmdir(step.rmdir)
  else if ('mkdir' in step) {
    ensureParents(fs, step.mkdir)
    fs.mkdir(step.mkdir)
  } else if ('symlink' in step) {
    ensureParents(fs, step.symlink)
    fs.writeLink(step.symlink, step.target)
  } else throw new Error(`unknown mutation ${JSON.stringify(step)}`)
}

function readTree(fs) {
  const out = Object.create(null) // a path may be named __proto__
  for (const e of fs.entries()) out[e.path] = e.kind === 'dir' ? { dir: true } : { b64: toBase64(e.data), mode: e.mode }
  return out
}

async function newRoot(tree, options = {}) {
  const id = nextRoot++
  const absPath = `/opfs/vectors/${id}`
  const fs = await OpfsFs.open(`vectors/${id}`, { absolutePath: absPath, ...options })
  roots.set(id, fs)
  try {
    for (const [path, node] of Object.entries(tree)) {
      if ('link' in node) fs.putLink(path, node.link)
      else if ('special' in node) throw cannot(`a special file (${path})`)
      else if ('dir' in node) fs.putDir(path)
      else fs.putFile(path, bytesOf(node), node.mode ?? 0o644)
    }
  } catch (error) {
    await dispose(id)
    throw error
  }
  return { id, absPath }
}

async function dispose(id) {
  roots.get(id)?.close()
  roots.delete(id)
  const vectors = await (await navigator.storage.getDirectory()).getDirectoryHandle('vectors')
  await vectors.removeEntry(String(id), { recursive: true })
}

const fsOf = (id) => {
  const fs = roots.get(id)
  if (!fs) throw new Error(`no root ${id}`)
  return fs
}

const ops = {
  newRoot,
  dispose,
  capture: (id, paths, options) => {
    const snapshot = wasm.createCheckpoint(fsOf(id), paths, options)
    return { snapshot, paths: wasm.snapshotPaths(snapshot) }
  },
  rollback: (id, text, options) => wasm.rollback(fsOf(id), text, options),
  plan: (id, text, options) => wasm.planRollback(fsOf(id), text, options),
  recordApplied: (id, text, options) => wasm.recordApplied(fsOf(id), text, options),
  readTree: (id) => readTree(fsOf(id)),
  mutate: (id, step) => mutate(fsOf(id), step),
  /** Any CheckpointFs or helper method of a root's OpfsFs (strings for bytes are UTF-8). */
  fs: (id, method, args) => {
    const result = fsOf(id)[method](...args.map((a) => (a && typeof a === 'object' && 'b64' in a ? fromBase64(a.b64) : a)))
    return result instanceof Uint8Array ? { b64: toBase64(result) } : result
  },
  /** The names in an OPFS directory given by path from the OPFS root (to see what lies outside a root). */
  listOpfs: async (path) => {
    let dir = await navigator.storage.getDirectory()
    for (const name of path.split('/').filter(Boolean)) dir = await dir.getDirectoryHandle(name)
    const names = []
    for await (const name of dir.keys()) names.push(name)
    return names.sort()
  },
  /** `OpfsFs.open` with these arguments: what it rejects with, or `null` when it opens. */
  tryOpen: async (root, options) => {
    try {
      ;(await OpfsFs.open(root, options)).close()
      return null
    } catch (error) {
      return { name: error?.name, code: error?.code ?? null, message: String(error?.message ?? error) }
    }
  },
  /** A pure function of the package. */
  api: (name, args) => wasm[name](...args),
}

try {
  await init()
  self.postMessage({ ready: true, crossOriginIsolated: self.crossOriginIsolated })
} catch (error) {
  self.postMessage({ ready: false, error: { message: String(error?.message ?? error) } })
}

// Arguments and results cross as JSON text (bigints tagged): a structured
// clone or puppeteer's serialisation would turn a key named `__proto__` into
// a prototype and lose the path.
const toJson = (value) => JSON.stringify(value ?? null, (_, v) => (typeof v === 'bigint' ? { $bigint: String(v) } : v))
const fromJson = (text) => JSON.parse(text, (_, v) => (v && typeof v === 'object' && '$bigint' in v ? BigInt(v.$bigint) : v))

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    self.postMessage({ id, result: toJson(await ops[op](...fromJson(args))) })
  } catch (error) {
    const code = typeof error?.code === 'string' ? error.code : undefined
    self.postMessage({ id, error: { code, name: error?.name, message: String(error?.message ?? error), path: error?.path } })
  }
}
