// The host-facing surface of the rollback preview, redo snapshots, the
// human-edit guard and sealing keys: argument forms, result types, errors,
// async variants. The shared vectors (tests/js, fs_beyond.json) cover semantics.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const ac = createRequire(import.meta.url)('..')

/** What a plan item says about its change when diffs were not asked for. */
const NO_DIFF = { diff: null, diffSummary: null, hunks: [] }

/** A temp dir `<tmp>/root` with `files` (path -> text); removed after the test. */
function tempRoot(t, files = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-beyond-'))
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }))
  const root = path.join(tmp, 'root')
  fs.mkdirSync(root)
  for (const [rel, text] of Object.entries(files)) write(root, rel, text)
  return root
}

function write(root, rel, text) {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), text)
}

const read = (root, rel) => fs.readFileSync(path.join(root, rel), 'utf8')
const exists = (root, rel) => fs.existsSync(path.join(root, rel))

/** The thrown value of `fn`, failing the test if it does not throw. */
function thrown(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  assert.fail('expected a throw')
}

/** A root with `a.txt` and `b.txt`, its snapshot, and the batch applied (a, b edited, gen/c new). */
function batch(t, captureOptions) {
  const root = tempRoot(t, { 'a.txt': 'A', 'b.txt': 'B' })
  const snap = ac.createCheckpoint(root, ['a.txt', 'b.txt', 'gen/c.txt'], captureOptions)
  write(root, 'a.txt', 'A2')
  write(root, 'b.txt', 'B2')
  write(root, 'gen/c.txt', 'C')
  return { root, snap }
}

// ---- preview ---------------------------------------------------------------

test('planRollback returns { path, action, conflict, code, reason } items and touches nothing', (t) => {
  const { root, snap } = batch(t)
  fs.writeFileSync(path.join(root, 'b.txt'), 'B')
  assert.deepEqual(ac.planRollback(root, snap), [
    { path: 'a.txt', action: 'write', conflict: false, code: null, reason: null, ...NO_DIFF },
    { path: 'b.txt', action: 'keep', conflict: false, code: null, reason: null, ...NO_DIFF },
    { path: 'gen', action: 'rmdir', conflict: false, code: null, reason: null, ...NO_DIFF },
    { path: 'gen/c.txt', action: 'remove', conflict: false, code: null, reason: null, ...NO_DIFF },
  ])
  assert.equal(read(root, 'a.txt'), 'A2')
  assert.equal(exists(root, 'gen/c.txt'), true)
  assert.deepEqual(Object.values(ac.PlanAction).sort(), ['conflict', 'keep', 'refuse', 'remove', 'rmdir', 'write'])
})

test('planRollback throws for a snapshot rollback would refuse (rollback reports it)', (t) => {
  const root = tempRoot(t)
  for (const [text, code] of [
    ['not json', 'malformed_snapshot'],
    ['{"version":2,"entries":{}}', 'unsupported_version'],
  ]) {
    const err = thrown(() => ac.planRollback(root, text))
    assert.ok(err instanceof Error)
    assert.equal(err.code, code)
    assert.equal(ac.rollback(root, text).errorCode, code)
  }
  assert.equal(thrown(() => ac.planRollback(path.join(root, 'missing'), '{}')).code, 'not_found')
})

// ---- redo -------------------------------------------------------------------

test('redo: rolling back the redo snapshot brings the batch back', (t) => {
  const { root, snap } = batch(t)
  const report = ac.rollback(root, snap)
  assert.equal(report.ok, true)
  assert.equal(typeof report.redo, 'string')
  assert.deepEqual(ac.snapshotPaths(report.redo), ['a.txt', 'b.txt', 'gen/c.txt'])
  assert.equal(read(root, 'a.txt'), 'A')
  assert.equal(exists(root, 'gen'), false)

  const again = ac.rollback(root, report.redo)
  assert.equal(again.ok, true)
  assert.deepEqual([read(root, 'a.txt'), read(root, 'b.txt'), read(root, 'gen/c.txt')], ['A2', 'B2', 'C'])
})

test('redo: made when first read, then a plain field; JSON, spread and structuredClone carry it', async (t) => {
  const { root, snap } = batch(t)
  const report = ac.rollback(root, snap)
  // Before it is read: an enumerable accessor in the report's own keys.
  const before = Object.getOwnPropertyDescriptor(report, 'redo')
  assert.equal(before.enumerable, true)
  assert.equal(typeof before.get, 'function')
  assert.ok(Object.keys(report).includes('redo'))
  const viaJson = JSON.parse(JSON.stringify(report)).redo
  // Once read it is a plain data property holding the same text.
  const after = Object.getOwnPropertyDescriptor(report, 'redo')
  assert.equal(after.get, undefined)
  assert.equal(typeof after.value, 'string')
  assert.equal(report.redo, viaJson)
  assert.equal({ ...report }.redo, viaJson)
  assert.equal(structuredClone(report).redo, viaJson)
  assert.deepEqual(ac.snapshotPaths(report.redo), ['a.txt', 'b.txt', 'gen/c.txt'])
  // The async variant behaves the same, and each report has its own redo.
  const { root: root2, snap: snap2 } = batch(t)
  const asyncReport = await ac.rollbackAsync(root2, snap2)
  assert.equal(typeof Object.getOwnPropertyDescriptor(asyncReport, 'redo').get, 'function')
  assert.deepEqual(ac.snapshotPaths(asyncReport.redo), ['a.txt', 'b.txt', 'gen/c.txt'])
  assert.equal(ac.rollback(root2, asyncReport.redo).ok, true)
  assert.equal(read(root2, 'a.txt'), 'A2')
})

