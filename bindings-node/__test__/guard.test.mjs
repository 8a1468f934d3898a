// withCheckpoint and checkpointGuard (guard.js): a batch rolled back when its
// callback throws or rejects, or when its guard is disposed un-kept. Every
// case edits real files in a temp dir and checks them afterwards. Imported by
// the package's name, as users do (ESM named exports of main.js).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { execFileSync } from 'node:child_process'
import {
  CheckpointStore,
  checkpointGuard,
  checkpointGuardAsync,
  createCheckpoint,
  rollback,
  snapshotPaths,
  withCheckpoint,
} from '@agent-checkpoint/node'

const PATHS = ['src/app.py', 'gen/new.py']

/** A temp dir `<tmp>/root` with src/app.py and notes.md; removed after the test. */
function tempRoot(t) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-guard-'))
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }))
  const root = path.join(tmp, 'root')
  fs.mkdirSync(path.join(root, 'src'), { recursive: true })
  fs.writeFileSync(path.join(root, 'src/app.py'), 'v1\n')
  fs.writeFileSync(path.join(root, 'notes.md'), 'notes 1\n')
  return root
}

const read = (root, rel) => fs.readFileSync(path.join(root, rel), 'utf8')
const exists = (root, rel) => fs.existsSync(path.join(root, rel))

/** Modify a file, create one in a new directory. */
function batch(root) {
  fs.writeFileSync(path.join(root, 'src/app.py'), 'v2\n')
  fs.mkdirSync(path.join(root, 'gen'))
  fs.writeFileSync(path.join(root, 'gen/new.py'), 'x = 1\n')
}

function assertAsBefore(root) {
  assert.equal(read(root, 'src/app.py'), 'v1\n')
  assert.equal(exists(root, 'gen'), false)
}

test('a throwing callback rolls back exactly its paths, and its error is rethrown', async (t) => {
  const root = tempRoot(t)
  const boom = new Error('half way')
  let guard
  await assert.rejects(
    withCheckpoint(root, PATHS, (g) => {
      guard = g
      batch(root)
      fs.writeFileSync(path.join(root, 'notes.md'), 'notes 2\n') // not guarded
      throw boom
    }),
    (err) => err === boom,
  )
  assertAsBefore(root)
  assert.equal(read(root, 'notes.md'), 'notes 2\n')
  assert.equal(guard.report.ok, true)
  assert.deepEqual(guard.report.restored, ['gen/new.py', 'src/app.py'])
  assert.equal(guard.rolledBack, true)
  assert.equal('rollbackReport' in boom || 'rollbackError' in boom, false)
  // The report's redo brings the batch's result back, as after any rollback.
  assert.equal(rollback(root, guard.report.redo).ok, true)
  assert.equal(read(root, 'gen/new.py'), 'x = 1\n')
})

test('a rejecting callback rolls back, and the rejection is rethrown', async (t) => {
  const root = tempRoot(t)
  let guard
  await assert.rejects(
    withCheckpoint(root, PATHS, async (g) => {
      guard = g
      batch(root)
      await sleep(1)
      throw new RangeError('later')
    }),
    RangeError,
  )
  assertAsBefore(root)
  assert.equal(guard.report.ok, true)
})

test('a callback that succeeds keeps the edits and resolves to its value', async (t) => {
  const root = tempRoot(t)
  let guard
  const value = await withCheckpoint(root, PATHS, async (g) => {
    guard = g
    batch(root)
    return 42
  })
  assert.equal(value, 42)
  assert.equal(read(root, 'src/app.py'), 'v2\n')
  assert.equal(guard.report, null)
  assert.equal(guard.rolledBack, false)
  assert.deepEqual(snapshotPaths(guard.snapshot), ['gen/new.py', 'src/app.py'])
  // The snapshot stays for a later rollback, which runs at most once.
  const report = await guard.rollbackAsync()
  assert.equal(report.ok, true)
  assertAsBefore(root)
  fs.writeFileSync(path.join(root, 'src/app.py'), 'v3\n')
  assert.equal(guard.rollback(), report)
  assert.equal(await guard.rollbackAsync(), report)
  assert.equal(read(root, 'src/app.py'), 'v3\n')
})

test('keep() means no rollback on failure; an explicit rollback() still rolls back', async (t) => {
  const root = tempRoot(t)
  let guard
  await assert.rejects(
    withCheckpoint(root, PATHS, (g) => {
      guard = g
      batch(root)
      g.keep()
      throw new Error('kept anyway')
    }),
    /kept anyway/,
  )
  assert.equal(guard.kept, true)
  assert.equal(guard.report, null)
  assert.equal(read(root, 'src/app.py'), 'v2\n')
  assert.equal(guard.rollback().ok, true)
  assertAsBefore(root)
})

