// CheckpointStore.push / fetch / fetchAll / listRemote (and their Async
// twins) against real servers the tests start and stop: a bare repository
// over file:// and `git daemon` on 127.0.0.1.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'

const require = createRequire(import.meta.url)
const ac = require('..')
const A = '01KVBJCWYA4YW6J5M9GP655HZN'
const B = '01KVBJCWYA4YW6J5M9GP655HZP'

function tempDir(t) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-remote-'))
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }))
  const home = path.join(tmp, 'home')
  fs.mkdirSync(home)
  const git = (cwd, ...args) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig'), HOME: home, LC_ALL: 'C' },
    })
  return { tmp, git }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function waitForPort(port) {
  for (let i = 0; i < 500; i++) {
    const ok = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end()
        resolve(true)
      })
      socket.on('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('git daemon did not listen')
}

/** A bare remote served over `kind` and two clones of it. */
async function team(t, kind) {
  const { tmp, git } = tempDir(t)
  git(tmp, 'init', '-q', '--bare', 'remote.git')
  let url = `file://${path.join(tmp, 'remote.git')}`
  if (kind === 'daemon') {
    const port = await freePort()
    const daemon = spawn(
      'git',
      ['daemon', '--enable=receive-pack', '--reuseaddr', '--listen=127.0.0.1', '--export-all', `--port=${port}`, `--base-path=${tmp}`, tmp],
      { detached: true, stdio: 'ignore' },
    )
    t.after(() => {
      try {
        process.kill(-daemon.pid, 'SIGKILL')
      } catch {}
    })
    await waitForPort(port)
    url = `git://127.0.0.1:${port}/remote.git`
  }
  const clones = ['a', 'b'].map((name) => {
    const repo = path.join(tmp, name)
    fs.mkdirSync(repo)
    git(repo, 'init', '-q')
    git(repo, 'config', 'user.name', 'Test User')
    git(repo, 'config', 'user.email', 'test@example.com')
    git(repo, 'remote', 'add', 'origin', url)
    return repo
  })
  return { clones, git }
}