test('redo: false returns no redo snapshot; a refused snapshot has none either', (t) => {
  const { root, snap } = batch(t)
  const report = ac.rollback(root, snap, { redo: false })
  assert.equal(report.ok, true)
  assert.equal(report.redo, null)
  assert.equal(ac.rollback(root, 'not json').redo, null)
})

// ---- guard ------------------------------------------------------------------

test('guard: recordApplied, then skip leaves a human edit and lists it in conflicts', (t) => {
  const { root, snap } = batch(t)
  const applied = ac.recordApplied(root, snap)
  assert.equal(typeof applied, 'string')
  assert.deepEqual(ac.snapshotPaths(applied), ac.snapshotPaths(snap))
  write(root, 'b.txt', 'human')

  assert.deepEqual(
    ac.planRollback(root, applied, { onConflict: 'skip' }).find((i) => i.path === 'b.txt'),
    { path: 'b.txt', action: 'conflict', conflict: true, code: null, reason: null, ...NO_DIFF },
  )
  assert.deepEqual(
    ac.planRollback(root, applied).find((i) => i.path === 'b.txt'),
    { path: 'b.txt', action: 'write', conflict: true, code: null, reason: null, ...NO_DIFF },
  )
  const report = ac.rollback(root, applied, { onConflict: 'skip' })
  assert.equal(report.ok, true)
  assert.deepEqual(report.conflicts, ['b.txt'])
  assert.deepEqual(report.restored, ['a.txt', 'gen/c.txt'])
  assert.equal(read(root, 'b.txt'), 'human')
  assert.equal(read(root, 'a.txt'), 'A')

  // The default is to overwrite.
  write(root, 'a.txt', 'A2')
  const overwrite = ac.rollback(root, applied, { onConflict: 'overwrite' })
  assert.deepEqual(overwrite.conflicts, [])
  assert.equal(read(root, 'b.txt'), 'B')
})

test('onConflict: any other value is an argument error, and nothing is touched', async (t) => {
  const { root, snap } = batch(t)
  // An unknown name is a RangeError with code invalid_argument; a value that
  // is not a string, napi's own StringExpected.
  for (const [bad, code] of [['Skip', 'invalid_argument'], ['ignore', 'invalid_argument'], ['', 'invalid_argument'], [1, 'StringExpected'], [true, 'StringExpected']]) {
    for (const call of [
      () => ac.rollback(root, snap, { onConflict: bad }),
      () => ac.rollbackAsync(root, snap, { onConflict: bad }),
      () => ac.planRollback(root, snap, { onConflict: bad }),
      () => ac.planRollbackAsync(root, snap, { onConflict: bad }),
    ]) {
      const err = thrown(call)
      assert.ok(err instanceof Error)
      assert.equal(err.code, code, `onConflict ${JSON.stringify(bad)}`)
      if (code === 'invalid_argument') assert.ok(err instanceof RangeError)
    }
  }
  assert.match(thrown(() => ac.rollback(root, snap, { onConflict: 'ignore' })).message, /'overwrite' or 'skip'/)
  assert.equal(read(root, 'a.txt'), 'A2')
  assert.deepEqual(ac.rollback(root, snap, { onConflict: undefined }).conflicts, [])
})

// ---- sealing ----------------------------------------------------------------

test('key: a string is its UTF-8 bytes; Buffer and Uint8Array are the same key', (t) => {
  const root = tempRoot(t, { 'a.txt': 'A' })
  const fromString = ac.createCheckpoint(root, ['a.txt'], { key: 'clé' })
  const fromBuffer = ac.createCheckpoint(root, ['a.txt'], { key: Buffer.from('clé', 'utf8') })
  const fromBytes = ac.createCheckpoint(root, ['a.txt'], { key: new TextEncoder().encode('clé') })
  assert.match(fromString, /"mac":"[0-9a-f]{64}"/)
  assert.equal(fromBuffer, fromString)
  assert.equal(fromBytes, fromString)
  assert.notEqual(ac.createCheckpoint(root, ['a.txt'], { key: 'cle' }), fromString)
  assert.doesNotMatch(ac.createCheckpoint(root, ['a.txt']), /"mac"/)
  for (const bad of [42, {}, [1, 2]]) {
    assert.equal(thrown(() => ac.createCheckpoint(root, ['a.txt'], { key: bad })).code, 'InvalidArg')
  }
  // Empty keys and strings that are not valid Unicode are refused: they would
  // let anyone forge a seal, or let different keys verify each other's.
  for (const bad of ['', new Uint8Array(0), '\ud800', '\udfff', 'a\ud800b']) {
    const err = thrown(() => ac.createCheckpoint(root, ['a.txt'], { key: bad }))
    assert.ok(err instanceof RangeError, JSON.stringify(bad))
    assert.equal(err.code, 'invalid_argument')
  }
  assert.match(ac.createCheckpoint(root, ['a.txt'], { key: '\ufffd' }), /"mac"/)
})

