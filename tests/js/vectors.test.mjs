// The shared JS vector runner: plays every case of tests/vectors/*.json
// against one or more JS targets. Contract and usage: tests/js/README.md.
//
//   TARGET=node node --test tests/js/vectors.test.mjs        (default: node)
//   TARGET=node,node-async node --test tests/js/vectors.test.mjs
//
// It is a port of core/tests/fs_vectors.rs, core/tests/naming_vectors.rs and
// redact/tests/vectors.rs: same order of steps, same comparisons. Targets
// return their natural JS shapes; this file converts them to the vectors'
// shapes. Groups of cases a target cannot run (`skips`) and the store's
// vectors are reported as skipped, with the reason, never silently passed.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'

const VECTORS = new URL('../vectors/', import.meta.url)
const TARGETS = (process.env.TARGET || 'node').split(',').map((t) => t.trim()).filter(Boolean)

/**
 * The group of a vector file: the word before the first `_` (`fs`, `naming`,
 * `store`) or the whole name (`redact`). Targets skip cases by group.
 */
const groupOf = (file) => file.replace(/\.json$/, '').split('_')[0]

/** Groups no JS target plays here, and why. */
const RUNNER_SKIPS = {
  store: "git-store vectors (store_*.json) need git: played by the store's own tests",
}

/** Every case of every *.json file, in file then case order; names are unique. */
function loadCases() {
  const files = readdirSync(VECTORS).filter((f) => f.endsWith('.json')).sort()
  assert.ok(files.length > 0, 'no vector files found')
  const names = new Set()
  const cases = []
  for (const file of files) {
    const doc = JSON.parse(readFileSync(new URL(file, VECTORS), 'utf8'))
    assert.ok(Array.isArray(doc.cases), `${file}: no cases array`)
    for (const c of doc.cases) {
      assert.ok(typeof c.name === 'string', `${file}: case without a name`)
      assert.ok(!names.has(c.name), `duplicate case name ${c.name}`)
      names.add(c.name)
      cases.push({ file, ...c })
    }
  }
  return cases
}

/** Case names listed for `target` in expected_failures.txt. */
function expectedFailures(target) {
  let text = ''
  try {
    text = readFileSync(new URL('expected_failures.txt', VECTORS), 'utf8')
  } catch {
    return new Set()
  }
  const names = new Set()
  for (const line of text.split('\n')) {
    const [t, name] = line.split('#')[0].trim().split(/\s+/)
    if (t === target && name) names.add(name)
  }
  return names
}

const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase())
const snake = (s) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** A target's natural result in the vectors' shape. */
function toVectorShape(op, value) {
  if (value === undefined) return null
  switch (op) {
    case 'parse_shadow_branch_name':
      return value === null ? null : { commit_prefix: value.commitPrefix, worktree_hash: value.worktreeHash }
    case 'ulid_timestamp_ms':
      return value === null ? null : Number(value)
    case 'inspect_snapshot':
      return value.map((item) =>
        Object.fromEntries(Object.entries(item).map(([k, v]) => [snake(k), v === undefined ? null : v])),
      )
    default:
      return value
  }
}

/** Calls `fn`; `{ok: value}` or `{code}` (a thrown error without `.code` is rethrown). */
async function outcome(fn) {
  try {
    return { ok: await fn() }
  } catch (e) {
    if (e && typeof e.code === 'string') return { code: e.code, error: e }
    throw e
  }
}

/** Checks a result against `expect` / `expect_error`. */
function checkPure(c, got) {
  if ('expect_error' in c) {
    assert.ok('code' in got, `expected error ${c.expect_error}, got ${JSON.stringify(got.ok)}`)
    assert.equal(got.code, c.expect_error, 'error code')
  } else {
    assert.ok(!('code' in got), `unexpected error ${got.code}: ${got.error?.message}`)
    assert.deepEqual(toVectorShape(c.op, got.ok), c.expect)
  }
}

// ---- redaction cases --------------------------------------------------------

/** The case's snake_case options as the JS options object (only keys given). */
function redactOptions(v = {}) {
  const o = {}
  if ('personal_data' in v) o.personalData = v.personal_data
  if ('rules' in v) o.rules = v.rules
  return o
}

