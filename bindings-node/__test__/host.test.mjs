// The host-facing surface of the Node package: argument forms, errors,
// async variants, module formats. The shared vectors (tests/js) cover semantics.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const require = createRequire(import.meta.url)
const ac = require('..')

/** What a plan item says about its change when diffs were not asked for. */
const NO_DIFF = { diff: null, diffSummary: null, hunks: [] }

/** A temp dir `<tmp>/root` with `files` (path -> text); removed after the test. */
function tempRoot(t, files = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-host-'))
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }))
  const root = path.join(tmp, 'root')
  fs.mkdirSync(root)
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  return root
}

const read = (root, rel) => fs.readFileSync(path.join(root, rel), 'utf8')

/** The thrown value of `fn`, failing the test if it does not throw. */
function thrown(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  assert.fail('expected a throw')
}

test('require and import load the same package', async () => {
  const esm = await import('@agent-checkpoint/node')
  assert.equal(esm.createCheckpoint, ac.createCheckpoint)
  const { rollbackAsync, PushQueue } = await import('@agent-checkpoint/node')
  assert.equal(rollbackAsync, ac.rollbackAsync)
  assert.equal(PushQueue, ac.PushQueue)
})

test('constants', () => {
  assert.equal(ac.PROMPT_SEPARATOR, '\n\n---\n\n')
  assert.equal(ac.CHECKPOINT_REF_PREFIX, 'refs/entire/checkpoints/')
  assert.equal(ac.SHADOW_BRANCH_PREFIX, 'entire/')
  assert.equal(ac.METADATA_BRANCH, 'entire/checkpoints/v1')
})

test('the error code vocabulary is the core one, spelled snake_case', () => {
  // The TypeScript union (the napi enum) lists exactly the core's codes, in order.
  assert.deepEqual(Object.values(ac.ErrorCode), ac.errorCodes())
  assert.ok(ac.errorCodes().includes('path_escapes_root'))
  assert.equal(ac.errorCategory('ref_busy'), 'conflict')
  assert.equal(ac.errorCategory('too_large'), 'invalid_input')
  assert.equal(ac.errorCategory('nope'), null)
})

test('operations are strings or objects with a file property, extra properties ignored', (t) => {
  const root = tempRoot(t, { 'a.txt': 'A', 'b.txt': 'B' })
  const fromStrings = ac.createCheckpoint(root, ['a.txt', 'b.txt'])
  const fromObjects = ac.createCheckpoint(root, [{ file: 'a.txt', kind: 'replace' }, { file: './b.txt' }])
  const mixed = ac.createCheckpoint(root, ['a.txt', { file: 'b.txt' }])
  assert.equal(fromObjects, fromStrings)
  assert.equal(mixed, fromStrings)
  assert.deepEqual(ac.snapshotPaths(fromStrings), ['a.txt', 'b.txt'])
})

test('a single path for operations is a TypeError that names the argument', (t) => {
  const root = tempRoot(t, { 'a.txt': 'A' })
  for (const call of [() => ac.createCheckpoint(root, 'a.txt'), () => ac.createCheckpointAsync(root, 'a.txt')]) {
    const err = thrown(call)
    assert.ok(err instanceof TypeError, String(err))
    assert.equal(err.message, 'operations must be an array of paths or operations, not a single path')
    assert.equal(err.code, 'InvalidArg')
  }
  assert.match(thrown(() => ac.createCheckpoint(root, 7)).message, /^operations must be an array .*, not number$/)
})

test('an operation without a file property is a napi argument error', (t) => {
  const root = tempRoot(t)
  const err = thrown(() => ac.createCheckpoint(root, [{ path: 'a.txt' }]))
  assert.ok(err instanceof Error)
  assert.equal(err.code, 'InvalidArg')
})

test('capture then rollback restores the file and removes the new one', (t) => {
  const root = tempRoot(t, { 'src/a.py': 'old\n' })
  const snap = ac.createCheckpoint(root, ['src/a.py', 'gen/new.py'])
  fs.writeFileSync(path.join(root, 'src/a.py'), 'new\n')
  fs.mkdirSync(path.join(root, 'gen'))
  fs.writeFileSync(path.join(root, 'gen/new.py'), 'x')
  const report = ac.rollback(root, snap)
  assert.deepEqual({ ...report, redo: typeof report.redo }, {
    restored: ['gen/new.py', 'src/a.py'],
    unrestored: [],
    conflicts: [],
    valid: true,
    ok: true,
    errorCode: null,
    error: null,
    plan: [
      { path: 'gen', action: 'rmdir', conflict: false, code: null, reason: null, ...NO_DIFF },
      { path: 'gen/new.py', action: 'remove', conflict: false, code: null, reason: null, ...NO_DIFF },
      { path: 'src/a.py', action: 'write', conflict: false, code: null, reason: null, ...NO_DIFF },
    ],
    redo: 'string',
    notInRedo: [],
    notCovered: [],
    otherRoot: null,
  })
  assert.equal(read(root, 'src/a.py'), 'old\n')
  assert.equal(fs.existsSync(path.join(root, 'gen')), false)
})

