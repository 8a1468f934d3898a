// The README's quick start runs as written (as an ES module importing the
// package by name, resolved through package.json "exports").

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'

test('README quick start runs and prints what its comments say', (t) => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const block = readme.split('## Quick start')[1].match(/```js\n([\s\S]*?)```/)
  assert.ok(block, 'no js block in the quick start')
  const file = new URL('./readme-quickstart.tmp.mjs', import.meta.url)
  writeFileSync(file, block[1])
  t.after(() => rmSync(file, { force: true }))
  const out = execFileSync(process.execPath, [file.pathname], { encoding: 'utf8' }).trim().split('\n')
  assert.deepEqual(out, [
    "[ 'a.py: file', 'gen/new.py: new' ]",
    "true [ 'a.py', 'gen/new.py' ]",
    'true false',
    'true',
    'malformed_snapshot',
    'true path_escapes_root ../outside.txt',
  ])
})
