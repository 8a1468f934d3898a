// Target `wasm-opfs`: the wasm-bindgen package's web build (bindings-wasm/pkg/web,
// built by scripts/wasm) over OpfsFs, the Origin Private File System, in a
// dedicated Worker of a real headless Chromium (Debian's `chromium`, driven by
// puppeteer-core; bindings-wasm/tests/browser/harness.mjs). Every FsRoot call
// and every pure function runs in that worker (bindings-wasm/tests/browser/
// opfs-host-worker.js); this file only carries calls and results across, and
// the runner compares them as for every other target. Contract: ../README.md.
//
// No Chromium is a failure of the whole file (the harness says how to
// install one), never a pass.

import { after } from 'node:test'
import { openBrowser, openOpfsHost } from '../../../bindings-wasm/tests/browser/harness.mjs'

export const name = 'wasm-opfs'

/** Redaction touches no filesystem: `TARGET=wasm` plays redact.json on the same wasm. */
export const skips = {
  redact: 'no filesystem in redaction; TARGET=wasm plays redact.json on the same wasm under Node',
}

const session = await openBrowser()
after(() => session.close())
const { call } = await openOpfsHost(session)

/** Paths of the snapshots captured in the browser: the runner calls `snapshotPaths` synchronously on them. */
const capturedPaths = new Map()

const pure = (fn) => (...args) => call('api', fn, args)

export const api = {
  checkpointIdKind: pure('checkpointIdKind'),
  validateCheckpointId: pure('validateCheckpointId'),
  shardFor: pure('shardFor'),
  checkpointPath: pure('checkpointPath'),
  displayShort: pure('displayShort'),
  ulidTimestampMs: pure('ulidTimestampMs'),
  refName: pure('refName'),
  parseRef: pure('parseRef'),
  shadowBranchName: pure('shadowBranchName'),
  parseShadowBranchName: pure('parseShadowBranchName'),
  hashWorktreeId: pure('hashWorktreeId'),
  isShadowBranch: pure('isShadowBranch'),
  splitPrompts: pure('splitPrompts'),
  joinPrompts: pure('joinPrompts'),
  // The browser's answer, kept when it captured the snapshot; else asked for.
  snapshotPaths: (text) => capturedPaths.get(text) ?? call('api', 'snapshotPaths', [text]),
  inspectSnapshot: pure('inspectSnapshot'),
}

/** A fresh OPFS directory holding `tree` (a mode other than 0o644, a link or a special file fails). */
export async function newRoot(tree) {
  const { id, absPath } = await call('newRoot', tree)
  return {
    absPath,
    capture: async (paths, options) => {
      const { snapshot, paths: captured } = await call('capture', id, paths, options)
      capturedPaths.set(snapshot, captured)
      return snapshot
    },
    rollback: (text, options) => call('rollback', id, text, options),
    plan: (text, options) => call('plan', id, text, options),
    recordApplied: (text, options) => call('recordApplied', id, text, options),
    readTree: () => call('readTree', id),
    mutate: (step) => call('mutate', id, step),
    dispose: () => call('dispose', id),
  }
}
