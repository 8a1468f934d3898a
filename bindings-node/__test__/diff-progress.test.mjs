// Plans with diffs (`planRollback(..., { diff: true })`: `diff`,
// `diffSummary`, `hunks`) and progress callbacks (`onProgress` on the
// …Async functions). The shared vectors (tests/js, fs_diff.json) pin the
// diff texts; this file checks the host surface.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const ac = createRequire(import.meta.url)('..')

const TEN = Array.from({ length: 10 }, (_, i) => `${i + 1}\n`).join('')

/** A temp root whose n.txt had lines 1..10, then lines 3 and 10 changed and
 * new.txt created; and the snapshot taken before. */
function edited(t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-diff-'))
  t.after(() => fs.rmSync(root, { recursive: true, force: true }))
  fs.writeFileSync(path.join(root, 'n.txt'), TEN)
  const snapshot = ac.createCheckpoint(root, ['n.txt', 'new.txt'])
  fs.writeFileSync(path.join(root, 'n.txt'), TEN.replace('3\n', 'three\n').replace('10\n', 'ten\n'))
  fs.writeFileSync(path.join(root, 'new.txt'), 'made by the batch\n')
  return { root, snapshot }
}

test('no diff unless asked', (t) => {
  const { root, snapshot } = edited(t)
  for (const item of ac.planRollback(root, snapshot)) {
    assert.equal(item.diff, null)
    assert.equal(item.diffSummary, null)
    assert.deepEqual(item.hunks, [])
  }
})

test('hunks carry line numbers, sync and async alike', async (t) => {
  const { root, snapshot } = edited(t)
  const plan = ac.planRollback(root, snapshot, { diff: true, diffContext: 1 })
  assert.deepEqual(await ac.planRollbackAsync(root, snapshot, { diff: true, diffContext: 1 }), plan)
  const [n, created] = plan
  assert.equal(n.diffSummary, '+2 -2')
  assert.ok(n.diff.startsWith('--- a/n.txt\n+++ b/n.txt\n@@ -2,3 +2,3 @@\n'), n.diff)
  const [first, second] = n.hunks
  assert.deepEqual(first, {
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
  assert.deepEqual([second.oldStart, second.oldLines, second.newStart, second.newLines], [9, 2, 9, 2])
  // A removal has no line diff: its diff is its one-line summary.
  assert.equal(created.action, 'remove')
  assert.deepEqual(created.hunks, [])
  assert.equal(created.diff, 'remove file of 18 bytes')
  assert.equal(created.diffSummary, created.diff)
})

test('context and size limit', (t) => {
  const { root, snapshot } = edited(t)
  assert.equal(ac.planRollback(root, snapshot, { diff: true })[0].hunks[0].oldLines, 10)
  assert.deepEqual(
    ac.planRollback(root, snapshot, { diff: true, diffContext: 0 })[0].hunks.map((h) => h.lines.length),
    [2, 2],
  )
  const over = ac.planRollback(root, snapshot, { diff: true, diffMaxBytes: 4 })[0]
  assert.deepEqual(over.hunks, [])
  assert.match(over.diffSummary, /over the diff limit of 4 bytes/)
  assert.equal(over.diff, over.diffSummary)
})

test('bad diff numbers are a RangeError with invalid_argument', (t) => {
  const { root, snapshot } = edited(t)
  for (const name of ['diffContext', 'diffMaxBytes']) {
    for (const bad of [-1, 1.5, Number.NaN]) {
      assert.throws(() => ac.planRollback(root, snapshot, { diff: true, [name]: bad }), (e) => {
        assert.ok(e instanceof RangeError)
        assert.equal(e.code, 'invalid_argument')
        assert.match(e.message, new RegExp(name))
        return true
      })
    }
    // Checked before any work, also by the async twin and without diff: true.
    assert.throws(() => ac.planRollbackAsync(root, snapshot, { [name]: -1 }), RangeError)
  }
})

/** Reports grouped by stage, in order: [stage, first, last]; each stage counts up. */
function edges(reports) {
  const stages = []
  for (const [stage, done, total] of reports) {
    if (stages.at(-1)?.[0] !== stage) stages.push([stage, []])
    stages.at(-1)[1].push([done, total])
  }
  for (const [stage, steps] of stages) {
    const done = steps.map(([d]) => d)
    assert.deepEqual(done, [...done].sort((a, b) => a - b), `${stage} counts up`)
  }
  return stages.map(([stage, steps]) => [stage, steps[0], steps.at(-1)])
}

test('onProgress: first and last report of each stage, before the promise settles', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-progress-'))
  t.after(() => fs.rmSync(root, { recursive: true, force: true }))
  const names = Array.from({ length: 30 }, (_, i) => `f${i}.txt`)
  for (const name of names) fs.writeFileSync(path.join(root, name), name)
  let reports = []
  const onProgress = (stage, done, total) => reports.push([stage, done, total])

  const snapshot = await ac.createCheckpointAsync(root, [...names, 'new.txt'], { onProgress })
  // Each path counts, whether it exists or not.
  assert.deepEqual(edges(reports), [['capture', [0, 31], [31, 31]]])
  for (const name of names.slice(0, 5)) fs.writeFileSync(path.join(root, name), 'edited')
  fs.writeFileSync(path.join(root, 'new.txt'), 'x')

  reports = []
  const plan = await ac.planRollbackAsync(root, snapshot, { diff: true, onProgress })
  assert.deepEqual(edges(reports), [['check', [0, 31], [31, 31]]])
  assert.equal(plan.filter((i) => i.action !== 'keep').length, 6)

  reports = []
  const report = await ac.rollbackAsync(root, snapshot, { onProgress })
  assert.ok(report.ok)
  assert.deepEqual(edges(reports), [
    ['check', [0, 31], [31, 31]],
    ['restore', [0, 6], [6, 6]],
  ])
})

test('a throwing onProgress does not stop the rollback; what it threw is a process warning', async (t) => {
  const { root, snapshot } = edited(t)
  const warnings = []
  const onWarning = (w) => warnings.push(w)
  process.on('warning', onWarning)
  t.after(() => process.off('warning', onWarning))
  const calls = []
  const boom = new Error('progress bar broke')
  const report = await ac.rollbackAsync(root, snapshot, {
    onProgress: (stage, done, total) => {
      calls.push([stage, done, total])
      throw boom
    },
  })
  assert.ok(report.ok, JSON.stringify(report.unrestored))
  assert.deepEqual(report.restored, ['n.txt', 'new.txt'])
  assert.equal(fs.readFileSync(path.join(root, 'n.txt'), 'utf8'), TEN)
  assert.ok(!fs.existsSync(path.join(root, 'new.txt')))
  // Called on after each throw.
  assert.deepEqual(edges(calls), [
    ['check', [0, 2], [2, 2]],
    ['restore', [0, 2], [2, 2]],
  ])
  // process.emitWarning delivers on the next tick.
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(warnings.length, calls.length)
  assert.ok(warnings.every((w) => w === boom))
})

test('the synchronous functions take no callback', (t) => {
  const { root, snapshot } = edited(t)
  const called = []
  // Not an option of rollback: ignored like any unknown property, never called.
  assert.ok(ac.rollback(root, snapshot, { onProgress: () => called.push(1) }).ok)
  assert.deepEqual(called, [])
})

test('onProgress must be a function', (t) => {
  const { root, snapshot } = edited(t)
  assert.throws(() => ac.rollbackAsync(root, snapshot, { onProgress: 42 }))
  assert.equal(fs.readFileSync(path.join(root, 'new.txt'), 'utf8'), 'made by the batch\n')
})