test('capture errors are Error objects with code and path', (t) => {
  const root = tempRoot(t, { 'dir/x': 'x' })
  const escape = thrown(() => ac.createCheckpoint(root, ['../outside.txt']))
  assert.ok(escape instanceof Error)
  assert.equal(escape.code, 'path_escapes_root')
  assert.equal(escape.path, '../outside.txt')
  assert.match(escape.message, /escapes the root/)

  const dir = thrown(() => ac.createCheckpoint(root, ['dir']))
  assert.equal(dir.code, 'not_a_file')
  assert.equal(dir.path, 'dir')

  const git = thrown(() => ac.createCheckpoint(root, ['.git/config']))
  assert.equal(git.code, 'invalid_path')
  assert.doesNotThrow(() => ac.createCheckpoint(root, ['.git/config'], { allowGitDir: true }))
})

test('maxFileBytes skips a larger file, and its rollback says it is not covered', (t) => {
  const root = tempRoot(t, { 'big.bin': '0123456789' })
  const skipped = ac.createCheckpoint(root, ['big.bin'], { maxFileBytes: 9 })
  assert.deepEqual(JSON.parse(skipped).skipped, { 'big.bin': 10 })
  assert.deepEqual(ac.snapshotPaths(skipped), [])
  fs.writeFileSync(path.join(root, 'big.bin'), 'changed by the batch')
  const report = ac.rollback(root, skipped)
  assert.equal(report.ok, true)
  assert.deepEqual(report.notCovered, [{ path: 'big.bin', size: 10, code: 'too_large' }])
  assert.equal(fs.readFileSync(path.join(root, 'big.bin'), 'utf8'), 'changed by the batch')
  fs.writeFileSync(path.join(root, 'big.bin'), '0123456789')
  assert.deepEqual(ac.snapshotPaths(ac.createCheckpoint(root, ['big.bin'], { maxFileBytes: 10 })), ['big.bin'])
  for (const bad of [-1, 1.5, Number.NaN]) {
    const err = thrown(() => ac.createCheckpoint(root, ['big.bin'], { maxFileBytes: bad }))
    assert.ok(err instanceof RangeError)
    assert.equal(err.code, 'invalid_argument')
  }
})

test('a missing root throws not_found with the path and errno', (t) => {
  const missing = path.join(tempRoot(t), 'nope')
  for (const call of [() => ac.createCheckpoint(missing, ['a']), () => ac.rollback(missing, '{}')]) {
    const err = thrown(call)
    assert.ok(err instanceof Error)
    assert.equal(err.code, 'not_found')
    assert.equal(err.path, missing)
    assert.equal(err.errno, os.constants.errno.ENOENT)
  }
})

test('rollback never throws for a malformed snapshot', (t) => {
  const root = tempRoot(t, { 'keep.txt': 'safe' })
  for (const [text, code] of [
    ['this is not json', 'malformed_snapshot'],
    ['{"version":2,"entries":{}}', 'unsupported_version'],
    ['{"version":1,"entries":{"../x":null}}', 'malformed_snapshot'],
  ]) {
    const report = ac.rollback(root, text)
    assert.equal(report.valid, false)
    assert.equal(report.ok, false)
    assert.equal(report.errorCode, code)
    assert.equal(typeof report.error, 'string')
    assert.deepEqual(report.restored, [])
    assert.deepEqual(report.conflicts, [])
    assert.equal(report.redo, null)
  }
  assert.equal(read(root, 'keep.txt'), 'safe')
})

test('rollback options: durable false still restores; allowGitDir gates .git keys', (t) => {
  const root = tempRoot(t, { 'a.txt': 'A', '.git/config': 'cfg' })
  const snap = ac.createCheckpoint(root, ['a.txt'])
  fs.writeFileSync(path.join(root, 'a.txt'), 'changed')
  assert.equal(ac.rollback(root, snap, { durable: false }).ok, true)
  assert.equal(read(root, 'a.txt'), 'A')

  const gitSnap = ac.createCheckpoint(root, ['.git/config'], { allowGitDir: true })
  fs.writeFileSync(path.join(root, '.git/config'), 'changed')
  assert.equal(ac.rollback(root, gitSnap).errorCode, 'invalid_path')
  assert.equal(read(root, '.git/config'), 'changed')
  assert.equal(ac.rollback(root, gitSnap, { allowGitDir: true }).ok, true)
  assert.equal(read(root, '.git/config'), 'cfg')
})