/** Input and expectation: a string, or bytes (a Buffer) for `blob`. */
function redactValue(c, key) {
  if (`${key}_b64` in c) return Buffer.from(c[`${key}_b64`], 'base64')
  return c.op === 'blob' ? Buffer.from(c[key], 'utf8') : c[key]
}

/** A target's output in a comparable form: strings stay, bytes become base64. */
function redactShape(c, value) {
  if (c.op !== 'blob') {
    assert.equal(typeof value, 'string', `redact ${c.op} must return a string`)
    return value
  }
  assert.ok(value instanceof Uint8Array, 'redactBlob must return a Uint8Array (or a Buffer)')
  return `base64:${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}`
}

function needsApi(api, name) {
  assert.equal(typeof api[name], 'function', `target has no ${name}; declare \`skips\` for the redact group instead`)
}

/** Calls the module function of the case's op with `options`. */
function redactCall(api, c, value, options) {
  const name = { text: 'redactText', json: 'redactJson', blob: 'redactBlob' }[c.op]
  assert.ok(name, `unknown redact op ${c.op}`)
  needsApi(api, name)
  return c.op === 'blob' ? api[name](c.path, value, options) : api[name](value, options)
}

/** The `Redactor` method with findings for the case's op: `{output, findings}`. */
async function redactWithFindings(redactor, c, value) {
  const found =
    c.op === 'blob'
      ? await redactor.redactBlobWithFindings(c.path, value)
      : await redactor[c.op === 'text' ? 'redactTextWithFindings' : 'redactJsonWithFindings'](value)
  return {
    output: redactShape(c, found.output),
    findings: found.findings.map((f) => ({ rule: f.rule, start: Number(f.start), end: Number(f.end) })),
  }
}

async function playRedact(target, c) {
  const { api } = target
  const options = redactOptions(c.options)
  const input = redactValue(c, 'input')
  needsApi(api, 'Redactor')
  if ('expect_error' in c) {
    const got = await outcome(() => redactCall(api, c, input, options))
    assert.ok('code' in got, `expected error ${c.expect_error}, got ${JSON.stringify(got.ok)}`)
    assert.equal(got.code, c.expect_error, 'error code of the function')
    const built = await outcome(() => new api.Redactor(options))
    assert.ok('code' in built, `new Redactor() should throw ${c.expect_error}`)
    assert.equal(built.code, c.expect_error, 'error code of new Redactor()')
    return
  }
  const want = redactShape(c, redactValue(c, 'expect'))
  const got = await outcome(() => redactCall(api, c, input, options))
  assert.ok(!('code' in got), `unexpected error ${got.code}: ${got.error?.message}`)
  assert.equal(redactShape(c, got.ok), want, 'output of the function')
  const redactor = new api.Redactor(options)
  const found = await redactWithFindings(redactor, c, input)
  assert.equal(found.output, want, 'output with findings')
  if ('expect_findings' in c) assert.deepEqual(found.findings, c.expect_findings, 'findings')
  // Idempotent: the expected output is a fixed point with nothing found.
  const again = await redactWithFindings(redactor, c, redactValue(c, 'expect'))
  assert.deepEqual(again, { output: want, findings: [] }, 'redacting the output again')
}

// ---- pure cases --------------------------------------------------------------

async function playPure(target, c) {
  const fn = target.api[camel(c.op)]
  assert.equal(typeof fn, 'function', `target has no ${camel(c.op)}`)
  checkPure(c, await outcome(() => fn(...c.args)))
}

// ---- trees ---------------------------------------------------------------

/** One node in a comparable form: `file <b64> <mode>`, `dir`, `link -> t`, `special`. */
function nodeKey(node) {
  if ('link' in node) return `link -> ${node.link}`
  if ('dir' in node) return 'dir'
  if ('special' in node) return 'special'
  const b64 = 'text' in node ? Buffer.from(node.text, 'utf8').toString('base64') : node.b64
  assert.ok(typeof b64 === 'string', `node without content: ${JSON.stringify(node)}`)
  const mode = node.mode ?? 0o644
  return `file ${JSON.stringify(Buffer.from(b64, 'base64').toString('latin1'))} mode ${mode.toString(8)}`
}

