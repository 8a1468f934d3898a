// The host-facing surface of the rollback preview, redo snapshots, the
// human-edit guard and sealing keys in the wasm-bindgen package: argument
// forms, result shapes, errors. The shared vectors (tests/js, TARGET=wasm,
// fs_beyond.json) cover the semantics.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const wasm = createRequire(import.meta.url)('../pkg/nodejs/agent_checkpoint_wasm.js')
const { MemoryFs, createCheckpoint, planRollback, recordApplied, rollback, snapshotPaths } = wasm

/** What a plan item says about its change when diffs were not asked for. */
const NO_DIFF = { diff: null, diffSummary: null, hunks: [] }

/** `assert.throws` check: an `Error` with `.code === code`. */
const withCode = (code) => (e) => e instanceof Error && e.code === code

/** A MemoryFs with `a.txt` and `b.txt`, its snapshot, and the batch applied (a, b edited, gen/c new). */
function batch(captureOptions) {
  const fs = new MemoryFs()
  fs.putFile('a.txt', 'A')
  fs.putFile('b.txt', 'B')
  const snap = createCheckpoint(fs, ['a.txt', 'b.txt', 'gen/c.txt'], captureOptions)
  fs.putFile('a.txt', 'A2')
  fs.putFile('b.txt', 'B2')
  fs.putFile('gen/c.txt', 'C')
  return { fs, snap }
}

// ---- preview ---------------------------------------------------------------

test('planRollback returns { path, action, conflict } items and touches nothing', () => {
  const { fs, snap } = batch()
  fs.putFile('b.txt', 'B')
  const before = fs.entries()
  assert.deepEqual(planRollback(fs, snap), [
    { path: 'a.txt', action: 'write', conflict: false, code: null, reason: null, ...NO_DIFF },
    { path: 'b.txt', action: 'keep', conflict: false, code: null, reason: null, ...NO_DIFF },
    { path: 'gen', action: 'rmdir', conflict: false, code: null, reason: null, ...NO_DIFF },
    { path: 'gen/c.txt', action: 'remove', conflict: false, code: null, reason: null, ...NO_DIFF },
  ])
  assert.deepEqual(fs.entries(), before)
})

test('planRollback throws for a snapshot rollback would refuse (rollback reports it)', () => {
  const fs = new MemoryFs()
  for (const [text, code] of [
    ['not json', 'malformed_snapshot'],
    ['{"version":2,"entries":{}}', 'unsupported_version'],
  ]) {
    assert.throws(() => planRollback(fs, text), withCode(code))
    assert.equal(rollback(fs, text).errorCode, code)
  }
  assert.throws(() => planRollback(null, '{}'), TypeError)
})

// ---- redo -------------------------------------------------------------------

test('redo: rolling back the redo snapshot brings the batch back', () => {
  const { fs, snap } = batch()
  const report = rollback(fs, snap)
  assert.equal(report.ok, true)
  assert.equal(typeof report.redo, 'string')
  assert.deepEqual(snapshotPaths(report.redo), ['a.txt', 'b.txt', 'gen/c.txt'])
  assert.equal(fs.getText('a.txt'), 'A')
  assert.equal(fs.stat('gen').kind, 'none')

  assert.equal(rollback(fs, report.redo).ok, true)
  assert.deepEqual([fs.getText('a.txt'), fs.getText('b.txt'), fs.getText('gen/c.txt')], ['A2', 'B2', 'C'])
})

test('redo: false returns no redo snapshot; a refused snapshot has none either', () => {
  const { fs, snap } = batch()
  const report = rollback(fs, snap, { redo: false })
  assert.equal(report.ok, true)
  assert.equal(report.redo, null)
  assert.equal(rollback(fs, 'not json').redo, null)
})

// ---- guard ------------------------------------------------------------------

test('guard: recordApplied, then skip leaves a human edit and lists it in conflicts', () => {
  const { fs, snap } = batch()
  const applied = recordApplied(fs, snap)
  assert.equal(typeof applied, 'string')
  assert.deepEqual(snapshotPaths(applied), snapshotPaths(snap))
  fs.putFile('b.txt', 'human')

  assert.deepEqual(
    planRollback(fs, applied, { onConflict: 'skip' }).find((i) => i.path === 'b.txt'),
    { path: 'b.txt', action: 'conflict', conflict: true, code: null, reason: null, ...NO_DIFF },
  )
  const report = rollback(fs, applied, { onConflict: 'skip' })
  assert.equal(report.ok, true)
  assert.deepEqual(report.conflicts, ['b.txt'])
  assert.deepEqual(report.restored, ['a.txt', 'gen/c.txt'])
  assert.equal(fs.getText('b.txt'), 'human')

  fs.putFile('a.txt', 'A2')
  const overwrite = rollback(fs, applied, { onConflict: 'overwrite' })
  assert.deepEqual(overwrite.conflicts, [])
  assert.equal(fs.getText('b.txt'), 'B')
})

