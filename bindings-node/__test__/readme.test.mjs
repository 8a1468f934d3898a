// Every JavaScript example in the repository's Markdown files (but the wasm
// package's, which bindings-wasm/tests/readme.test.mjs runs against that
// package) runs as written: an ES module importing the package by name
// (resolved through package.json "exports"), run in a fresh directory. The
// lines it shows as `//> ...` must be exactly what it prints.

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
  execFileSync('python3', [blocksPy, 'js', '--skip', 'bindings-wasm/*'], { encoding: 'utf8' }),
)

test('the top-level and Node READMEs have examples', () => {
  const files = new Set(programs.map((p) => p.file))
  assert.ok(files.has('README.md') && files.has('bindings-node/README.md'), [...files].join(', '))
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
