// new CheckpointStore(path, backend, { signCommits }): the store option
// overrides git's commit.gpgSign both ways. The signer is a stand-in for
// ssh-keygen writing a fixed SSH-armoured signature (no key needed).

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

function repoWithFakeSigner(t) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-sign-'))
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }))
  const repo = path.join(tmp, 'repo')
  fs.mkdirSync(repo)
  const git = (...args) =>
    execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' } })
  const signer = path.join(tmp, 'fake-ssh-keygen')
  fs.writeFileSync(
    signer,
    "#!/bin/sh\nfor last; do :; done\nprintf -- '-----BEGIN SSH SIGNATURE-----\\nfake\\n-----END SSH SIGNATURE-----\\n' > \"$last.sig\"\n",
    { mode: 0o755 },
  )
  const key = path.join(tmp, 'key')
  fs.writeFileSync(key, 'not a real key\n')
  git('init', '-q')
  git('config', 'user.name', 'Test User')
  git('config', 'user.email', 'test@example.com')
  git('config', 'gpg.format', 'ssh')
  git('config', 'gpg.ssh.program', signer)
  git('config', 'user.signingKey', key)
  git('config', 'commit.gpgSign', 'false')
  return { repo, git }
}

test('signCommits overrides commit.gpgSign both ways', (t) => {
  const { repo, git } = repoWithFakeSigner(t)
  const signed = (commit) => git('cat-file', 'commit', commit).includes('\ngpgsig ')
  assert.equal(signed(new ac.CheckpointStore(repo).writeSession(ULID, 's1').commit), false)
  assert.equal(signed(new ac.CheckpointStore(repo, 'git-refs', { signCommits: true }).writeSession(ULID, 's2').commit), true)
  git('config', 'commit.gpgSign', 'true')
  assert.equal(signed(new ac.CheckpointStore(repo, 'git-refs', {}).writeSession(ULID, 's3').commit), true)
  assert.equal(signed(new ac.CheckpointStore(repo, undefined, { signCommits: false }).writeSession(ULID, 's4').commit), false)
})