test('an unrestorable path is reported with its reason, never thrown', (t) => {
  const root = tempRoot(t, { 'd/a.txt': 'A' })
  const snap = ac.createCheckpoint(root, ['d/a.txt'])
  fs.rmSync(path.join(root, 'd'), { recursive: true })
  fs.writeFileSync(path.join(root, 'd'), 'a file where the directory was')
  const report = ac.rollback(root, snap)
  assert.equal(report.valid, true)
  assert.equal(report.ok, false)
  assert.deepEqual(report.unrestored.map((u) => [u.path, u.code]), [['d/a.txt', 'not_a_directory']])
  assert.match(report.unrestored[0].reason, /not a directory/)
  assert.deepEqual(ac.planRollback(root, snap).map((i) => [i.path, i.action, i.code]), [
    ['d/a.txt', 'refuse', 'not_a_directory'],
  ])
})

test('async variants return what the sync ones return', async (t) => {
  const root = tempRoot(t, { 'a.txt': 'A', 'sub/b.txt': 'B' })
  const ops = ['a.txt', { file: 'sub/b.txt' }, 'new/c.txt']
  const sync = ac.createCheckpoint(root, ops)
  const pending = ac.createCheckpointAsync(root, ops)
  assert.ok(pending instanceof Promise)
  assert.equal(await pending, sync)

  fs.writeFileSync(path.join(root, 'a.txt'), 'changed')
  const asyncReport = await ac.rollbackAsync(root, sync)
  fs.writeFileSync(path.join(root, 'a.txt'), 'changed')
  assert.deepEqual(asyncReport, ac.rollback(root, sync))
  assert.equal(read(root, 'a.txt'), 'A')

  assert.deepEqual(await ac.rollbackAsync(root, 'nope'), ac.rollback(root, 'nope'))
})

test('async errors reject with the same Error as the sync throw', async (t) => {
  const root = tempRoot(t)
  const sync = thrown(() => ac.createCheckpoint(root, ['../x']))
  await assert.rejects(ac.createCheckpointAsync(root, ['../x']), (err) => {
    assert.ok(err instanceof Error)
    assert.equal(err.code, sync.code)
    assert.equal(err.path, sync.path)
    assert.equal(err.message, sync.message)
    return true
  })
  await assert.rejects(ac.rollbackAsync(path.join(root, 'missing'), '{}'), { code: 'not_found' })
})

test('inspectSnapshot returns camelCase items and throws on a malformed snapshot', (t) => {
  const root = tempRoot(t, { 'a.py': 'hello' })
  fs.symlinkSync('a.py', path.join(root, 'cur'))
  const snap = ac.createCheckpoint(root, ['a.py', 'cur', 'gen/n.py'])
  const items = ac.inspectSnapshot(snap)
  assert.deepEqual(items.map((i) => [i.path, i.kind, i.size, i.linkTarget]), [
    ['a.py', 'file', 5, null],
    ['cur', 'link', null, 'a.py'],
    ['gen/n.py', 'new', null, null],
  ])
  assert.equal(items[0].mode, fs.statSync(path.join(root, 'a.py')).mode & 0o7777)
  assert.equal(thrown(() => ac.inspectSnapshot('[]')).code, 'malformed_snapshot')
  assert.deepEqual(ac.snapshotPaths('[]'), [])
})

test('IDs: kinds, validation, minting', () => {
  assert.equal(ac.checkpointIdKind('a1b2c3d4e5f6'), 'legacy')
  assert.equal(ac.checkpointIdKind('nope'), 'unknown')
  assert.equal(ac.validateCheckpointId('a1b2c3d4e5f6'), 'a1b2c3d4e5f6')
  const bad = thrown(() => ac.validateCheckpointId('NOPE'))
  assert.ok(bad instanceof Error)
  assert.equal(bad.code, 'invalid_checkpoint_id')

  const legacy = ac.newCheckpointId()
  assert.match(legacy, /^[0-9a-f]{12}$/)
  assert.notEqual(ac.newCheckpointId(), legacy)

  const before = Date.now()
  const now = ac.newUlid()
  assert.equal(ac.checkpointIdKind(now), 'ulid')
  assert.ok(ac.ulidTimestampMs(now) >= before)
  assert.equal(ac.ulidTimestampMs(ac.newUlid(1234567890123)), 1234567890123)
  assert.equal(ac.ulidTimestampMs(ac.newUlid(undefined)) >= before, true)
  assert.equal(thrown(() => ac.newUlid(2 ** 48)).code, 'too_large')
  assert.equal(thrown(() => ac.newUlid(-5)).code, 'invalid_argument')
  assert.equal(ac.ulidTimestampMs('a1b2c3d4e5f6'), null)
  assert.equal(ac.displayShort(now), now)
  assert.equal(ac.checkpointPath('a1b2c3d4e5f6'), 'a1/b2c3d4e5f6')
  assert.equal(ac.shardFor('a1b2c3d4e5f6'), 'f6')
})