test('a rollback inside the callback is the only one', async (t) => {
  const root = tempRoot(t)
  await assert.rejects(
    withCheckpoint(root, PATHS, async (g) => {
      batch(root)
      assert.equal((await g.rollbackAsync()).ok, true)
      assertAsBefore(root)
      fs.writeFileSync(path.join(root, 'src/app.py'), 'after rollback\n')
      throw new Error('after')
    }),
    /after/,
  )
  assert.equal(read(root, 'src/app.py'), 'after rollback\n')
})

test('nested callbacks each roll back their own paths, also over paths another guard holds', async (t) => {
  const root = tempRoot(t)
  const app = path.join(root, 'src/app.py')
  await assert.rejects(
    withCheckpoint(root, ['notes.md', 'src/app.py'], async () => {
      fs.writeFileSync(path.join(root, 'notes.md'), 'notes 2\n')
      fs.writeFileSync(app, 'outer edit\n')
      await assert.rejects(
        withCheckpoint(root, PATHS, async () => {
          batch(root) // src/app.py is the outer guard's too
          throw new Error('inner')
        }),
        /inner/,
      )
      // The inner guard restores what it captured: the outer's edits.
      assert.equal(read(root, 'src/app.py'), 'outer edit\n')
      assert.equal(exists(root, 'gen'), false)
      assert.equal(read(root, 'notes.md'), 'notes 2\n')
      await withCheckpoint(root, ['src/app.py'], () => fs.writeFileSync(app, 'inner kept\n'))
      assert.equal(read(root, 'src/app.py'), 'inner kept\n')
      throw new Error('outer')
    }),
    /outer/,
  )
  // The outer guard restores what it captured, whatever the inner ones did.
  assertAsBefore(root)
  assert.equal(read(root, 'notes.md'), 'notes 1\n')
})

test('two guards over shared paths, not nested: each restores what it captured, kept or not', async (t) => {
  const root = tempRoot(t)
  const app = path.join(root, 'src/app.py')
  const notes = path.join(root, 'notes.md')
  // { using first = ...; using second = ... } whose scopes end out of order.
  const first = checkpointGuard(root, ['src/app.py', 'notes.md'])
  fs.writeFileSync(app, 'first\n')
  fs.writeFileSync(notes, 'first notes\n')
  const second = await checkpointGuardAsync(root, ['notes.md', 'gen/new.py'])
  fs.writeFileSync(notes, 'second\n')
  batch(root) // src/app.py: first's only; gen/new.py: second's only
  // The first is kept: disposing it leaves everything, the second's paths too.
  first.keep()
  first[Symbol.dispose]()
  assert.equal(first.report, null)
  assert.equal(read(root, 'notes.md'), 'second\n')
  // The second is discarded: notes.md back to the first's edit it captured, gen/ gone.
  await second[Symbol.asyncDispose]()
  assert.equal(second.report.ok, true)
  assert.deepEqual(second.report.restored, ['gen/new.py', 'notes.md'])
  assert.equal(read(root, 'notes.md'), 'first notes\n')
  assert.equal(exists(root, 'gen'), false)
  assert.equal(read(root, 'src/app.py'), 'v2\n')
  // A kept guard still rolls back on request, to what it captured.
  fs.writeFileSync(notes, 'later\n')
  assert.equal((await first.rollbackAsync()).ok, true)
  assertAsBefore(root)
  assert.equal(read(root, 'notes.md'), 'notes 1\n')
})

test('disposal as `using` does it, by hand: rolls back unless kept or rolled back', async (t) => {
  const root = tempRoot(t)
  assert.equal(typeof Symbol.dispose, 'symbol') // Node >= 20.4 defines both
  assert.equal(typeof Symbol.asyncDispose, 'symbol')

  // { using g = checkpointGuard(...); batch; throw } — TypeScript's downlevel
  // `using` calls value[Symbol.dispose]() when the scope ends.
  const g = checkpointGuard(root, PATHS)
  batch(root)
  g[Symbol.dispose]()
  assertAsBefore(root)
  assert.equal(g.report.ok, true)
  batch(root)
  g[Symbol.dispose]() // already rolled back: nothing more
  assert.equal(read(root, 'src/app.py'), 'v2\n')
  fs.rmSync(path.join(root, 'gen'), { recursive: true })
  fs.writeFileSync(path.join(root, 'src/app.py'), 'v1\n')

  // { using g = ...; batch; g.keep() }: the success path keeps.
  const kept = checkpointGuard(root, PATHS)
  batch(root)
  kept.keep()
  kept[Symbol.dispose]()
  assert.equal(kept.report, null)
  assert.equal(read(root, 'src/app.py'), 'v2\n')

  // await using g = await checkpointGuardAsync(...): the rollback off the JS thread.
  const stages = []
  const a = await checkpointGuardAsync(root, PATHS, { onProgress: (stage) => stages.push(stage) })
  fs.writeFileSync(path.join(root, 'src/app.py'), 'v3\n')
  await a[Symbol.asyncDispose]()
  assert.equal(a.report.ok, true)
  assert.equal(read(root, 'src/app.py'), 'v2\n') // as when `a` captured it
  assert.ok(stages.includes('capture') && stages.includes('restore'), stages.join(' '))

  // The methods are the ones Node's registered symbols name too.
  assert.equal(g[Symbol.for('nodejs.dispose')], g[Symbol.dispose])
  assert.equal(g[Symbol.for('nodejs.asyncDispose')], g[Symbol.asyncDispose])
})

