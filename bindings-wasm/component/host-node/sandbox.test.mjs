// The component under jco never reaches outside its preopen: `..`, absolute
// paths elsewhere and symlinks pointing out are refused with
// `path_escapes_root`; hostile snapshots write nothing outside; a sentinel
// directory beside the preopen hashes the same before and after.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

import { call, loadComponent } from './host.mjs'

const GUEST = '/sandbox'
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-checkpoint-sandbox-'))
process.on('exit', () => fs.rmSync(base, { recursive: true, force: true }))
const preopen = path.join(base, 'preopen')
const sentinel = path.join(base, 'sentinel')
fs.mkdirSync(path.join(sentinel, 'deep'), { recursive: true })
fs.writeFileSync(path.join(sentinel, 'secret.txt'), 'do not touch')
fs.writeFileSync(path.join(sentinel, 'deep', 'x'), 'x')
fs.mkdirSync(preopen)
fs.writeFileSync(path.join(preopen, 'inside.txt'), 'mine')
fs.symlinkSync('../sentinel', path.join(preopen, 'out'))
fs.symlinkSync(sentinel, path.join(preopen, 'abs'))
fs.symlinkSync('../sentinel/secret.txt', path.join(preopen, 'leaf'))

const c = await loadComponent({ [GUEST]: preopen })

/** SHA-256 over every path, kind, link target and file content under `root`. */
function fingerprint(root) {
  const hash = createHash('sha256')
  const walk = (dir, prefix) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name)
      const rel = `${prefix}${name}`
      const st = fs.lstatSync(full)
      hash.update(`${rel}\0`)
      if (st.isSymbolicLink()) hash.update(`link:${fs.readlinkSync(full)}`)
      else if (st.isDirectory()) walk(full, `${rel}/`)
      else hash.update(Buffer.concat([Buffer.from('file:'), fs.readFileSync(full)]))
    }
  }
  walk(root, '')
  return hash.digest('hex')
}

const options = { allowGitDir: false, maxFileBytes: undefined, key: undefined, recordRoot: true }
const before = fingerprint(sentinel)

test('escaping paths are refused with path_escapes_root', () => {
  for (const p of [
    '../sentinel/secret.txt',
    'a/../../sentinel/secret.txt',
    '/sentinel/secret.txt',
    '/sandbox/../sentinel/secret.txt',
    path.join(sentinel, 'secret.txt'),
    'out/secret.txt',
    'abs/secret.txt',
    'leaf',
  ]) {
    assert.throws(() => call(c.createCheckpoint, GUEST, [p], options), { code: 'path_escapes_root' }, p)
  }
})

test('a root outside the preopen cannot be opened', () => {
  for (const root of ['/sentinel', '/sandbox/../sentinel', sentinel]) {
    assert.throws(() => call(c.createCheckpoint, root, ['secret.txt'], options), (e) => typeof e.code === 'string', root)
  }
})

test('hostile snapshots write nothing outside', () => {
  const ro = {
    durable: true,
    allowGitDir: false,
    onConflict: 'overwrite',
    key: undefined,
    redo: true,
    restoreSetid: false,
    strictRoot: false,
    maxFileBytes: undefined,
  }
  const dotdot = '{"version":1,"entries":{"../sentinel/secret.txt":"cHduZWQ="},"created_dirs":[]}'
  const refused = call(c.rollback, GUEST, dotdot, ro)
  assert.equal(refused.valid, false)
  assert.equal(refused.error.code, 'malformed-snapshot')
  for (const key of ['out/secret.txt', 'abs/secret.txt', 'out/deep/x', 'out/new.txt']) {
    const text = `{"version":1,"entries":{"${key}":"cHduZWQ="},"created_dirs":[]}`
    const report = call(c.rollback, GUEST, text, ro)
    assert.equal(report.valid, true, key)
    assert.deepEqual(report.unrestored.map((u) => u.path), [key], key)
    // Refused by the plan, with the code the report gives the path; the redo
    // cannot carry what it could not look at.
    assert.deepEqual(
      report.plan.map((i) => [i.path, i.action, i.code]),
      [[key, 'refuse', 'not-a-directory']],
      key,
    )
    assert.deepEqual(report.unrestored.map((u) => u.code), ['not-a-directory'], key)
    assert.deepEqual(report.notInRedo.map((n) => n.path), [key], key)
  }
  const remove = call(c.rollback, GUEST, '{"version":1,"entries":{"out/secret.txt":null},"created_dirs":[]}', ro)
  assert.equal(remove.ok, false)
})

test('the preview and the guard only read, and never through a link', () => {
  // The preview refuses a key below a symlinked parent, the guard fails on
  // it; a link pointing out is recorded as a link, not as the sentinel's
  // content.
  const through = '{"version":1,"entries":{"out/secret.txt":"cHduZWQ="},"created_dirs":[]}'
  const plan = { allowGitDir: false, onConflict: 'skip', key: undefined, restoreSetid: false, strictRoot: false }
  const record = { allowGitDir: false, key: undefined }
  const items = call(c.planRollback, GUEST, through, plan)
  assert.deepEqual(
    items.map((i) => [i.path, i.action, i.code]),
    [['out/secret.txt', 'refuse', 'not-a-directory']],
  )
  assert.match(items[0].reason, /symlink/)
  assert.throws(() => call(c.recordApplied, GUEST, through, record), (e) => typeof e.code === 'string')
  const leaf = '{"version":1,"entries":{"leaf":"cHduZWQ="},"created_dirs":[]}'
  const recorded = call(c.recordApplied, GUEST, leaf, record)
  assert.ok(!recorded.includes(createHash('sha256').update('do not touch').digest('hex')), recorded)
})

test('the sentinel is unchanged', () => {
  assert.equal(fingerprint(sentinel), before)
  assert.equal(fs.readFileSync(path.join(preopen, 'inside.txt'), 'utf8'), 'mine')
})
