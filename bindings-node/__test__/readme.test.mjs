// The README's examples run as written (as ES modules importing the package
// by name, resolved through package.json "exports").

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** The `js` blocks of the README section `heading` (up to the next `## `), in order. */
function jsBlocks(heading) {
  const section = readme.split(`\n${heading}\n`)[1]?.split('\n## ')[0] ?? ''
  return [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1])
}

/** Runs `code` as an ES module next to this file; its stdout lines. */
function run(t, name, code) {
  const file = new URL(`./readme-${name}.tmp.mjs`, import.meta.url)
  writeFileSync(file, code)
  t.after(() => rmSync(file, { force: true }))
  return execFileSync(process.execPath, [file.pathname], { encoding: 'utf8' }).trim().split('\n')
}

test('README quick start runs and prints what its comments say', (t) => {
  const blocks = jsBlocks('## Quick start')
  assert.equal(blocks.length, 1, 'one js block in the quick start')
  const out = run(t, 'quickstart', blocks[0])
  assert.deepEqual(out, [
    "[ 'a.py: file', 'gen/new.py: new' ]",
    "true [ 'a.py', 'gen/new.py' ]",
    'true false',
    'true',
    'malformed_snapshot',
    'true path_escapes_root ../outside.txt',
  ])
})

test('README preview, redo, guard and sealing examples run as one script', (t) => {
  const blocks = jsBlocks('## Preview, redo, guard, sealing')
  assert.equal(blocks.length, 4, 'one js block per feature')
  const out = run(t, 'beyond', blocks.join('\n'))
  assert.deepEqual(out, [
    'a.py write',
    'b.py keep',
    'new.py remove',
    'old a',
    'true new a',
    "{ path: 'a.py', action: 'conflict', conflict: true }",
    "true [ 'a.py' ] human edit",
    'unauthenticated',
    'unauthenticated',
    'true',
  ])
})
