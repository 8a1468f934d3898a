// The example page (examples/browser/) in headless Chromium, driven as a
// user would: buttons and fields. On each backend (OPFS in a dedicated
// Worker, MemoryFs on the main thread): sample files, capture, a batch of
// edits, a preview that touches nothing, the rollback and its report, then
// the hostile cases (an escaping path, a malformed and a tampered snapshot)
// that must be refused and change nothing. A screenshot of the page after
// the rollback is kept in $TEST_ARTIFACTS (default tests/browser/artifacts/).
//
//   node --test tests/browser/    (from bindings-wasm/, after scripts/wasm built pkg/web)

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { openBrowser } from './harness.mjs'

const ARTIFACTS = process.env.TEST_ARTIFACTS
  ? path.resolve(process.env.TEST_ARTIFACTS)
  : path.join(path.dirname(fileURLToPath(import.meta.url)), 'artifacts')

const SAMPLE = {
  'notes/todo.txt': 'ship the demo\n',
  'src/app.js': 'console.log("hello")\n',
  'src/util.js': 'export const two = 1 + 1\n',
}
/** The sample as the file table shows it: directories too, sorted. */
const SAMPLE_TREE = { notes: null, 'notes/todo.txt': SAMPLE['notes/todo.txt'], src: null, ...SAMPLE }
const sorted = (tree) => Object.fromEntries(Object.entries(tree).sort(([a], [b]) => (a < b ? -1 : 1)))

let session
before(async () => {
  session = await openBrowser()
})
after(() => session?.close())

/** The file table: path -> text (`null` for a directory). */
async function tree(page) {
  return page.$$eval('#files tbody tr[data-path]', (rows) =>
    Object.fromEntries(rows.map((r) => [r.dataset.path, r.dataset.kind === 'dir' ? null : r.querySelector('.text').textContent])),
  )
}

/** The report panel: kind, ok, verdict text and the data shown as JSON. */
async function report(page) {
  return page.evaluate(() => ({
    kind: document.querySelector('#report').dataset.kind,
    ok: document.querySelector('#report').dataset.ok === 'true',
    verdict: document.querySelector('#verdict').textContent,
    data: JSON.parse(document.querySelector('#report-json').textContent || 'null'),
  }))
}

/** Clicks a button and waits until the page has finished that action. */
async function click(page, selector) {
  const seq = await page.evaluate(() => Number(document.body.dataset.seq ?? 0))
  await page.click(selector)
  await page.waitForFunction((seq) => Number(document.body.dataset.seq ?? 0) > seq, { timeout: 20_000 }, seq)
  assert.deepEqual(page.problems, [], 'the page logged errors')
}

async function fill(page, selector, value) {
  await page.$eval(selector, (element, value) => (element.value = value), value)
}

async function openExample(backend) {
  const page = await session.open(`/examples/browser/?fs=${backend}`)
  await page.setViewport({ width: 1100, height: 760 })
  await page.waitForFunction(() => document.body.dataset.ready !== undefined, { timeout: 20_000 })
  const ready = await page.evaluate(() => document.body.dataset.ready)
  if (ready !== 'true') assert.fail(`the page did not start: ${(await report(page)).verdict} ${page.problems.join('; ')}`)
  return page
}