test('onConflict: an unknown name is a RangeError (invalid_argument), a non-string a TypeError; nothing is touched', () => {
  const { fs, snap } = batch()
  for (const call of [
    (onConflict) => rollback(fs, snap, { onConflict }),
    (onConflict) => planRollback(fs, snap, { onConflict }),
  ]) {
    for (const bad of ['Skip', 'ignore', '']) {
      assert.throws(
        () => call(bad),
        (e) => withCode('invalid_argument')(e) && e instanceof RangeError && /'overwrite' or 'skip'/.test(e.message),
        `onConflict ${JSON.stringify(bad)}`,
      )
    }
    for (const bad of [1, true, {}]) assert.throws(() => call(bad), TypeError)
  }
  assert.equal(fs.getText('a.txt'), 'A2')
  assert.deepEqual(rollback(fs, snap, { onConflict: undefined }).conflicts, [])
  assert.deepEqual(rollback(fs, snap, { onConflict: null }).conflicts, [])
})

// ---- sealing ----------------------------------------------------------------

test('key: a string is its UTF-8 bytes; Uint8Array and Buffer are the same key', () => {
  const fs = new MemoryFs()
  fs.putFile('a.txt', 'A')
  const fromString = createCheckpoint(fs, ['a.txt'], { key: 'clé' })
  assert.match(fromString, /"mac":"[0-9a-f]{64}"/)
  assert.equal(createCheckpoint(fs, ['a.txt'], { key: new TextEncoder().encode('clé') }), fromString)
  assert.equal(createCheckpoint(fs, ['a.txt'], { key: Buffer.from('clé', 'utf8') }), fromString)
  assert.notEqual(createCheckpoint(fs, ['a.txt'], { key: 'cle' }), fromString)
  assert.doesNotMatch(createCheckpoint(fs, ['a.txt'], { key: undefined }), /"mac"/)
  for (const bad of [42, {}, [1, 2]]) {
    assert.throws(() => createCheckpoint(fs, ['a.txt'], { key: bad }), TypeError)
    assert.throws(() => rollback(fs, fromString, { key: bad }), TypeError)
    assert.throws(() => planRollback(fs, fromString, { key: bad }), TypeError)
    assert.throws(() => recordApplied(fs, fromString, { key: bad }), TypeError)
  }
})

test('a wrong key: rollback reports unauthenticated, planRollback and recordApplied throw it', () => {
  const { fs, snap } = batch({ key: 'k1' })
  const report = rollback(fs, snap, { key: 'k2' })
  assert.equal(report.valid, false)
  assert.equal(report.ok, false)
  assert.equal(report.errorCode, 'unauthenticated')
  assert.equal(fs.getText('a.txt'), 'A2')
  for (const call of [
    () => planRollback(fs, snap, { key: 'k2' }),
    () => recordApplied(fs, snap, { key: 'k2' }),
    () => recordApplied(fs, snap), // a sealed snapshot needs its key
  ]) {
    assert.throws(call, withCode('unauthenticated'))
  }
  assert.equal(rollback(fs, createCheckpoint(fs, ['a.txt']), { key: 'k1' }).errorCode, 'unauthenticated')
})

test('the right key: planRollback and recordApplied accept it; recordApplied reseals', () => {
  const { fs, snap } = batch({ key: Buffer.from('k1') })
  assert.equal(planRollback(fs, snap, { key: 'k1' }).length, 4)
  const applied = recordApplied(fs, snap, { key: 'k1' })
  assert.match(applied, /"mac":"[0-9a-f]{64}"/)
  assert.equal(rollback(fs, applied, { key: 'k2' }).errorCode, 'unauthenticated')
  const report = rollback(fs, applied, { key: new TextEncoder().encode('k1') })
  assert.equal(report.ok, true)
  assert.match(report.redo, /"mac":"[0-9a-f]{64}"/) // the redo of a sealed rollback is sealed too
  assert.equal(fs.getText('a.txt'), 'A')
})