test('a rollback that fails or leaves paths unrestored never replaces the error', async (t) => {
  const root = tempRoot(t)
  fs.mkdirSync(path.join(root, 'gen'))
  fs.writeFileSync(path.join(root, 'gen/old.py'), 'old\n')
  const boom = new Error('boom')
  let guard
  await assert.rejects(
    withCheckpoint(root, ['gen/old.py', 'src/app.py'], (g) => {
      guard = g
      // The directory becomes a file: not a captured path, so the rollback
      // may not remove it to restore gen/old.py.
      fs.rmSync(path.join(root, 'gen'), { recursive: true })
      fs.writeFileSync(path.join(root, 'gen'), 'a file now\n')
      fs.writeFileSync(path.join(root, 'src/app.py'), 'v2\n')
      throw boom
    }),
    (err) => err === boom,
  )
  assert.equal(boom.rollbackReport, guard.report)
  assert.equal(guard.report.ok, false)
  assert.deepEqual(guard.report.unrestored.map((u) => u.path), ['gen/old.py'])
  assert.equal(read(root, 'src/app.py'), 'v1\n')
  assert.equal(read(root, 'gen'), 'a file now\n')

  const gone = tempRoot(t)
  const second = new Error('root gone')
  await assert.rejects(
    withCheckpoint(gone, PATHS, () => {
      fs.rmSync(gone, { recursive: true }) // the rollback cannot open the root
      throw second
    }),
    (err) => err === second,
  )
  assert.equal(typeof second.rollbackError.code, 'string')
  // A thrown non-object is rethrown as it is.
  const third = tempRoot(t)
  await assert.rejects(
    withCheckpoint(third, PATHS, () => {
      batch(third)
      throw 'a string' // eslint-disable-line no-throw-literal
    }),
    (err) => err === 'a string',
  )
  assertAsBefore(third)
})

test('an aborted operation (AbortController) rolls back, and the AbortError is rethrown', async (t) => {
  const root = tempRoot(t)
  const controller = new AbortController()
  const work = withCheckpoint(root, PATHS, async () => {
    batch(root)
    await sleep(60_000, undefined, { signal: controller.signal }) // aborted here
    fs.writeFileSync(path.join(root, 'src/app.py'), 'never\n')
  })
  while (!exists(root, 'gen/new.py')) await sleep(1)
  controller.abort()
  await assert.rejects(work, { name: 'AbortError' })
  assertAsBefore(root)
})

test('a refused capture throws before the callback runs', async (t) => {
  const root = tempRoot(t)
  let ran = false
  await assert.rejects(
    withCheckpoint(root, ['../outside.txt'], () => {
      ran = true
    }),
    { code: 'path_escapes_root' },
  )
  assert.equal(ran, false)
  assert.throws(() => checkpointGuard(root, ['../outside.txt']), { code: 'path_escapes_root' })
  await assert.rejects(withCheckpoint(root, PATHS, 'not a function'), TypeError)
})

test('options reach the capture and the rollback', async (t) => {
  const root = tempRoot(t)
  const key = 'the agent key'
  const g = checkpointGuard(root, PATHS, { key, redo: false })
  assert.match(g.snapshot, /"mac"/)
  assert.equal(rollback(root, g.snapshot, { key: 'another key' }).errorCode, 'unauthenticated')
  batch(root)
  const report = g.rollback()
  assert.equal(report.ok, true)
  assert.equal(report.redo, null)
  assertAsBefore(root)
})

test('CommonJS require sees the guards beside the native functions', () => {
  const ac = createRequire(import.meta.url)('@agent-checkpoint/node')
  assert.equal(ac.withCheckpoint, withCheckpoint)
  assert.equal(ac.checkpointGuard, checkpointGuard)
  assert.equal(ac.createCheckpoint, createCheckpoint)
})

/** `tempRoot` made a git repository, and its store. */
function storeRoot(t) {
  const root = tempRoot(t)
  execFileSync('git', ['init', '-q', root])
  return { root, store: new CheckpointStore(root) }
}