test('a wrong key: rollback reports unauthenticated, planRollback and recordApplied throw it', (t) => {
  const { root, snap } = batch(t, { key: 'k1' })
  const report = ac.rollback(root, snap, { key: 'k2' })
  assert.equal(report.valid, false)
  assert.equal(report.ok, false)
  assert.equal(report.errorCode, 'unauthenticated')
  assert.equal(typeof report.error, 'string')
  assert.equal(read(root, 'a.txt'), 'A2')

  for (const call of [
    () => ac.planRollback(root, snap, { key: 'k2' }),
    () => ac.recordApplied(root, snap, { key: 'k2' }),
    () => ac.recordApplied(root, snap), // a sealed snapshot needs its key
  ]) {
    const err = thrown(call)
    assert.ok(err instanceof Error)
    assert.equal(err.code, 'unauthenticated')
  }

  // An unsealed snapshot is refused when a key is given.
  const unsealed = ac.createCheckpoint(root, ['a.txt'])
  assert.equal(ac.rollback(root, unsealed, { key: 'k1' }).errorCode, 'unauthenticated')
  assert.equal(read(root, 'a.txt'), 'A2')
})

test('the right key: rollback, planRollback and recordApplied accept it; recordApplied reseals', (t) => {
  const { root, snap } = batch(t, { key: Buffer.from('k1') })
  assert.equal(ac.planRollback(root, snap, { key: 'k1' }).length, 4)
  const applied = ac.recordApplied(root, snap, { key: 'k1' })
  assert.match(applied, /"mac":"[0-9a-f]{64}"/)
  assert.equal(ac.rollback(root, applied, { key: 'k2' }).errorCode, 'unauthenticated')
  const report = ac.rollback(root, applied, { key: new Uint8Array(Buffer.from('k1')) })
  assert.equal(report.ok, true)
  assert.equal(read(root, 'a.txt'), 'A')
})

// ---- async ------------------------------------------------------------------

test('planRollbackAsync and recordAppliedAsync return what the sync calls return', async (t) => {
  const { root, snap } = batch(t, { key: 'k1' })
  assert.equal(await ac.createCheckpointAsync(root, ['a.txt'], { key: 'k1' }), ac.createCheckpoint(root, ['a.txt'], { key: 'k1' }))

  const pending = ac.recordAppliedAsync(root, snap, { key: 'k1' })
  assert.ok(pending instanceof Promise)
  const applied = await pending
  assert.equal(applied, ac.recordApplied(root, snap, { key: 'k1' }))
  write(root, 'b.txt', 'human')

  const options = { key: 'k1', onConflict: 'skip' }
  assert.deepEqual(await ac.planRollbackAsync(root, applied, options), ac.planRollback(root, applied, options))

  const syncReport = ac.rollback(root, applied, options)
  ac.rollback(root, syncReport.redo, { redo: false })
  const asyncReport = await ac.rollbackAsync(root, applied, options)
  assert.deepEqual(asyncReport, syncReport)
  assert.deepEqual(asyncReport.conflicts, ['b.txt'])
  assert.equal((await ac.rollbackAsync(root, applied, { ...options, redo: false })).redo, null)
})

test('async errors reject with the same code: unauthenticated, malformed_snapshot', async (t) => {
  const { root, snap } = batch(t, { key: 'k1' })
  for (const [call, code] of [
    [() => ac.planRollbackAsync(root, snap, { key: 'k2' }), 'unauthenticated'],
    [() => ac.recordAppliedAsync(root, snap, { key: 'k2' }), 'unauthenticated'],
    [() => ac.recordAppliedAsync(root, snap), 'unauthenticated'],
    [() => ac.planRollbackAsync(root, 'nope'), 'malformed_snapshot'],
    [() => ac.recordAppliedAsync(root, 'nope'), 'malformed_snapshot'],
  ]) {
    await assert.rejects(call(), (err) => {
      assert.ok(err instanceof Error)
      assert.equal(err.code, code)
      return true
    })
  }
  assert.equal((await ac.rollbackAsync(root, snap, { key: 'k2' })).errorCode, 'unauthenticated')
  assert.equal(read(root, 'a.txt'), 'A2')
})
