// CheckpointStore's shadow branches from Node: steps, log, rewind with redo,
// condense, clean, errors with .code, and the Async twins.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const require = createRequire(import.meta.url)
const ac = require('..')
const ULID = '01KVBJCWYA4YW6J5M9GP655HZN'

function newRepo(t) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-shadow-'))
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }))
  const repo = path.join(tmp, 'repo')
  const home = path.join(tmp, 'home')
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true })
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
  fs.writeFileSync(path.join(repo, 'src', 'lib.rs'), 'pub fn answer() -> u32 { 41 }\n')
  fs.writeFileSync(path.join(repo, '.gitignore'), '.env\n')
  git('add', '-A')
  git('commit', '-q', '-m', 'base')
  return { repo, tmp, git }
}

function thrown(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  assert.fail('expected a throw')
}

const read = (repo, p) => fs.readFileSync(path.join(repo, p), 'utf8')

test('steps, log, rewind and its redo', (t) => {
  const { repo } = newRepo(t)
  const store = new ac.CheckpointStore(repo)
  fs.writeFileSync(path.join(repo, 'notes.txt'), 'untracked before the session\n')
  const first = store.shadowStep('s1', { message: 'start' })
  assert.equal(first.skipped, false)
  assert.equal(first.first, true)
  assert.equal(first.branch, store.shadowBranch())
  assert.ok(first.branch.endsWith('-e3b0c4'))
  fs.writeFileSync(path.join(repo, 'src', 'lib.rs'), 'changed\n')
  fs.writeFileSync(path.join(repo, 'src', 'new.rs'), 'new\n')
  fs.writeFileSync(path.join(repo, '.env'), 'API_KEY=1\n')
  const second = store.shadowStep('s1', { files: ['src/lib.rs', 'src/new.rs', '.env'], message: 'edit' })
  assert.deepEqual(second.leftOut, ['.env'])
  assert.equal(store.shadowStep('s1', { files: ['src/lib.rs'] }).skipped, true)

  const log = store.shadowLog({ sessionId: 's1' })
  assert.deepEqual(log.map((s) => s.message), ['edit', 'start'])
  assert.equal(log[0].commit, second.commit)
  assert.ok(log[0].timestamp.endsWith('Z'))
  assert.equal(store.shadowLog({ sessionId: 's1', limit: 1 }).length, 1)
  assert.equal(store.shadowBranches()[0].tip, second.commit)

  fs.writeFileSync(path.join(repo, 'notes.txt'), "the user's edit\n")
  const plan = store.shadowRewindPlan(first.commit.slice(0, 10))
  assert.deepEqual(plan.map((i) => [i.path, i.action]), [['src/lib.rs', 'write'], ['src/new.rs', 'remove']])
  assert.deepEqual(plan.map((i) => i.diff), [null, null])
  const diffed = store.shadowRewindPlan(first.commit, undefined, { diff: true, diffContext: 0 })
  assert.deepEqual(diffed.map((i) => i.diff), [
    '--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-changed\n+pub fn answer() -> u32 { 41 }\n',
    'remove file of 4 bytes',
  ])
  assert.throws(() => store.shadowRewindPlan(first.commit, undefined, { diffContext: -1 }), RangeError)
  const report = store.shadowRewind(first.commit, undefined, { durable: false })
  assert.equal(report.ok, true)
  assert.equal(read(repo, 'src/lib.rs'), 'pub fn answer() -> u32 { 41 }\n')
  assert.equal(fs.existsSync(path.join(repo, 'src', 'new.rs')), false)
  assert.equal(read(repo, 'notes.txt'), "the user's edit\n")
  assert.equal(read(repo, '.env'), 'API_KEY=1\n')
  assert.equal(ac.rollback(repo, report.redo).ok, true)
  assert.equal(read(repo, 'src/lib.rs'), 'changed\n')
  assert.equal(read(repo, 'src/new.rs'), 'new\n')
})