/** `tree` plus every parent directory its paths imply, as path -> nodeKey. */
function withParents(tree) {
  const out = new Map()
  for (const [path, node] of Object.entries(tree ?? {})) out.set(path, nodeKey(node))
  for (const path of Object.keys(tree ?? {})) {
    const parts = path.split('/')
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/')
      if (!out.has(dir)) out.set(dir, 'dir')
    }
  }
  return out
}

function keyed(tree) {
  return new Map(Object.entries(tree).map(([p, n]) => [p, nodeKey(n)]))
}

function checkTree(want, got, what = 'tree') {
  const diffs = []
  for (const [path, node] of want) {
    if (!got.has(path)) diffs.push(`${path}: missing`)
    else if (got.get(path) !== node) diffs.push(`${path}: expected ${node}, got ${got.get(path)}`)
  }
  for (const [path, node] of got) if (!want.has(path)) diffs.push(`${path}: unexpected ${node}`)
  assert.ok(diffs.length === 0, `${what} differs: ${diffs.join('; ')}`)
}

// ---- filesystem cases ------------------------------------------------------

function captureOptions(v = {}) {
  const o = {}
  if ('allow_git_dir' in v) o.allowGitDir = v.allow_git_dir
  if ('max_file_bytes' in v) o.maxFileBytes = v.max_file_bytes
  if ('key' in v) o.key = v.key
  return o
}

function rollbackOptions(v = {}) {
  const o = { durable: v.durable ?? true }
  if ('allow_git_dir' in v) o.allowGitDir = v.allow_git_dir
  if ('key' in v) o.key = v.key
  if ('on_conflict' in v) o.onConflict = v.on_conflict
  if ('redo' in v) o.redo = v.redo
  if ('restore_setid' in v) o.restoreSetid = v.restore_setid
  if ('strict_root' in v) o.strictRoot = v.strict_root
  if ('max_file_bytes' in v) o.maxFileBytes = v.max_file_bytes
  return o
}

/** The options `planRollback` takes: those of a rollback that change what it decides. */
export function planOptions({ allowGitDir, onConflict, key, restoreSetid, strictRoot }) {
  const o = { allowGitDir, onConflict, key, restoreSetid, strictRoot }
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
}

const paths = (list) => list.map((u) => (typeof u === 'string' ? u : u.path))

/** A plan as the vectors spell it: path, action, conflict, and a refusal's code. */
const planItems = (plan) =>
  plan.map((i) => {
    const item = { path: i.path, action: i.action, conflict: i.conflict }
    if (i.code != null) item.code = i.code
    return item
  })

/** The diff options of a case that expects diffs (`{}` otherwise). */
function diffOptions(c) {
  if (!('expect_diff' in c)) return {}
  const o = { diff: true }
  if ('context' in (c.diff_options ?? {})) o.diffContext = c.diff_options.context
  if ('max_bytes' in (c.diff_options ?? {})) o.diffMaxBytes = c.diff_options.max_bytes
  return o
}

const MARKER = { context: ' ', removed: '-', added: '+' }

/** The hunks written back as unified-diff lines (no headers, no no-newline
 * markers), checking each line's numbers on the way. */
function hunksText(item) {
  const lines = []
  const span = (start, n) => (n === 1 ? `${start}` : `${start},${n}`)
  for (const h of item.hunks) {
    lines.push(`@@ -${span(h.oldStart, h.oldLines)} +${span(h.newStart, h.newLines)} @@`)
    let [oldLine, newLine] = [Math.max(h.oldStart, 1), Math.max(h.newStart, 1)]
    for (const l of h.lines) {
      assert.equal(l.oldLine ?? null, l.kind === 'added' ? null : oldLine, `${item.path}: oldLine of ${l.text}`)
      assert.equal(l.newLine ?? null, l.kind === 'removed' ? null : newLine, `${item.path}: newLine of ${l.text}`)
      if (l.oldLine != null) oldLine++
      if (l.newLine != null) newLine++
      lines.push(`${MARKER[l.kind]}${l.text}`)
    }
  }
  return lines.join('\n')
}

/** The plan's diffs as the vectors spell them: path -> {summary, text?}
 * (text only when there is a line diff), after checking the hunks say what
 * the text says. */