test('refs and shadow branches', () => {
  assert.equal(ac.refName('a1b2c3d4e5f6'), 'refs/entire/checkpoints/f6/a1b2c3d4e5f6')
  assert.equal(thrown(() => ac.refName('')).code, 'invalid_checkpoint_id')
  assert.equal(ac.parseRef('refs/entire/checkpoints/f6/a1b2c3d4e5f6'), 'a1b2c3d4e5f6')
  assert.equal(ac.parseRef('refs/heads/main'), null)

  assert.equal(ac.shadowBranchName('abc1234def'), 'entire/abc1234-e3b0c4')
  assert.equal(ac.shadowBranchName('abc1234def', ''), 'entire/abc1234-e3b0c4')
  assert.equal(ac.shadowBranchName('abc1234def', 'wt'), `entire/abc1234-${ac.hashWorktreeId('wt')}`)
  assert.deepEqual(ac.parseShadowBranchName('entire/abc1234-e3b0c4'), { commitPrefix: 'abc1234', worktreeHash: 'e3b0c4' })
  assert.equal(ac.parseShadowBranchName('main'), null)
  assert.equal(ac.isShadowBranch('entire/abc1234-e3b0c4'), true)
  assert.equal(ac.isShadowBranch(ac.METADATA_BRANCH), false)
})

test('prompts', () => {
  assert.deepEqual(ac.splitPrompts(ac.joinPrompts(['a', 'b'])), ['a', 'b'])
  assert.deepEqual(ac.splitPrompts(''), [])
  assert.equal(ac.joinPrompts([]), '')
})

test('PushQueue: enqueue, drain, peek, remove, path', (t) => {
  const dir = tempRoot(t)
  const q = new ac.PushQueue(dir)
  assert.equal(q.path, path.join(dir, 'entire-checkpoint-push-queue.jsonl'))
  assert.equal(q.directory, dir)
  const a = ac.refName('a1b2c3d4e5f6')
  const b = ac.refName('0123456789ab')
  q.enqueue(a)
  q.enqueueAll([b, a])
  assert.deepEqual(q.peek(), [a, b])
  assert.equal(fs.readFileSync(q.path, 'utf8').split('\n').filter(Boolean).length, 3)
  assert.deepEqual(q.drain(), [a, b])
  assert.equal(fs.readFileSync(q.path, 'utf8'), `{"ref":"${a}"}\n{"ref":"${b}"}\n`)
  q.remove([a])
  assert.deepEqual(q.drain(), [b])
  q.remove([b])
  assert.equal(fs.existsSync(q.path), false)

  const bad = thrown(() => q.enqueueAll([a, 'not a ref']))
  assert.ok(bad instanceof Error)
  assert.equal(bad.code, 'invalid_ref_name')
  assert.deepEqual(q.peek(), [])
})

test('PushQueue async twins: the same queue, off the JS thread, rejecting with the same codes', async (t) => {
  const dir = tempRoot(t)
  const q = new ac.PushQueue(dir)
  const a = ac.refName('a1b2c3d4e5f6')
  const b = ac.refName('0123456789ab')
  const pending = q.enqueueAsync(a)
  assert.ok(pending instanceof Promise)
  assert.equal(await pending, undefined)
  await q.enqueueAllAsync([b, a])
  assert.deepEqual(await q.peekAsync(), [a, b])
  assert.deepEqual(q.peek(), [a, b], 'the sync twin sees what the async one wrote')
  assert.deepEqual(await q.drainAsync(), [a, b])
  await q.removeAsync([a])
  assert.deepEqual(await q.drainAsync(), [b])
  await assert.rejects(q.enqueueAllAsync([a, 'not a ref']), (e) => e instanceof Error && e.code === 'invalid_ref_name')
  assert.deepEqual(q.peek(), [b], 'nothing written when one ref is invalid')
  const missing = new ac.PushQueue(path.join(dir, 'missing'))
  await assert.rejects(missing.enqueueAsync(a), (e) => e.code === 'not_found' && typeof e.path === 'string')
})

test('PushQueue in a missing directory: reads are empty, writes throw not_found', (t) => {
  const q = new ac.PushQueue(path.join(tempRoot(t), 'missing'))
  assert.deepEqual(q.drain(), [])
  const err = thrown(() => q.enqueue(ac.refName('a1b2c3d4e5f6')))
  assert.equal(err.code, 'not_found')
  assert.equal(typeof err.path, 'string')
})
