// CheckpointStore: the git store from Node — the shared store vectors, the
// host surface (camelCase, errors with .code, Async twins), real git as judge.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const ac = require('..')
const ULID = '01KVBJCWYA4YW6J5M9GP655HZN'
const VECTORS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tests', 'vectors')

function newRepo(t) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-store-'))
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

const cases = fs
  .readdirSync(VECTORS)
  .filter((f) => f.startsWith('store_') && f.endsWith('.json'))
  .flatMap((f) => JSON.parse(fs.readFileSync(path.join(VECTORS, f), 'utf8')).cases)

test('the store vectors are there', () => {
  assert.ok(cases.length >= 10)
})

for (const c of cases.filter((c) => c.op === 'write_sessions')) {
  test(`store vector: ${c.name}`, (t) => {
    const { repo, git } = newRepo(t)
    const store = new ac.CheckpointStore(repo, c.backend)
    let error = null
    for (const w of c.writes) {
      const { session_id: sessionId, ...fields } = w
      try {
        store.writeSession(c.checkpoint_id, sessionId, fields)
      } catch (e) {
        error = e.code
        break
      }
    }
    if (c.expect_error !== undefined) {
      assert.equal(error, c.expect_error)
      assert.equal(git('for-each-ref'), '')
      return
    }
    assert.equal(error, null)
    const [ref, prefix] =
      c.backend === 'git-refs'
        ? [ac.refName(c.checkpoint_id), '']
        : ['refs/heads/entire/checkpoints/v1', ac.checkpointPath(c.checkpoint_id) + '/']
    const files = {}
    for (const p of git('ls-tree', '-r', '--name-only', `${ref}:${prefix.replace(/\/$/, '')}`).split('\n').filter(Boolean)) {
      files[p] = git('cat-file', '-p', `${ref}:${prefix}${p}`)
    }
    assert.deepEqual(files, c.expect_files)
    const messages = git('log', '--format=%B%x00', ref).split('\0\n').filter(Boolean)
    assert.deepEqual(messages, c.expect_messages)
  })
}

test('write, read, list with camelCase fields; documents keep their stored names', (t) => {
  const { repo, git } = newRepo(t)
  const store = new ac.CheckpointStore(path.join(repo))
  assert.equal(store.backend, 'git-refs')
  const written = store.writeSession(ULID, 's1', {
    agent: 'Claude Code',
    prompts: ['one', 'two'],
    transcript: '{"type":"user"}\n',
    filesTouched: ['src/lib.rs'],
    tokenUsage: { input_tokens: 3, output_tokens: 4 },
    createdAt: '2026-01-02T03:04:05.5Z',
  })
  assert.equal(written.refName, ac.refName(ULID))
  assert.equal(written.sessionIndex, 0)
  assert.equal(written.snapshotCommit, null)
  assert.equal(git('rev-parse', written.refName).trim(), written.commit)
  const summary = store.read(ULID)
  assert.deepEqual(summary.files_touched, ['src/lib.rs'])
  assert.equal(summary.token_usage.output_tokens, 4)
  assert.equal(store.readRaw(ULID), git('cat-file', '-p', `${written.refName}:metadata.json`))
  const session = store.readSession(ULID)
  assert.deepEqual(session.prompts, ['one', 'two'])
  assert.ok(session.transcript instanceof Uint8Array)
  assert.equal(Buffer.from(session.transcript).toString(), '{"type":"user"}\n')
  assert.equal(session.metadata.created_at, '2026-01-02T03:04:05.5Z')
  const [info] = store.list()
  assert.equal(info.checkpointId, ULID)
  assert.deepEqual(info.sessionIds, ['s1'])
  assert.equal(info.backend, 'git-refs')
  assert.equal(info.agent, 'Claude Code')
})

test('errors carry their codes', (t) => {
  const { repo, git } = newRepo(t)
  const store = new ac.CheckpointStore(repo)
  assert.equal(thrown(() => new ac.CheckpointStore(os.tmpdir())).code, 'not_a_repository')
  assert.equal(thrown(() => new ac.CheckpointStore(repo, 'svn')).code, 'invalid_argument')
  assert.equal(thrown(() => store.writeSession('nope', 's1')).code, 'invalid_checkpoint_id')
  assert.equal(thrown(() => store.writeSession(ULID, '../x')).code, 'invalid_argument')
  assert.equal(thrown(() => store.writeSession(ULID, 's1', { noSuchField: 1 })).code, 'invalid_argument')
  assert.equal(thrown(() => store.writeSession(ULID, 's1', { snapshot: '{' })).code, 'malformed_snapshot')
  assert.equal(git('for-each-ref'), '')
  assert.equal(thrown(() => store.read(ULID)).code, 'not_found')
  store.writeSession(ULID, 's1', { prompts: ['only a prompt'] })
  // Written without a transcript: read back all the same, transcript null.
  const session = store.readSession(ULID, 0)
  assert.equal(session.transcript, null)
  assert.deepEqual(session.prompts, ['only a prompt'])
  assert.equal(session.metadata.session_id, 's1')
  assert.equal(thrown(() => store.rollback(ULID)).code, 'not_found')
  assert.equal(store.snapshot(ULID), null)
})

