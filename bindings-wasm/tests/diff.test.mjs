// Plans with diffs in the wasm-bindgen package (`planRollback(fs, text, {
// diff: true })` on MemoryFs): the item fields, the hunks' line numbers,
// the options and their errors. The shared vectors (tests/js, TARGET=wasm,
// fs_diff.json) pin the diff texts.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const wasm = createRequire(import.meta.url)('../pkg/nodejs/agent_checkpoint_wasm.js')
const { MemoryFs, createCheckpoint, planRollback, rollback } = wasm

const TEN = Array.from({ length: 10 }, (_, i) => `${i + 1}\n`).join('')

/** A MemoryFs whose n.txt had lines 1..10, then lines 3 and 10 changed and
 * new.txt created; and the snapshot taken before. */
function edited() {
  const fs = new MemoryFs()
  fs.putFile('n.txt', TEN)
  const snap = createCheckpoint(fs, ['n.txt', 'new.txt'])
  fs.putFile('n.txt', TEN.replace('3\n', 'three\n').replace('10\n', 'ten\n'))
  fs.putFile('new.txt', 'made by the batch\n')
  return { fs, snap }
}

test('no diff unless asked', () => {
  const { fs, snap } = edited()
  for (const item of planRollback(fs, snap)) {
    assert.equal(item.diff, null)
    assert.equal(item.diffSummary, null)
    assert.deepEqual(item.hunks, [])
  }
})

test('diffs on MemoryFs: text, summary and hunks with line numbers; nothing touched', () => {
  const { fs, snap } = edited()
  const before = fs.entries()
  const [n, created] = planRollback(fs, snap, { diff: true, diffContext: 1 })
  assert.deepEqual(fs.entries(), before)
  assert.equal(n.diffSummary, '+2 -2')
  assert.equal(
    n.diff,
    '--- a/n.txt\n+++ b/n.txt\n@@ -2,3 +2,3 @@\n 2\n-three\n+3\n 4\n@@ -9,2 +9,2 @@\n 9\n-ten\n+10\n',
  )
  assert.deepEqual(n.hunks[0], {
    oldStart: 2,
    oldLines: 3,
    newStart: 2,
    newLines: 3,
    lines: [
      { kind: 'context', text: '2', oldLine: 2, newLine: 2 },
      { kind: 'removed', text: 'three', oldLine: 3 },
      { kind: 'added', text: '3', newLine: 3 },
      { kind: 'context', text: '4', oldLine: 4, newLine: 4 },
    ],
  })
  assert.equal(created.action, 'remove')
  assert.equal(created.diff, 'remove file of 18 bytes')
  assert.equal(created.diffSummary, created.diff)
  assert.deepEqual(created.hunks, [])
  // The plan is what the rollback carries out; its report's plan has no diffs.
  const report = rollback(fs, snap)
  assert.ok(report.ok)
  assert.deepEqual(report.plan.map((i) => i.diff), [null, null])
})

test('context and size limit', () => {
  const { fs, snap } = edited()
  assert.equal(planRollback(fs, snap, { diff: true })[0].hunks[0].oldLines, 10)
  assert.deepEqual(
    planRollback(fs, snap, { diff: true, diffContext: 0 })[0].hunks.map((h) => h.lines.length),
    [2, 2],
  )
  const over = planRollback(fs, snap, { diff: true, diffMaxBytes: 4 })[0]
  assert.deepEqual(over.hunks, [])
  assert.match(over.diffSummary, /over the diff limit of 4 bytes/)
})

test('bad diff options: RangeError invalid_argument, TypeError for a non-number', () => {
  const { fs, snap } = edited()
  for (const name of ['diffContext', 'diffMaxBytes']) {
    for (const bad of [-1, 1.5]) {
      assert.throws(
        () => planRollback(fs, snap, { diff: true, [name]: bad }),
        (e) => e instanceof RangeError && e.code === 'invalid_argument' && e.message.includes(name),
      )
    }
    assert.throws(() => planRollback(fs, snap, { diff: true, [name]: '3' }), TypeError)
  }
})