test('withCheckpoint writes a kept batch to the store, undone from it later', async (t) => {
  const { root, store } = storeRoot(t)
  let seen
  await withCheckpoint(root, PATHS, (g) => { seen = g; batch(root) }, {
    store,
    session: { agent: 'my-agent', prompts: ['make gen'] },
  })
  assert.equal(read(root, 'gen/new.py'), 'x = 1\n')
  const id = seen.checkpointId
  assert.equal(typeof id, 'string')
  const session = store.readSession(id)
  assert.equal(session.metadata.agent, 'my-agent')
  assert.deepEqual(session.metadata.files_touched, [...PATHS].sort())
  assert.deepEqual(session.prompts, ['make gen'])
  assert.equal(store.snapshot(id), seen.snapshot)
  assert.equal(store.rollback(id).ok, true)
  assert.equal(read(root, 'src/app.py'), 'v1\n')
  assert.equal(exists(root, 'gen'), false)
})

test('a rolled-back batch writes nothing to the store; a kept failing one does', async (t) => {
  const { root, store } = storeRoot(t)
  let seen
  await assert.rejects(
    withCheckpoint(root, PATHS, (g) => { seen = g; batch(root); throw new Error('half way') }, { store }),
    /half way/,
  )
  assert.equal(seen.checkpointId, null)
  assert.deepEqual(store.list(), [])
  await assert.rejects(
    withCheckpoint(root, PATHS, (g) => { seen = g; g.keep(); throw new Error('kept') }, { store }),
    /kept/,
  )
  assert.equal(typeof seen.checkpointId, 'string')
  assert.deepEqual(store.list().map((c) => c.checkpointId), [seen.checkpointId])
})

test('a failed store write rejects a good batch and is storeError on a kept failing one', async (t) => {
  const { root, store } = storeRoot(t)
  await assert.rejects(
    withCheckpoint(root, PATHS, () => {}, { store, sessionId: 'bad/../id' }),
    (err) => err.code !== undefined,
  )
  let seen
  const failed = await withCheckpoint(root, PATHS, (g) => { seen = g; g.keep(); throw new Error('kept') }, {
    store,
    sessionId: 'bad/../id',
  }).catch((err) => err)
  assert.match(failed.message, /kept/)
  assert.ok(failed.storeError !== undefined)
  assert.equal(seen.storeError, failed.storeError)
  assert.equal(seen.checkpointId, null)
  assert.throws(() => checkpointGuard(root, PATHS, { store: 'not a store' }), TypeError)
})

test('a kept guard is written to the store when disposed, an un-kept one rolled back', async (t) => {
  const { root, store } = storeRoot(t)
  const kept = checkpointGuard(root, PATHS, { store })
  batch(root)
  kept.keep()
  kept[Symbol.dispose]()
  assert.equal(typeof kept.checkpointId, 'string')
  const dropped = await checkpointGuardAsync(root, PATHS, { store })
  fs.writeFileSync(path.join(root, 'src/app.py'), 'v3\n')
  await dropped[Symbol.asyncDispose]()
  assert.equal(dropped.checkpointId, null)
  assert.equal(read(root, 'src/app.py'), 'v2\n')
  assert.equal(store.list().length, 1)
  const later = await checkpointGuardAsync(root, PATHS, { store })
  later.keep()
  await later[Symbol.asyncDispose]()
  assert.equal(store.list().length, 2)
})

test('a store needs the root to be its working tree, and the session fields the guard sets are its own', (t) => {
  const { root, store } = storeRoot(t)
  assert.equal(fs.realpathSync(store.workDir), fs.realpathSync(root))
  assert.throws(() => checkpointGuard(path.join(root, 'src'), ['app.py'], { store }), (err) => {
    assert.equal(err.code, 'invalid_argument')
    assert.match(err.message, /working tree/)
    return true
  })
  for (const own of ['sessionId', 'session_id', 'checkpointId', 'snapshot']) {
    assert.throws(() => checkpointGuard(root, PATHS, { store, session: { [own]: 'x' } }), new RegExp(own))
  }
  assert.deepEqual(store.list(), [])
})

test('writeToStore keeps the batch: the end of the scope then writes nothing more and rolls nothing back', async (t) => {
  const { root, store } = storeRoot(t)
  const g = checkpointGuard(root, [path.join(root, 'src/app.py'), './gen/../gen/new.py'], { store })
  batch(root)
  const id = g.writeToStore()
  assert.equal(g.kept, true)
  g[Symbol.dispose]()
  assert.equal(read(root, 'src/app.py'), 'v2\n')
  assert.deepEqual(store.list().map((c) => c.checkpointId), [id])
  assert.deepEqual(store.readSession(id).metadata.files_touched, ['gen/new.py', 'src/app.py'])
  const a = await checkpointGuardAsync(root, PATHS, { store })
  const [x, y] = await Promise.all([a.writeToStoreAsync(), a.writeToStoreAsync()])
  assert.equal(x, y)
  assert.equal(store.list().length, 2)
})