for (const backend of ['opfs', 'memory']) {
  describe(`example page on ${backend}`, () => {
    let page
    before(async () => {
      page = await openExample(backend)
      await click(page, '#clear')
      await click(page, '#sample')
    })

    test('the backend is the one asked for', async () => {
      const status = await page.$eval('#status', (e) => e.textContent)
      assert.match(status, backend === 'opfs' ? /^OPFS in a dedicated Worker/ : /^MemoryFs on the main thread/)
      assert.deepEqual(await tree(page), sorted(SAMPLE_TREE))
    })

    test('capture, batch, preview, rollback: the tree comes back and the report says so', async () => {
      await fill(page, '#paths', 'src/app.js notes/todo.txt src/gen/new.js')
      await click(page, '#capture')
      const captured = await report(page)
      assert.equal(captured.kind, 'capture')
      assert.deepEqual(
        captured.data.map((c) => [c.path, c.kind]),
        [['notes/todo.txt', 'file'], ['src/app.js', 'file'], ['src/gen/new.js', 'new']],
      )
      assert.ok((await page.$eval('#snapshot', (e) => e.value)).length > 0, 'the snapshot is shown')

      // The batch: edit one file, delete one, create one in a new directory.
      await fill(page, '#path', 'src/app.js')
      await fill(page, '#content', 'console.log("edited by the agent")\n')
      await click(page, '#save')
      await fill(page, '#path', 'notes/todo.txt')
      await click(page, '#delete')
      await fill(page, '#path', 'src/gen/new.js')
      await fill(page, '#content', 'export default 42\n')
      await click(page, '#save')
      const edited = await tree(page)
      assert.equal(edited['src/gen/new.js'], 'export default 42\n')
      assert.equal(edited['notes/todo.txt'], undefined)

      await click(page, '#plan')
      const planned = await report(page)
      assert.equal(planned.kind, 'plan')
      assert.deepEqual(
        planned.data.map((i) => [i.path, i.action]),
        [['notes/todo.txt', 'write'], ['src/app.js', 'write'], ['src/gen', 'rmdir'], ['src/gen/new.js', 'remove']],
      )
      assert.match(planned.verdict, /^Preview: 4 changes, nothing touched$/)
      assert.deepEqual(await tree(page), edited, 'the preview changed nothing')

      await click(page, '#rollback')
      const rolled = await report(page)
      assert.equal(rolled.kind, 'rollback')
      assert.ok(rolled.ok, rolled.verdict)
      assert.equal(rolled.verdict, 'Rollback ok: 3 paths restored')
      assert.deepEqual(rolled.data.restored, ['notes/todo.txt', 'src/app.js', 'src/gen/new.js'])
      assert.deepEqual(rolled.data.unrestored, [])
      assert.deepEqual(
        rolled.data.plan.map((i) => [i.path, i.action]),
        planned.data.map((i) => [i.path, i.action]),
        'the rollback carried out the preview',
      )
      assert.deepEqual(await tree(page), sorted(SAMPLE_TREE), 'the tree is back as captured')

      mkdirSync(ARTIFACTS, { recursive: true })
      const file = path.join(ARTIFACTS, `example-${backend}-after-rollback.png`)
      await page.screenshot({ path: file, fullPage: true })
      console.log(`screenshot: ${file}`)
    })

    test('a path escaping the root is refused and nothing changes', async () => {
      const before = await tree(page)
      for (const escaping of ['../outside.txt', 'src/../../outside.txt', '/etc/passwd']) {
        await fill(page, '#paths', `src/app.js ${escaping}`)
        await click(page, '#capture')
        const refused = await report(page)
        assert.equal(refused.kind, 'error', `${escaping}: ${refused.verdict}`)
        assert.equal(refused.data.code, 'path_escapes_root', escaping)
        assert.deepEqual(await tree(page), before, escaping)
      }
      // Saving a file outside the root through the page is refused by the fs itself.
      await fill(page, '#path', '../outside.txt')
      await fill(page, '#content', 'x')
      await click(page, '#save')
      assert.equal((await report(page)).kind, 'error')
      assert.deepEqual(await tree(page), before)
    })

    test('a malformed or tampered snapshot is refused and nothing changes', async () => {
      const captured = (await tree(page))['src/app.js']
      await fill(page, '#paths', 'src/app.js')
      await click(page, '#capture')
      const good = await page.$eval('#snapshot', (e) => e.value)
      await fill(page, '#path', 'src/app.js')
      await fill(page, '#content', 'changed after the capture\n')
      await click(page, '#save')
      const before = await tree(page)

      const bad = {
        truncated: good.slice(0, Math.floor(good.length / 2)),
        'not json': 'hello',
        'escaping key': good.replace('"src/app.js"', '"../app.js"'),
        'absolute key': good.replace('"src/app.js"', '"/etc/app.js"'),
      }
      for (const [what, text] of Object.entries(bad)) {
        assert.notEqual(text, good, what)
        await fill(page, '#snapshot', text)
        await click(page, '#plan')
        const planned = await report(page)
        assert.equal(planned.kind, 'error', `${what}: preview ${planned.verdict}`)
        await click(page, '#rollback')
        const rolled = await report(page)
        assert.equal(rolled.kind, 'rollback', what)
        assert.equal(rolled.ok, false, what)
        assert.equal(rolled.data.valid, false, what)
        assert.ok(['malformed_snapshot', 'path_escapes_root'].includes(rolled.data.errorCode), `${what}: ${rolled.data.errorCode}`)
        assert.match(rolled.verdict, /nothing changed$/)
        assert.deepEqual(await tree(page), before, `${what}: nothing changed`)
      }

      // The good snapshot still works afterwards.
      await fill(page, '#snapshot', good)
      await click(page, '#rollback')
      assert.ok((await report(page)).ok)
      assert.equal((await tree(page))['src/app.js'], captured)
    })
  })
}
