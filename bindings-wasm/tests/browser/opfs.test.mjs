// OpfsFs itself in headless Chromium: what the shared vectors do not show.
// Answers larger than the shared buffer, what OPFS cannot hold reported per
// path (and nothing written for it), paths that would leave the root, where
// OpfsFs refuses to open, and a closed OpfsFs.
//
//   node --test tests/browser/    (from bindings-wasm/, after scripts/wasm built pkg/web)

import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { openBrowser, openOpfsHost } from './harness.mjs'

let session
let host
before(async () => {
  session = await openBrowser()
  host = await openOpfsHost(session)
})
after(() => session?.close())

const b64 = (bytes) => ({ b64: Buffer.from(bytes).toString('base64') })
const text = (s) => ({ b64: Buffer.from(s, 'utf8').toString('base64') })

/** A fresh OPFS root holding `tree` (vector node shapes); disposed after `body`. */
async function withRoot(tree, options, body) {
  const { id } = await host.call('newRoot', tree, options)
  const fs = (method, ...args) => host.call('fs', id, method, args)
  try {
    await body({ id, fs })
  } finally {
    await host.call('dispose', id)
  }
}

test('files larger than the shared buffer round-trip through capture and rollback', async () => {
  const big = Buffer.alloc(50_000)
  for (let i = 0; i < big.length; i++) big[i] = (i * 7919 + (i >> 8)) & 0xff
  await withRoot({}, { bufferBytes: 4096 }, async ({ id, fs }) => {
    await fs('putFile', 'data/big.bin', b64(big))
    assert.deepEqual(Buffer.from((await fs('readFile', 'data/big.bin')).b64, 'base64'), big)
    const { snapshot } = await host.call('capture', id, ['data/big.bin'], {})
    await fs('writeFile', 'data/big.bin', text('small now'), 0o644, true)
    const report = await host.call('rollback', id, snapshot, { durable: true })
    assert.ok(report.ok, JSON.stringify(report.unrestored))
    assert.deepEqual(Buffer.from((await fs('readFile', 'data/big.bin')).b64, 'base64'), big)
    const tree = await host.call('readTree', id)
    assert.deepEqual(Object.keys(tree), ['data', 'data/big.bin'], 'no temp file left behind')
  })
})

test('a mode OPFS cannot hold is reported for that path, which is left as it was', async () => {
  await withRoot({ 'a.txt': { text: 'one' }, 'b.txt': { text: 'two' } }, {}, async ({ id, fs }) => {
    const { snapshot } = await host.call('capture', id, ['a.txt', 'b.txt'], {})
    await fs('writeFile', 'a.txt', text('edited a'), 0o644, false)
    await fs('writeFile', 'b.txt', text('edited b'), 0o644, false)
    const executable = snapshot.replace('"a.txt":420', '"a.txt":493')
    assert.notEqual(executable, snapshot)
    const report = await host.call('rollback', id, executable, { durable: true })
    assert.equal(report.valid, true)
    assert.equal(report.ok, false)
    assert.deepEqual(report.restored, ['b.txt'])
    assert.deepEqual(report.unrestored.map((u) => [u.path, u.code]), [['a.txt', 'permission_denied']])
    assert.match(report.unrestored[0].reason, /OPFS has no permission bits/)
    const tree = await host.call('readTree', id)
    assert.equal(Buffer.from(tree['a.txt'].b64, 'base64').toString(), 'edited a', 'nothing written for a.txt')
    assert.equal(Buffer.from(tree['b.txt'].b64, 'base64').toString(), 'two')
  })
})

test('a symlink in a snapshot is reported for that path; the other paths are restored', async () => {
  await withRoot({ 'a.txt': { text: 'one' } }, {}, async ({ id, fs }) => {
    const { snapshot } = await host.call('capture', id, ['a.txt'], {})
    const withLink = snapshot.replace('"digests":', '"links":{"l":"a.txt"},"digests":')
    assert.notEqual(withLink, snapshot)
    await fs('writeFile', 'a.txt', text('edited'), 0o644, false)
    const report = await host.call('rollback', id, withLink, { durable: true })
    assert.equal(report.valid, true, report.error)
    assert.deepEqual(report.restored, ['a.txt'])
    assert.deepEqual(report.unrestored.map((u) => [u.path, u.code]), [['l', 'permission_denied']])
    assert.match(report.unrestored[0].reason, /OPFS cannot hold symlinks/)
    assert.deepEqual(Object.keys(await host.call('readTree', id)), ['a.txt'])
  })
})

test('ignoreModes writes such a file as a plain OPFS file', async () => {
  await withRoot({ 'run.sh': { text: '#!/bin/sh\n', mode: 0o755 } }, { ignoreModes: true }, async ({ id }) => {
    assert.deepEqual(await host.call('readTree', id), { 'run.sh': { b64: text('#!/bin/sh\n').b64, mode: 0o644 } })
  })
  await assert.rejects(host.call('newRoot', { 'run.sh': { text: 'x', mode: 0o755 } }, {}), { code: 'EPERM' })
})

test('paths leaving the root are refused and nothing appears outside it', async () => {
  const outside = await host.call('listOpfs', 'vectors')
  await withRoot({ 'in.txt': { text: 'in' } }, {}, async ({ id, fs }) => {
    for (const path of ['../escaped.txt', 'x/../../escaped.txt', './escaped.txt', '/escaped.txt', 'a//b']) {
      await assert.rejects(fs('writeFile', path, text('x'), 0o644, false), { code: 'EINVAL' }, path)
      await assert.rejects(fs('mkdir', path), { code: 'EINVAL' }, path)
    }
    for (const path of ['../escaped.txt', '/etc/passwd']) {
      await assert.rejects(host.call('capture', id, [path], {}), { code: 'path_escapes_root' }, path)
    }
    assert.deepEqual(Object.keys(await host.call('readTree', id)), ['in.txt'])
  })
  assert.deepEqual(await host.call('listOpfs', 'vectors'), outside, 'nothing new beside the roots')
})

test('OpfsFs refuses to open on the main thread, and on a root that is not a plain path', async () => {
  const onMainThread = await host.page.evaluate(async () => {
    const { OpfsFs } = await import('/pkg/web/opfs.js')
    try {
      await OpfsFs.open('main')
      return 'opened'
    } catch (error) {
      return error.name
    }
  })
  assert.equal(onMainThread, 'NotSupportedError')
  for (const root of ['a/../b', './a', 'a\\b']) {
    assert.equal((await host.call('tryOpen', root, {}))?.name, 'TypeError', root)
  }
  assert.equal(await host.call('tryOpen', 'fine/nested', {}), null)
})

test('a closed OpfsFs throws EBADF', async () => {
  await withRoot({ 'a.txt': { text: 'one' } }, {}, async ({ fs }) => {
    await fs('close')
    await assert.rejects(fs('stat', 'a.txt'), { code: 'EBADF' })
  })
})