function planDiffs(plan) {
  const out = {}
  for (const item of plan) {
    const hunks = item.hunks ?? []
    if (item.diffSummary == null) {
      assert.ok(item.diff == null && hunks.length === 0, `${item.path}: a diff without a summary`)
      continue
    }
    const entry = { summary: item.diffSummary }
    if (hunks.length > 0) {
      entry.text = item.diff
      const body = item.diff.split('\n').slice(2, -1).join('\n').replaceAll('\r', '')
      assert.equal(hunksText(item), body.replaceAll('\n\\ No newline at end of file', ''), `${item.path}: hunks`)
    } else {
      assert.equal(item.diff, item.diffSummary, `${item.path}: diff without hunks`)
    }
    out[item.path] = entry
  }
  return out
}

function checkReport(c, report) {
  const want = c.expect_report ?? {}
  const shown = () => `unrestored ${JSON.stringify(report.unrestored)}, error ${report.error}`
  if ('ok' in want) assert.equal(report.ok, want.ok, `ok (${shown()})`)
  if ('valid' in want) assert.equal(report.valid, want.valid, 'valid')
  if ('error_code' in want) assert.equal(report.errorCode ?? null, want.error_code, 'error_code')
  if ('restored' in want) assert.deepEqual(report.restored, want.restored, 'restored')
  if ('conflicts' in want) assert.deepEqual(report.conflicts, want.conflicts, 'conflicts')
  if ('has_redo' in want) assert.equal(report.redo != null, want.has_redo, 'has redo')
  if ('unrestored' in want) assert.deepEqual(paths(report.unrestored), want.unrestored, 'unrestored')
  if ('unrestored_codes' in want) {
    const codes = Object.fromEntries(report.unrestored.map((u) => [u.path, u.code]))
    assert.deepEqual(codes, want.unrestored_codes, 'unrestored codes')
  }
  if ('not_in_redo' in want) assert.deepEqual(paths(report.notInRedo), want.not_in_redo, 'not_in_redo')
  if ('not_covered' in want) assert.deepEqual(paths(report.notCovered), want.not_covered, 'not_covered')
  if ('other_root' in want) assert.equal(report.otherRoot ?? null, want.other_root, 'other_root')
}

function needs(root, method) {
  assert.equal(typeof root[method], 'function', `target's FsRoot has no ${method}()`)
}

async function playFs(target, c) {
  if (c.op === 'snapshot_paths' || c.op === 'inspect_snapshot') {
    const text = typeof c.snapshot === 'string' ? c.snapshot : JSON.stringify(c.snapshot)
    return checkPure(c, await outcome(() => target.api[camel(c.op)](text)))
  }
  const root = await target.newRoot(c.tree ?? {})
  try {
    await playOnRoot(target, root, c)
  } finally {
    await root.dispose()
  }
}