for (const kind of ['file', 'daemon']) {
  test(`push, listRemote, fetch, fetchAll over ${kind}`, async (t) => {
    const { clones: [a, b] } = await team(t, kind)
    const storeA = new ac.CheckpointStore(a)
    for (const id of [A, B]) storeA.writeSession(id, 's1', { prompts: [`prompt of ${id}`], transcript: '{"t":1}\n' })
    const result = storeA.push()
    assert.equal(result.ok, true)
    assert.equal(result.remote, 'origin')
    assert.deepEqual(result.pushed.sort(), [ac.refName(A), ac.refName(B)].sort())
    assert.deepEqual(result.queued, [])
    assert.deepEqual((await storeA.pushAsync('origin')).pushed, [])

    const storeB = new ac.CheckpointStore(b)
    const listed = storeB.listRemote()
    assert.deepEqual(listed.map((c) => c.checkpointId), [A, B])
    assert.deepEqual([...new Set(listed.map((c) => c.local))], ['absent'])
    assert.equal(listed[0].refName, ac.refName(A))
    assert.equal(listed[0].backend, 'git-refs')
    assert.deepEqual((await storeB.listRemoteAsync()).length, 2)

    const fetched = storeB.fetch(A)
    assert.deepEqual([fetched.refName, fetched.outcome], [ac.refName(A), 'created'])
    assert.deepEqual(storeB.readSession(A).prompts, [`prompt of ${A}`])
    assert.equal((await storeB.fetchAsync(A, 'origin')).outcome, 'up_to_date')
    assert.throws(() => storeB.fetch('01KVBJCWYA4YW6J5M9GP655HZQ'), (e) => e.code === 'not_found')
    await assert.rejects(storeB.fetchAsync('01KVBJCWYA4YW6J5M9GP655HZQ'), (e) => e.code === 'not_found')

    const all = await storeB.fetchAllAsync()
    assert.equal(all.ok, true)
    assert.deepEqual(all.fetched.map((f) => f.outcome).sort(), ['created', 'up_to_date'])
    assert.equal(storeB.fetchAll().fetched.every((f) => f.outcome === 'up_to_date'), true)
  })

  test(`a conflict stays queued with its code over ${kind}; nothing is lost`, async (t) => {
    const { clones: [a, b], git } = await team(t, kind)
    const storeA = new ac.CheckpointStore(a)
    const storeB = new ac.CheckpointStore(b)
    storeA.writeSession(A, 'same', { prompts: ["a's words"] })
    assert.equal(storeA.push().ok, true)
    storeB.writeSession(A, 'same', { prompts: ["b's words"] })
    storeB.writeSession(B, 'other')
    const before = git(b, 'rev-parse', ac.refName(A))
    const result = await storeB.pushAsync()
    assert.equal(result.ok, false)
    assert.deepEqual(result.pushed, [ac.refName(B)])
    assert.equal(result.queued.length, 1)
    assert.equal(result.queued[0].refName, ac.refName(A))
    assert.equal(result.queued[0].code, 'conflict')
    assert.match(result.queued[0].reason, /"same"/)
    assert.deepEqual(new ac.PushQueue(storeB.commonDir).peek(), [ac.refName(A)])
    assert.equal(git(b, 'rev-parse', ac.refName(A)), before)
    assert.throws(() => storeB.fetch(A), (e) => e.code === 'conflict')
  })

  test(`a dry run over ${kind} lists what the push then sends and changes nothing`, async (t) => {
    const { clones: [a], git } = await team(t, kind)
    const bare = path.join(path.dirname(a), 'remote.git')
    const store = new ac.CheckpointStore(a)
    store.writeSession(A, 's1', { agent: 'Claude Code', filesTouched: ['x.rs'], transcript: '{}\n' })
    assert.equal(store.push().ok, true)
    store.writeSession(B, 's2', { agent: 'Codex', filesTouched: ['y.rs', 'z.rs'], transcript: '{}\n' })
    const queue = new ac.PushQueue(store.commonDir)
    queue.enqueue(ac.refName(A)) // already on the remote
    const state = () => [queue.peek(), git(a, 'for-each-ref'), git(bare, 'for-each-ref')]
    const before = state()

    const plan = store.push('origin', { dryRun: true })
    assert.deepEqual(state(), before)
    assert.equal(plan.remote, 'origin')
    assert.deepEqual(plan.dropped, [])
    const [first, second] = plan.checkpoints
    assert.deepEqual([first.refName, first.checkpointId, first.onRemote, first.queued], [ac.refName(B), B, false, true])
    assert.deepEqual([first.sessionIds, first.agent, first.filesTouched], [['s2'], 'Codex', ['y.rs', 'z.rs']])
    assert.equal(first.commit, git(a, 'rev-parse', ac.refName(B)).trim())
    assert.ok(first.uploadBytes > 0)
    assert.equal(first.remoteCommit ?? null, null)
    assert.equal(first.damaged ?? null, null)
    assert.deepEqual([second.refName, second.onRemote, second.uploadBytes], [ac.refName(A), true, 0])
    assert.equal(plan.uploadBytes, first.uploadBytes)
    assert.deepEqual(plan.toSend, [ac.refName(B)])
    assert.deepEqual((await store.pushAsync('origin', { dryRun: true })).toSend, plan.toSend)
    assert.deepEqual(state(), before)

    const remoteBefore = new Set(git(bare, 'for-each-ref').split('\n'))
    const result = await store.pushAsync('origin', { dryRun: false })
    assert.equal(result.ok, true)
    const received = git(bare, 'for-each-ref').split('\n').filter((l) => !remoteBefore.has(l))
    assert.deepEqual(received.map((l) => l.split('\t')[1]), plan.toSend)
    assert.deepEqual(store.push(undefined, { dryRun: true }).checkpoints, [])
  })
}

test('an unreachable remote throws remote_unreachable and keeps the queue', async (t) => {
  const { tmp, git } = tempDir(t)
  const repo = path.join(tmp, 'a')
  fs.mkdirSync(repo)
  git(repo, 'init', '-q')
  git(repo, 'remote', 'add', 'origin', `git://127.0.0.1:${await freePort()}/remote.git`)
  const store = new ac.CheckpointStore(repo)
  store.writeSession(A, 's1')
  assert.throws(() => store.push(), (e) => e.code === 'remote_unreachable')
  await assert.rejects(store.pushAsync(), (e) => e.code === 'remote_unreachable')
  assert.deepEqual(new ac.PushQueue(store.commonDir).peek(), [ac.refName(A)])
  assert.throws(() => store.listRemote(), (e) => e.code === 'remote_unreachable')
  assert.throws(() => store.push('--upload-pack=touch /tmp/x'), (e) => e.code === 'invalid_argument')
})
