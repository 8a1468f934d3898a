// Target `node`: the napi-rs package in bindings-node (built with `npm run build`),
// on a real temp directory. Contract: ../README.md.

import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const binding = createRequire(import.meta.url)('../../../bindings-node')

export const name = 'node'

export const api = {
  checkpointIdKind: binding.checkpointIdKind,
  validateCheckpointId: binding.validateCheckpointId,
  shardFor: binding.shardFor,
  checkpointPath: binding.checkpointPath,
  displayShort: binding.displayShort,
  ulidTimestampMs: binding.ulidTimestampMs,
  refName: binding.refName,
  parseRef: binding.parseRef,
  shadowBranchName: binding.shadowBranchName,
  parseShadowBranchName: binding.parseShadowBranchName,
  hashWorktreeId: binding.hashWorktreeId,
  isShadowBranch: binding.isShadowBranch,
  splitPrompts: binding.splitPrompts,
  joinPrompts: binding.joinPrompts,
  snapshotPaths: binding.snapshotPaths,
  inspectSnapshot: binding.inspectSnapshot,
  redactText: binding.redactText,
  redactJson: binding.redactJson,
  redactBlob: binding.redactBlob,
  Redactor: binding.Redactor,
}

/** The vectors' `{text|b64, mode}` node as bytes. */
function bytesOf(node) {
  return 'text' in node ? Buffer.from(node.text, 'utf8') : Buffer.from(node.b64, 'base64')
}

/** Creates `node` at `full`, parents included. */
function writeNode(full, node) {
  fs.mkdirSync(path.dirname(full), { recursive: true })
  if ('link' in node) fs.symlinkSync(node.link, full)
  else if ('dir' in node) fs.mkdirSync(full, { recursive: true })
  else if ('special' in node) execFileSync('mkfifo', [full])
  else {
    fs.writeFileSync(full, bytesOf(node))
    fs.chmodSync(full, node.mode ?? 0o644)
  }
}

/** The whole tree under `dir`, never following links. */
function readTree(dir, prefix = '', out = Object.create(null)) {
  for (const entry of fs.readdirSync(dir)) {
    const full = path.join(dir, entry)
    const rel = prefix ? `${prefix}/${entry}` : entry
    const st = fs.lstatSync(full)
    if (st.isSymbolicLink()) out[rel] = { link: fs.readlinkSync(full) }
    else if (st.isDirectory()) {
      out[rel] = { dir: true }
      readTree(full, rel, out)
    } else if (st.isFile()) out[rel] = { b64: fs.readFileSync(full).toString('base64'), mode: st.mode & 0o7777 }
    else out[rel] = { special: true }
  }
  return out
}

const exists = (p) => {
  try {
    return fs.lstatSync(p)
  } catch {
    return null
  }
}

/** Applies one vector mutate step, as the Rust runner does through its Root. */
function mutate(root, step) {
  const at = (key) => path.join(root, step[key])
  if ('write' in step) {
    const p = at('write')
    fs.mkdirSync(path.dirname(p), { recursive: true })
    // Like Root::write_file: replace a link, never write through it.
    if (exists(p)?.isSymbolicLink()) fs.unlinkSync(p)
    fs.writeFileSync(p, bytesOf(step))
    fs.chmodSync(p, step.mode ?? 0o644)
  } else if ('delete' in step) fs.unlinkSync(at('delete'))
  else if ('rmdir' in step) fs.rmdirSync(at('rmdir'))
  else if ('mkdir' in step) {
    const p = at('mkdir')
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.mkdirSync(p)
  } else if ('symlink' in step) {
    const p = at('symlink')
    fs.mkdirSync(path.dirname(p), { recursive: true })
    const st = exists(p)
    if (st && !st.isDirectory()) fs.unlinkSync(p)
    fs.symlinkSync(step.target, p)
  } else throw new Error(`unknown mutation ${JSON.stringify(step)}`)
}

/** A fresh temp directory `<tmp>/root` holding `tree`. */
export async function newRoot(tree) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-checkpoint-node-'))
  const dir = path.join(tmp, 'root')
  fs.mkdirSync(dir)
  for (const [rel, node] of Object.entries(tree)) writeNode(path.join(dir, rel), node)
  return makeRoot(dir, tmp, {
    capture: (paths, options) => binding.createCheckpoint(dir, paths, options),
    rollback: (text, options) => binding.rollback(dir, text, options),
    plan: (text, options) => binding.planRollback(dir, text, options),
    recordApplied: (text, options) => binding.recordApplied(dir, text, options),
  })
}

/** The FsRoot of `dir` with the given package calls (shared by node-async). */
export function makeRoot(dir, tmp, { capture, rollback, plan, recordApplied }) {
  return {
    absPath: dir,
    canonicalPath: fs.realpathSync(dir),
    capture,
    rollback,
    plan,
    recordApplied,
    readTree: () => readTree(dir),
    mutate: (step) => mutate(dir, step),
    dispose: () => fs.rmSync(tmp, { recursive: true, force: true }),
  }
}