test('without a root, a snapshot of a subdirectory is refused (root_mismatch), nothing touched', async (t) => {
  const { repo } = newRepo(t)
  const sub = path.join(repo, 'sub')
  fs.mkdirSync(sub)
  fs.writeFileSync(path.join(repo, 'a.txt'), 'top')
  fs.writeFileSync(path.join(sub, 'a.txt'), 'sub')
  const snapshot = ac.createCheckpoint(sub, ['a.txt'])
  fs.writeFileSync(path.join(sub, 'a.txt'), 'edited')
  const store = new ac.CheckpointStore(repo)
  store.writeSession(ULID, 's1', { snapshot })
  assert.equal(thrown(() => store.rollback(ULID, undefined, { durable: false })).code, 'root_mismatch')
  assert.equal(thrown(() => store.planRollback(ULID)).code, 'root_mismatch')
  await assert.rejects(store.rollbackAsync(ULID), (e) => e.code === 'root_mismatch')
  await assert.rejects(store.planRollbackAsync(ULID), (e) => e.code === 'root_mismatch')
  assert.equal(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8'), 'top')
  assert.equal(fs.readFileSync(path.join(sub, 'a.txt'), 'utf8'), 'edited')
  assert.ok(store.rollback(ULID, sub, { durable: false }).ok)
  assert.equal(fs.readFileSync(path.join(sub, 'a.txt'), 'utf8'), 'sub')
})

test('async twins resolve to the same results and reject with codes', async (t) => {
  const { repo } = newRepo(t)
  const store = new ac.CheckpointStore(repo, 'git-branch')
  const id = 'a1b2c3d4e5f6'
  fs.writeFileSync(path.join(repo, 'a.txt'), 'before')
  const snapshot = ac.createCheckpoint(repo, ['a.txt', 'b.txt'])
  const written = await store.writeSessionAsync(id, 's1', { snapshot, transcript: '{}\n' })
  assert.ok(written.snapshotCommit)
  assert.equal(await store.snapshotAsync(id), snapshot)
  assert.equal((await store.readAsync(id)).checkpoint_id, id)
  assert.equal(await store.readRawAsync(id), store.readRaw(id))
  assert.equal(Buffer.from((await store.readSessionAsync(id, 0)).transcript).toString(), '{}\n')
  assert.deepEqual((await store.listAsync()).map((c) => c.checkpointId), [id])
  fs.writeFileSync(path.join(repo, 'a.txt'), 'after')
  fs.writeFileSync(path.join(repo, 'b.txt'), 'new')
  const plan = await store.planRollbackAsync(id)
  assert.deepEqual(plan.map((p) => [p.path, p.action]), [['a.txt', 'write'], ['b.txt', 'remove']])
  const report = await store.rollbackAsync(id, undefined, { durable: false })
  assert.ok(report.ok)
  assert.equal(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8'), 'before')
  assert.ok(!fs.existsSync(path.join(repo, 'b.txt')))
  const refused = store.rollback(id, repo, { key: 'k' })
  assert.equal(refused.valid, false)
  assert.equal(refused.errorCode, 'unauthenticated')

  await store.backfillTranscriptAsync(id, 's1', Buffer.from('{"final":1}\n'), ['p'])
  await store.backfillSummaryAsync(id, 's1', { intent: 'x', outcome: 'y', friction: ['slow'] })
  await store.backfillAttributionAsync(id, { calculated_at: '2026-01-02T03:04:05Z', agent_lines: 2, agent_percentage: 50 })
  const session = store.readSession(id)
  assert.equal(Buffer.from(session.transcript).toString(), '{"final":1}\n')
  assert.deepEqual(session.metadata.summary.friction, ['slow'])
  assert.equal(store.read(id).combined_attribution.agent_percentage, 50)

  await assert.rejects(store.readAsync('ffffffffffff'), (e) => e.code === 'not_found')
  await assert.rejects(store.writeSessionAsync(id, 'a/b'), (e) => e.code === 'invalid_argument')
})
