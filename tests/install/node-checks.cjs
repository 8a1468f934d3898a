// Run by scripts/install-test inside an npm project that installed the
// `@agent-checkpoint/node` tarballs: CommonJS `require` of the package works, and the
// loader's errors name the platform and say what to do, both for a platform
// with no prebuilt binding and for a platform package npm did not install.
'use strict'

const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const { mkdtempSync, writeFileSync, readFileSync, rmSync } = require('node:fs')
const { tmpdir } = require('node:os')
const path = require('node:path')

const ac = require('@agent-checkpoint/node')
const root = mkdtempSync(path.join(tmpdir(), 'install-cjs-'))
writeFileSync(path.join(root, 'a.txt'), 'old\n')
const snapshot = ac.createCheckpoint(root, ['a.txt'])
writeFileSync(path.join(root, 'a.txt'), 'new\n')
assert.equal(ac.rollback(root, snapshot).ok, true)
assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'old\n')
rmSync(root, { recursive: true, force: true })
console.log('ok   require(@agent-checkpoint/node): capture and rollback')

// The loader run as if on another platform: process.platform, process.arch
// and the C library (what process.report says) are replaced before the
// package is required. Returns the error it threw ({code, message}), or
// {loaded: true}. The child writes its answer to a file, not to a pipe
// (Windows' node.exe under Wine cannot write to one).
function loadAs(platform, arch, libc = null) {
  const report =
    libc === null
      ? ''
      : `process.report.getReport = () => (${JSON.stringify(
          libc === 'glibc'
            ? { header: { glibcVersionRuntime: '2.36' }, sharedObjects: ['/lib/x86_64-linux-gnu/libc.so.6'] }
            : { header: {}, sharedObjects: [`/lib/ld-musl-${arch === 'x64' ? 'x86_64' : 'aarch64'}.so.1`] },
        )});`
  const answer = path.join(mkdtempSync(path.join(tmpdir(), 'install-load-')), 'answer.json')
  const code =
    `const answer = ${JSON.stringify(answer)}, { writeFileSync } = require('node:fs');` +
    `Object.defineProperty(process, 'platform', { value: ${JSON.stringify(platform)} });` +
    `Object.defineProperty(process, 'arch', { value: ${JSON.stringify(arch)} });` +
    report +
    `try { require('@agent-checkpoint/node'); writeFileSync(answer, JSON.stringify({ loaded: true })) }` +
    ` catch (e) { writeFileSync(answer, JSON.stringify({ code: e.code, message: e.message })) }`
  execFileSync(process.execPath, ['-e', code], { cwd: __dirname, stdio: 'ignore' })
  const got = JSON.parse(readFileSync(answer, 'utf8'))
  rmSync(path.dirname(answer), { recursive: true, force: true })
  return got
}

for (const [platform, arch] of [['freebsd', 'x64'], ['win32', 'arm64'], ['linux', 'ia32'], ['darwin', 'ppc64']]) {
  const unsupported = loadAs(platform, arch)
  assert.equal(unsupported.code, 'ERR_AGENT_CHECKPOINT_UNSUPPORTED_PLATFORM', JSON.stringify(unsupported))
  assert.match(unsupported.message, new RegExp(`${platform}-${arch}`))
  assert.match(unsupported.message, /npm install @agent-checkpoint\/wasm/)
}
console.log('ok   unsupported platforms (freebsd-x64, win32-arm64, linux-ia32, darwin-ppc64) name the wasm package')

// Every prebuilt platform maps to its own package: the installed one loads,
// the others are reported missing by name (npm installed only this one).
const installed = path.dirname(require.resolve('@agent-checkpoint/node/package.json'))
const { PLATFORMS, platformPackageName } = require(path.join(installed, 'platform.js'))
const here = `${process.platform}-${process.arch}`
for (const p of PLATFORMS) {
  const got = loadAs(p.os, p.cpu, p.libc)
  const name = platformPackageName(p.key)
  const hostLibc = process.platform === 'linux' ? (process.report.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl') : null
  if (`${p.os}-${p.cpu}` === here && p.libc === hostLibc) {
    assert.deepEqual(got, { loaded: true }, `${p.key}: ${JSON.stringify(got)}`)
    console.log(`ok   ${p.key}: loads ${name}`)
  } else {
    assert.equal(got.code, 'ERR_AGENT_CHECKPOINT_NATIVE_MISSING', `${p.key}: ${JSON.stringify(got)}`)
    assert.ok(got.message.includes(`the optional dependency ${name},`), `${p.key}: ${got.message}`)
    console.log(`ok   ${p.key}: wants ${name} (not installed here)`)
  }
}
assert.deepEqual(
  PLATFORMS.map((p) => p.key),
  ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64', 'win32-x64-gnu'],
)
