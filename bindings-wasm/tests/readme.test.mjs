// The wasm package's README examples run as written: each section's `js`
// blocks are one ES module, written next to this file (so that
// `../pkg/nodejs` is the package scripts/wasm built) and run in a fresh
// directory. The lines it shows as `//> ...` must be exactly what it prints.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const blocksPy = path.join(here, '..', '..', 'tests', 'readme', 'blocks.py')
const programs = JSON.parse(
  execFileSync('python3', [blocksPy, 'js', '--only', 'bindings-wasm/README.md'], { encoding: 'utf8' }),
)

test('the wasm README has examples', () => {
  assert.ok(programs.length > 0)
})

for (const [i, program] of programs.entries()) {
  test(`${program.file}:${program.line} (${program.section}) runs and prints what it shows`, (t) => {
    const file = path.join(here, `readme-${i}.tmp.mjs`)
    const cwd = mkdtempSync(path.join(tmpdir(), 'readme-'))
    writeFileSync(file, program.code)
    t.after(() => {
      rmSync(file, { force: true })
      rmSync(cwd, { recursive: true, force: true })
    })
    const out = execFileSync(process.execPath, [file], { cwd, encoding: 'utf8' })
    if (program.shown.length > 0) {
      assert.deepEqual(out.replace(/\n$/, '').split('\n'), program.shown)
    }
  })
}