async function playOnRoot(target, root, c) {
  const substitute = (p) => {
    if (!p.includes('$ROOT')) return p
    assert.ok(root.absPath != null, 'this target has no absolute root path ($ROOT)')
    return p.replaceAll('$ROOT', root.absPath)
  }
  const before = keyed(await root.readTree())
  let snapshot
  if (c.op === 'capture_then_rollback' || c.op === 'capture') {
    const got = await outcome(() => root.capture(c.paths.map(substitute), captureOptions(c.capture_options)))
    if ('expect_capture_error' in c) {
      assert.ok('code' in got, `capture should fail with ${c.expect_capture_error}, gave ${got.ok}`)
      assert.equal(got.code, c.expect_capture_error, 'capture error code')
      return checkTree(before, keyed(await root.readTree()))
    }
    assert.ok(!('code' in got), `capture failed: ${got.error?.message} (${got.code})`)
    snapshot = got.ok
  } else if (c.op === 'rollback') {
    snapshot = typeof c.snapshot === 'string' ? c.snapshot : JSON.stringify(c.snapshot)
  } else {
    assert.fail(`unknown op ${c.op}`)
  }
  if ('expect_paths' in c) assert.deepEqual(target.api.snapshotPaths(snapshot), c.expect_paths, 'snapshot_paths')
  if ('expect_snapshot' in c) assert.deepEqual(JSON.parse(snapshot), c.expect_snapshot, 'snapshot')
  if ('expect_snapshot_text' in c) {
    const want = c.expect_snapshot_text.replaceAll('$ROOT', root.canonicalPath ?? root.absPath)
    assert.equal(snapshot, want, 'snapshot text')
  }
  if (c.op === 'capture') return checkTree(before, keyed(await root.readTree()))

  for (const step of c.mutate ?? []) await root.mutate(step)
  if (c.tamper) {
    const [from, to] = c.tamper
    assert.ok(snapshot.includes(from), `tamper: ${from} not in ${snapshot}`)
    snapshot = snapshot.replace(from, () => to)
  }
  const options = rollbackOptions(c.rollback_options)
  if (c.record_applied === true) {
    needs(root, 'recordApplied')
    const recordOptions = { allowGitDir: options.allowGitDir ?? false }
    if ('key' in options) recordOptions.key = options.key
    const got = await outcome(() => root.recordApplied(snapshot, recordOptions))
    if ('expect_record_error' in c) {
      assert.ok('code' in got, `record_applied should fail with ${c.expect_record_error}`)
      return assert.equal(got.code, c.expect_record_error, 'record_applied error')
    }
    assert.ok(!('code' in got), `record_applied failed: ${got.error?.message}`)
    snapshot = got.ok
  }
  for (const step of c.human_edits ?? []) await root.mutate(step)
  needs(root, 'plan')
  const planned = await outcome(() => root.plan(snapshot, { ...planOptions(options), ...diffOptions(c) }))
  if ('expect_plan' in c) {
    if (typeof c.expect_plan === 'string') {
      assert.ok('code' in planned, `plan should fail with ${c.expect_plan}`)
      assert.equal(planned.code, c.expect_plan, 'plan error')
    } else {
      assert.ok(!('code' in planned), `plan failed: ${planned.error?.message}`)
      assert.deepEqual(planItems(planned.ok), c.expect_plan, 'plan')
    }
  }
  if ('expect_diff' in c && !('code' in planned)) assert.deepEqual(planDiffs(planned.ok), c.expect_diff, 'diffs')
  const mutated = keyed(await root.readTree())
  let report = await root.rollback(snapshot, options)
  if (!('code' in planned) && report.valid) {
    // The plan is a contract: the rollback carried out exactly that plan.
    assert.deepEqual(planItems(report.plan), planItems(planned.ok), 'the rollback carried out its plan')
  }
  for (let i = 1; i < (c.rollback_times ?? 1); i++) report = await root.rollback(snapshot, options)
  if (c.check_redo === true) {
    assert.ok(report.redo != null, 'no redo snapshot')
    const again = await root.rollback(report.redo, options)
    assert.ok(again.ok, `rolling back the redo failed: ${JSON.stringify(again.unrestored)}`)
    checkTree(mutated, keyed(await root.readTree()), 'after redo: tree')
    await root.rollback(snapshot, options)
  }
  checkReport(c, report)
  let expected
  if ('expect_tree' in c) expected = withParents(c.expect_tree)
  else if (!report.valid) expected = mutated
  else assert.fail('case without expect_tree')
  checkTree(expected, keyed(await root.readTree()))
}

// ---- one test() per case ----------------------------------------------------

/** How a case of `file` is played. */
function playerOf(file) {
  const group = groupOf(file)
  if (group === 'fs') return playFs
  if (group === 'redact') return playRedact
  return playPure
}

const cases = loadCases()
for (const module of TARGETS) {
  const target = await import(new URL(`./targets/${module}.mjs`, import.meta.url))
  const expected = expectedFailures(target.name)
  // A target lists what it cannot run as { group: reason }.
  const skips = { ...RUNNER_SKIPS, ...(target.skips ?? {}) }
  describe(`vectors [${module}]`, () => {
    for (const c of cases) {
      const group = groupOf(c.file)
      if (group in skips) {
        test(c.name, { skip: `not applicable to ${module}: ${skips[group]}` }, () => {})
        continue
      }
      const play = playerOf(c.file)
      test(c.name, async () => {
        let failure = null
        try {
          await play(target, c)
        } catch (e) {
          failure = e
        }
        if (expected.has(c.name)) {
          assert.ok(failure !== null, `${c.name}: listed in expected_failures.txt for ${target.name} but passed`)
        } else if (failure !== null) {
          throw failure
        }
      })
    }
  })
}
