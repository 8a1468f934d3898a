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

/** Vector groups this target cannot run, with the reason the runner reports. */
export const skips = {
  redact: 'the WASI component has no redaction (the agent:checkpoint WIT world does not export it)',
}

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
  shadowBranchName: (commit, worktree = '') => call(c.shadowBranchName, commit, worktree),
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

const bigint = (n) => (n === undefined ? undefined : BigInt(n))

function capture(root, paths, options) {
  known(options, ['allowGitDir', 'maxFileBytes', 'key', 'recordRoot'])
  return call(c.createCheckpoint, root, paths, {
    allowGitDir: options.allowGitDir ?? false,
    maxFileBytes: bigint(options.maxFileBytes),
    key: keyBytes(options.key),
    recordRoot: options.recordRoot ?? true,
  })
}

/** A WIT hunk in the JS packages' shape. */
const hunk = (h) => ({
  oldStart: h.oldStart,
  oldLines: h.oldLines,
  newStart: h.newStart,
  newLines: h.newLines,
  lines: h.lines.map((l) => ({ kind: l.kind, text: l.text, oldLine: l.oldLine, newLine: l.newLine })),
})

/** A WIT plan item in the JS packages' shape. */
const planItem = (i) => ({
  path: i.path,
  action: i.action,
  conflict: i.conflict,
  code: i.code === undefined ? null : snakeCode(i.code),
  reason: orNull(i.reason),
  diff: i.diff === undefined ? null : (i.diff.text ?? i.diff.summary),
  diffSummary: i.diff === undefined ? null : i.diff.summary,
  hunks: i.diff === undefined ? [] : i.diff.hunks.map(hunk),
})

/** A WIT path-problem in the JS packages' shape. */
const problem = (p) => ({ path: p.path, code: snakeCode(p.code), reason: p.reason })

function rollback(root, text, options) {
  known(options, ['durable', 'allowGitDir', 'onConflict', 'key', 'redo', 'restoreSetid', 'strictRoot', 'maxFileBytes'])
  const r = call(c.rollback, root, text, {
    durable: options.durable ?? true,
    allowGitDir: options.allowGitDir ?? false,
    onConflict: options.onConflict ?? 'overwrite',
    key: keyBytes(options.key),
    redo: options.redo ?? true,
    restoreSetid: options.restoreSetid ?? false,
    strictRoot: options.strictRoot ?? false,
    maxFileBytes: bigint(options.maxFileBytes),
  })
  return {
    restored: r.restored,
    unrestored: r.unrestored.map(problem),
    conflicts: r.conflicts,
    valid: r.valid,
    ok: r.ok,
    errorCode: r.error ? snakeCode(r.error.code) : null,
    error: r.error ? r.error.message : null,
    plan: r.plan.map(planItem),
    redo: orNull(r.redo),
    notInRedo: r.notInRedo.map(problem),
    // u64 sizes arrive as BigInt: exact as a JS number below 2^53.
    notCovered: r.notCovered.map((n) => ({ path: n.path, size: Number(n.size), code: snakeCode(n.code) })),
    otherRoot: orNull(r.otherRoot),
  }
}

/** `plan-rollback` with the options it takes. */
function plan(root, text, options) {
  known(options, ['allowGitDir', 'onConflict', 'key', 'restoreSetid', 'strictRoot', 'diff', 'diffContext', 'diffMaxBytes'])
  return call(c.planRollback, root, text, {
    allowGitDir: options.allowGitDir ?? false,
    onConflict: options.onConflict ?? 'overwrite',
    key: keyBytes(options.key),
    restoreSetid: options.restoreSetid ?? false,
    strictRoot: options.strictRoot ?? false,
    diff: options.diff ? { context: options.diffContext ?? 3, maxBytes: BigInt(options.diffMaxBytes ?? 1048576) } : undefined,
  }).map(planItem)
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