test('the Async twins, metadata, task steps, condense and clean', async (t) => {
  const { repo, tmp } = newRepo(t)
  const store = new ac.CheckpointStore(repo)
  const meta = path.join(tmp, 'meta')
  fs.mkdirSync(meta)
  fs.writeFileSync(path.join(meta, 'full.jsonl'), '{"type":"user","text":"hi"}\n')
  fs.writeFileSync(path.join(meta, 'prompt.txt'), 'do it')
  const first = await store.shadowStepAsync('s1', { metadataDir: meta })
  assert.equal(Buffer.from(await store.shadowTranscriptAsync(first.commit)).toString(), '{"type":"user","text":"hi"}\n')
  assert.equal(Buffer.from(store.shadowTranscript(first.commit)).toString(), '{"type":"user","text":"hi"}\n')
  fs.writeFileSync(path.join(repo, 'src', 'lib.rs'), 'by a subagent\n')
  const task = await store.shadowStepAsync('s1', { files: ['src/lib.rs'], task: 'toolu_1', agentId: 'a1' })
  const [top] = await store.shadowLogAsync({ limit: 1 })
  assert.equal(top.commit, task.commit)
  assert.equal(top.isTask, true)
  assert.equal(top.toolUseId, 'toolu_1')
  assert.equal((await store.shadowBranchesAsync()).length, 1)
  const plan = await store.shadowRewindPlanAsync(first.commit, undefined, { diff: true })
  assert.deepEqual(plan.map((i) => [i.path, i.diffSummary]), [['src/lib.rs', '+1 -1']])
  const report = await store.shadowRewindAsync(first.commit)
  assert.equal(report.ok, true)
  const done = await store.shadowCondenseAsync('s1', ULID, { agent: 'Claude Code' })
  assert.equal(done.steps, 2)
  assert.equal(done.branchDeleted, true)
  assert.deepEqual(done.filesTouched, ['src/lib.rs'])
  assert.deepEqual(store.readSession(ULID, 0).prompts, ['do it'])
  assert.deepEqual(await store.shadowCleanAsync(), [])
  assert.deepEqual(store.shadowClean(), [])
})

test('errors carry their codes', async (t) => {
  const { repo } = newRepo(t)
  const store = new ac.CheckpointStore(repo)
  assert.equal(thrown(() => store.shadowStep('a/b')).code, 'invalid_argument')
  assert.equal(thrown(() => store.shadowStep('s', { message: 'x\nEntire-Session: other' })).code, 'invalid_argument')
  assert.equal(thrown(() => store.shadowStep('s', { files: ['../x'] })).code, 'invalid_path')
  assert.equal(thrown(() => store.shadowRewind('abcdef12')).code, 'not_found')
  assert.equal(thrown(() => store.shadowCondense('nobody', ULID)).code, 'not_found')
  await assert.rejects(store.shadowRewindAsync('abcdef12'), (e) => e.code === 'not_found')
})

test('shadowStep takes maxFileBytes and lists larger untracked files in tooLarge', async (t) => {
  const { repo } = newRepo(t)
  const store = new ac.CheckpointStore(repo)
  store.shadowStep('s1')
  fs.writeFileSync(path.join(repo, 'data.bin'), 'd'.repeat(100))
  const over = store.shadowStep('s1', { files: ['data.bin'], maxFileBytes: 99 })
  assert.deepEqual(over.tooLarge, [{ path: 'data.bin', size: 100 }])
  const overAsync = await store.shadowStepAsync('s1', { files: ['data.bin'], maxFileBytes: 99 })
  assert.deepEqual(overAsync.tooLarge, [{ path: 'data.bin', size: 100 }])
  const taken = store.shadowStep('s1', { files: ['data.bin'], maxFileBytes: 100 })
  assert.deepEqual(taken.tooLarge, [])
  assert.equal(taken.skipped, false)
  assert.equal(thrown(() => store.shadowStep('s1', { maxFileBytes: -1 })).code, 'invalid_argument')
})
