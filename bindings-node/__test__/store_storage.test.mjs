// CheckpointStore.du / gc from Node: typed reports, the dry run changing
// nothing, retention removing the oldest undo snapshots, errors with .code,
// and the Async twins.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const require = createRequire(import.meta.url)
const ac = require('..')
const IDS = ['a1b2c3d4e5f1', 'a1b2c3d4e5f2', 'a1b2c3d4e5f3']

function newRepo(t) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-storage-'))
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }))
  const repo = path.join(tmp, 'repo')
  const home = path.join(tmp, 'home')
  fs.mkdirSync(repo)
  fs.mkdirSync(home)
  const git = (...args) =>
    execFileSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig'), HOME: home, LC_ALL: 'C' },
    })
  git('init', '-q')
  git('config', 'user.name', 'Test User')
  git('config', 'user.email', 'test@example.com')
  return { repo, git }
}

function thrown(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  assert.fail('expected a throw')
}

function capture(repo, store) {
  for (const [i, id] of IDS.entries()) {
    fs.writeFileSync(path.join(repo, 'a.txt'), `version ${i}\n`.repeat(100 * (i + 1)))
    store.writeSession(id, 's1', { snapshot: ac.createCheckpoint(repo, ['a.txt']) })
  }
}

test('du counts the undo snapshots; gc keeps the newest, its dry run changes nothing', async (t) => {
  const { repo, git } = newRepo(t)
  const store = new ac.CheckpointStore(repo)
  capture(repo, store)
  const refs = () => git('for-each-ref', '--format=%(refname)', 'refs/entire/snapshots/').trim().split('\n')

  const du = store.du()
  assert.equal(du.snapshots.refs, 3)
  assert.ok(du.snapshots.bytes > 0)
  assert.equal(du.totalBytes, du.objectBytes + du.snapshotFileBytes)
  assert.deepEqual(du.sessions.map((s) => [s.sessionId, s.snapshots]), [['s1', 3]])
  assert.ok(du.largest.every((e) => ['checkpoint', 'checkpoint_branch', 'snapshot', 'shadow_branch'].includes(e.kind)))
  assert.equal(store.du({ top: 1 }).largest.length, 1)

  const dry = store.gc({ keep: 2, dryRun: true })
  assert.equal(dry.dryRun, true)
  assert.equal(dry.keep, 2)
  assert.deepEqual(dry.removedSnapshots.map((s) => [s.checkpointId, s.sessionId, s.reason]), [[IDS[0], 's1', 'beyond_retention']])
  assert.equal(refs().length, 3)
  assert.deepEqual(store.du(), du)

  const done = await store.gcAsync({ keep: 2 })
  assert.equal(done.dryRun, false)
  assert.deepEqual(done.removedSnapshots.map((s) => s.checkpointId), [IDS[0]])
  assert.equal(done.snapshotFilesRemoved, 1)
  assert.ok(done.snapshotFileBytesFreed > 0)
  assert.equal(refs().length, 2)
  assert.equal(store.snapshot(IDS[0]), null)
  assert.ok(store.snapshot(IDS[2]))
  assert.equal((await store.duAsync()).snapshots.refs, 2)
})

test('a bad olderThan is refused with invalid_argument and nothing goes', async (t) => {
  const { repo, git } = newRepo(t)
  const store = new ac.CheckpointStore(repo)
  capture(repo, store)
  assert.equal(thrown(() => store.gc({ keep: 1, olderThan: 'soon' })).code, 'invalid_argument')
  await assert.rejects(store.gcAsync({ keep: 1, olderThan: '5x' }), (e) => e.code === 'invalid_argument')
  assert.equal(git('for-each-ref', 'refs/entire/snapshots/').trim().split('\n').length, 3)
  assert.equal(store.gc({ olderThan: 'never', keep: 0 }).removedSnapshots.length, 0)
})
