// The README's preview, redo, guard and sealing examples for the wasm-bindgen
// package run as written: its js blocks are one script, run from this folder
// (so that `../pkg/nodejs` is the package scripts/wasm built).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** The `js` blocks of the README subsection `heading` (up to the next heading), in order. */
function jsBlocks(heading) {
  const section = readme.split(`\n${heading}\n`)[1]?.split(/\n##+ /)[0] ?? ''
  return [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1])
}

test('README preview, redo, guard and sealing examples run as one script', (t) => {
  const blocks = jsBlocks('### In the wasm-bindgen package')
  assert.equal(blocks.length, 4, 'one js block per feature')
  const file = new URL('./readme-beyond.tmp.mjs', import.meta.url)
  writeFileSync(file, blocks.join('\n'))
  t.after(() => rmSync(file, { force: true }))
  const out = execFileSync(process.execPath, [file.pathname], { encoding: 'utf8' }).trim().split('\n')
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
