// Run by scripts/install-test inside an npm project that installed the
// `agent-checkpoint` tarballs: CommonJS `require` of the package works, and the
// loader's errors name the platform and say what to do, both for a platform
// with no prebuilt binding and for a platform package npm did not install.
'use strict'

const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const { mkdtempSync, writeFileSync, readFileSync, rmSync } = require('node:fs')
const { tmpdir } = require('node:os')
const path = require('node:path')

const ac = require('agent-checkpoint')
const root = mkdtempSync(path.join(tmpdir(), 'install-cjs-'))
writeFileSync(path.join(root, 'a.txt'), 'old\n')
const snapshot = ac.createCheckpoint(root, ['a.txt'])
writeFileSync(path.join(root, 'a.txt'), 'new\n')
assert.equal(ac.rollback(root, snapshot).ok, true)
assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'old\n')
rmSync(root, { recursive: true, force: true })
console.log('ok   require(agent-checkpoint): capture and rollback')

function loadAs(platform, arch) {
  const code =
    `Object.defineProperty(process, 'platform', { value: ${JSON.stringify(platform)} });` +
    `Object.defineProperty(process, 'arch', { value: ${JSON.stringify(arch)} });` +
    `try { require('agent-checkpoint') } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`
  const out = execFileSync(process.execPath, ['-e', code], { cwd: __dirname, encoding: 'utf8' })
  assert.ok(out.trim(), `require on ${platform}-${arch} did not throw`)
  return JSON.parse(out)
}

const unsupported = loadAs('freebsd', 'x64')
assert.equal(unsupported.code, 'ERR_AGENT_CHECKPOINT_UNSUPPORTED_PLATFORM')
assert.match(unsupported.message, /freebsd-x64/)
assert.match(unsupported.message, /npm install agent-checkpoint-wasm/)
console.log(`ok   unsupported platform: ${unsupported.message}`)

if (process.platform === 'linux' && process.arch === 'x64') {
  // arm64 glibc is supported, but its package is not installed here.
  const missing = loadAs('linux', 'arm64')
  assert.equal(missing.code, 'ERR_AGENT_CHECKPOINT_NATIVE_MISSING')
  assert.match(missing.message, /linux-arm64/)
  assert.match(missing.message, /agent-checkpoint-linux-arm64-gnu/)
  console.log(`ok   platform package missing: ${missing.message}`)
}
