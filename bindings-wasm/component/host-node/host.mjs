// Embeds the agent-checkpoint WASI component in Node: `jco transpile` output
// (./gen, made by scripts/component) on @bytecodealliance/preview2-shim.
//
//   import { loadComponent } from './host.mjs'
//   const checkpoint = await loadComponent({ '/project': '/home/me/project' })
//   const snapshot = checkpoint.createCheckpoint('/project', ['src/a.py'], { allowGitDir: false })
//
// The shim starts with no preopens: they are set here, once, before the
// component is first loaded (wasi-libc reads them on first use). Errors of the
// component's `result`s are thrown by jco as `ComponentError` with the WIT
// record in `.payload`; `call` turns them into `Error`s with a snake_case `.code`.

import { _setPreopens, types } from '@bytecodealliance/preview2-shim/filesystem'

// The shim's Node `openAt` rejects `mutateDirectory`, which Rust's std sets on
// every open for writing; it only means something for directories, so drop it
// for every other open.
const openAt = types.Descriptor.prototype.openAt
types.Descriptor.prototype.openAt = function (pathFlags, path, openFlags, descriptorFlags) {
  if (!openFlags.directory && descriptorFlags.mutateDirectory) {
    descriptorFlags = { ...descriptorFlags, mutateDirectory: false }
  }
  return openAt.call(this, pathFlags, path, openFlags, descriptorFlags)
}

let loaded = null

/**
 * The transpiled component with `preopens` ({guestPath: hostPath}) in place.
 * Preopens can be set only once per process: a second call with other
 * preopens throws.
 */
export async function loadComponent(preopens) {
  const key = JSON.stringify(preopens)
  if (loaded === null) {
    _setPreopens(preopens)
    loaded = { key, module: await import('./gen/checkpoint.js') }
  } else if (loaded.key !== key) {
    throw new Error(`preopens already set to ${loaded.key}`)
  }
  return loaded.module
}

/** The snake_case code of a WIT `error-code` (`path-escapes-root` -> `path_escapes_root`). */
export const snakeCode = (code) => code.replaceAll('-', '_')

/** Calls `fn`; a WIT error comes back as an `Error` with `.code` (snake_case), `.witCode` and `.path`. */
export function call(fn, ...args) {
  try {
    return fn(...args)
  } catch (e) {
    const payload = e?.payload
    if (payload && typeof payload.code === 'string') {
      const error = new Error(payload.message)
      error.code = snakeCode(payload.code)
      error.witCode = payload.code
      if (payload.path !== undefined) error.path = payload.path
      throw error
    }
    throw e
  }
}
