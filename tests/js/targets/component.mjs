// Target `component-node`: the WASI component (bindings-wasm/component) run by
// jco + @bytecodealliance/preview2-shim (built by scripts/component). One
// preopen, `/sandbox`, for the whole run; each root is a fresh directory below
// it, `/sandbox/case-N`. Contract: ../README.md.

import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

import { call, loadComponent, snakeCode } from '../../../bindings-wasm/component/host-node/host.mjs'
import { mutate, readTree, writeTree } from '../../../bindings-wasm/component/host-node/tree.mjs'

export const name = 'component-node'

const GUEST = '/sandbox'
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-checkpoint-component-'))
process.on('exit', () => fs.rmSync(base, { recursive: true, force: true }))
const c = await loadComponent({ [GUEST]: base })

const orNull = (v) => (v === undefined ? null : v)
const number = (v) => (v === undefined ? null : Number(v))

export const api = {
  checkpointIdKind: (id) => c.checkpointIdKind(id),
  validateCheckpointId: (id) => call(c.validateCheckpointId, id),
  shardFor: (id) => c.shardFor(id),
  checkpointPath: (id) => c.checkpointPath(id),
  displayShort: (id) => c.displayShort(id),
  ulidTimestampMs: (id) => number(c.ulidTimestampMs(id)),
  refName: (id) => call(c.refName, id),
  parseRef: (name) => orNull(c.parseRef(name)),
  shadowBranchName: (commit, worktree = '') => c.shadowBranchName(commit, worktree),
  parseShadowBranchName: (name) => orNull(c.parseShadowBranchName(name)),
  hashWorktreeId: (id) => c.hashWorktreeId(id),
  isShadowBranch: (name) => c.isShadowBranch(name),
  splitPrompts: (content) => c.splitPrompts(content),
  joinPrompts: (prompts) => c.joinPrompts(prompts),
  snapshotPaths: (text) => c.snapshotPaths(text),
  inspectSnapshot: (text) =>
    call(c.inspectSnapshot, text).map((i) => ({
      path: i.path,
      kind: i.kind,
      size: number(i.size),
      mode: orNull(i.mode),
      linkTarget: orNull(i.linkTarget),
      digest: orNull(i.digest),
    })),
}

// A sealing key as the vectors give it (a string) is its UTF-8 bytes: WIT
// `option<list<u8>>`, a Uint8Array under jco (`undefined` for none).
const keyBytes = (key) => (key === undefined ? undefined : new TextEncoder().encode(key))

/** `options`, after checking it names no option the WIT record lacks (never drop one silently). */
function known(options, names) {
  for (const key of Object.keys(options)) {
    if (!names.includes(key)) throw new Error(`option ${key} is not in the component's WIT world`)
  }
  return options
}

function capture(root, paths, options) {
  known(options, ['allowGitDir', 'maxFileBytes', 'key'])
  const max = options.maxFileBytes
  return call(c.createCheckpoint, root, paths, {
    allowGitDir: options.allowGitDir ?? false,
    maxFileBytes: max === undefined ? undefined : BigInt(max),
    key: keyBytes(options.key),
  })
}

function rollback(root, text, options) {
  known(options, ['durable', 'allowGitDir', 'onConflict', 'key', 'redo'])
  const r = call(c.rollback, root, text, {
    durable: options.durable ?? true,
    allowGitDir: options.allowGitDir ?? false,
    onConflict: options.onConflict ?? 'overwrite',
    key: keyBytes(options.key),
    redo: options.redo ?? true,
  })
  return {
    restored: r.restored,
    unrestored: r.unrestored.map((u) => u.path),
    conflicts: r.conflicts,
    failures: Object.fromEntries(r.unrestored.map((u) => [u.path, u.reason])),
    valid: r.valid,
    ok: r.ok,
    errorCode: r.error ? snakeCode(r.error.code) : null,
    error: r.error ? r.error.message : null,
    redo: orNull(r.redo),
  }
}

/** `plan-rollback` with the rollback options it takes (`durable` and `redo` change nothing in a plan). */
function plan(root, text, options) {
  return call(c.planRollback, root, text, {
    allowGitDir: options.allowGitDir ?? false,
    onConflict: options.onConflict ?? 'overwrite',
    key: keyBytes(options.key),
  })
}

function recordApplied(root, text, options) {
  return call(c.recordApplied, root, text, {
    allowGitDir: options.allowGitDir ?? false,
    key: keyBytes(options.key),
  })
}

let count = 0

/** A fresh directory `/sandbox/case-N` holding `tree`, written on the host. */
export async function newRoot(tree) {
  const rel = `case-${++count}`
  const hostDir = path.join(base, rel)
  const guest = `${GUEST}/${rel}`
  fs.mkdirSync(hostDir)
  writeTree(hostDir, tree)
  return {
    absPath: guest,
    capture: (paths, options) => capture(guest, paths, options),
    rollback: (text, options) => rollback(guest, text, options),
    plan: (text, options) => plan(guest, text, options),
    recordApplied: (text, options) => recordApplied(guest, text, options),
    readTree: () => readTree(hostDir),
    mutate: (step) => mutate(hostDir, step),
    dispose: () => fs.rmSync(hostDir, { recursive: true, force: true }),
  }
}
