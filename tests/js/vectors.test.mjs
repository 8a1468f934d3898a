// The shared JS vector runner: plays every case of tests/vectors/*.json
// against one or more JS targets. Contract and usage: tests/js/README.md.
//
//   TARGET=node node --test tests/js/vectors.test.mjs        (default: node)
//   TARGET=node,node-async node --test tests/js/vectors.test.mjs
//
// It is a port of core/tests/fs_vectors.rs and core/tests/naming_vectors.rs:
// same order of steps, same comparisons. Targets return their natural JS
// shapes; this file converts them to the vectors' shapes.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'

const VECTORS = new URL('../vectors/', import.meta.url)
const TARGETS = (process.env.TARGET || 'node').split(',').map((t) => t.trim()).filter(Boolean)

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
      return value === null ? null : [value.commitPrefix, value.worktreeHash]
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
  return o
}

const paths = (list) => list.map((u) => (typeof u === 'string' ? u : u.path))

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
  if ('expect_snapshot_text' in c) assert.equal(snapshot, c.expect_snapshot_text, 'snapshot text')
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
  if ('expect_plan' in c) {
    needs(root, 'plan')
    const got = await outcome(() => root.plan(snapshot, options))
    if (typeof c.expect_plan === 'string') {
      assert.ok('code' in got, `plan should fail with ${c.expect_plan}`)
      assert.equal(got.code, c.expect_plan, 'plan error')
    } else {
      assert.ok(!('code' in got), `plan failed: ${got.error?.message}`)
      const items = got.ok.map((i) => ({ path: i.path, action: i.action, conflict: i.conflict }))
      assert.deepEqual(items, c.expect_plan, 'plan')
    }
  }
  const mutated = keyed(await root.readTree())
  let report = await root.rollback(snapshot, options)
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

const cases = loadCases()
for (const module of TARGETS) {
  const target = await import(new URL(`./targets/${module}.mjs`, import.meta.url))
  const expected = expectedFailures(target.name)
  describe(`vectors [${module}]`, () => {
    for (const c of cases) {
      const play = c.file.startsWith('fs_') ? playFs : playPure
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
