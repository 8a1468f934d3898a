// Target `wasm`: the wasm-bindgen package (bindings-wasm/pkg/nodejs, built by
// scripts/wasm) over its in-memory `MemoryFs`, which pretends to live at
// /virtual/root. Everything, mutations included, goes through the package's
// `CheckpointFs` interface. Contract: ../README.md.

import { createRequire } from 'node:module'

const wasm = createRequire(import.meta.url)('../../../bindings-wasm/pkg/nodejs/agent_checkpoint_wasm.js')

export const name = 'wasm'

export const api = {
  checkpointIdKind: wasm.checkpointIdKind,
  validateCheckpointId: wasm.validateCheckpointId,
  shardFor: wasm.shardFor,
  checkpointPath: wasm.checkpointPath,
  displayShort: wasm.displayShort,
  ulidTimestampMs: wasm.ulidTimestampMs,
  refName: wasm.refName,
  parseRef: wasm.parseRef,
  shadowBranchName: wasm.shadowBranchName,
  parseShadowBranchName: wasm.parseShadowBranchName,
  hashWorktreeId: wasm.hashWorktreeId,
  isShadowBranch: wasm.isShadowBranch,
  splitPrompts: wasm.splitPrompts,
  joinPrompts: wasm.joinPrompts,
  snapshotPaths: wasm.snapshotPaths,
  inspectSnapshot: wasm.inspectSnapshot,
  redactText: wasm.redactText,
  redactJson: wasm.redactJson,
  redactBlob: wasm.redactBlob,
  Redactor: wasm.Redactor,
}

const ABSOLUTE = '/virtual/root'

const bytesOf = (node) => ('text' in node ? Buffer.from(node.text, 'utf8') : Buffer.from(node.b64, 'base64'))

/** Creates every missing parent of `path` through the fs interface. */
function ensureParents(fs, path) {
  const parts = path.split('/')
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/')
    if (fs.stat(dir).kind === 'none') fs.mkdir(dir)
  }
}

/** One vector mutate step, through the `CheckpointFs` methods (as the Rust runner uses its Root). */
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
  for (const e of fs.entries()) {
    if (e.kind === 'file') out[e.path] = { b64: Buffer.from(e.data).toString('base64'), mode: e.mode }
    else if (e.kind === 'dir') out[e.path] = { dir: true }
    else if (e.kind === 'symlink') out[e.path] = { link: e.target }
    else out[e.path] = { special: true }
  }
  return out
}

/** A fresh `MemoryFs` holding `tree`. */
export async function newRoot(tree) {
  const fs = new wasm.MemoryFs(ABSOLUTE)
  for (const [path, node] of Object.entries(tree)) {
    if ('link' in node) fs.putLink(path, node.link)
    else if ('dir' in node) fs.putDir(path)
    else if ('special' in node) fs.putSpecial(path)
    else fs.putFile(path, bytesOf(node), node.mode ?? 0o644)
  }
  return {
    absPath: ABSOLUTE,
    capture: (paths, options) => wasm.createCheckpoint(fs, paths, options),
    rollback: (text, options) => wasm.rollback(fs, text, options),
    plan: (text, options) => wasm.planRollback(fs, text, options),
    recordApplied: (text, options) => wasm.recordApplied(fs, text, options),
    readTree: () => readTree(fs),
    mutate: (step) => mutate(fs, step),
    dispose: () => fs.free(),
  }
}
