// Which prebuilt platform package of agent-checkpoint fits this process.
// Shipped in the `agent-checkpoint` npm package next to its loader
// (index.js); scripts/dist reads PLATFORMS to build one package per entry.
'use strict'

const { readFileSync } = require('node:fs')

/** The prebuilt native packages: npm `os`/`cpu`/`libc` and the Rust target each is built for. */
const PLATFORMS = [
  { key: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc', rustTarget: 'x86_64-unknown-linux-gnu' },
  { key: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc', rustTarget: 'aarch64-unknown-linux-gnu' },
  { key: 'linux-x64-musl', os: 'linux', cpu: 'x64', libc: 'musl', rustTarget: 'x86_64-unknown-linux-musl' },
]

/** The C library of this Linux process: 'glibc' or 'musl' (null elsewhere). */
function detectLibc() {
  if (process.platform !== 'linux') return null
  const report = process.report && typeof process.report.getReport === 'function' ? process.report.getReport() : null
  if (report && report.header && report.header.glibcVersionRuntime) return 'glibc'
  if (report && Array.isArray(report.sharedObjects) && report.sharedObjects.some((f) => /(?:libc\.musl-|ld-musl-)/.test(f))) {
    return 'musl'
  }
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl') ? 'musl' : 'glibc'
  } catch {
    return 'glibc'
  }
}

/**
 * The platform package for `platform`/`arch`/`libc`, or an Error (returned,
 * not thrown) that names the platform and says what to do instead.
 */
function platformPackage(platform, arch, libc) {
  const found = PLATFORMS.find((p) => p.os === platform && p.cpu === arch && (libc === null || p.libc === libc))
  if (found) return `agent-checkpoint-${found.key}`
  const here = `${platform}-${arch}${libc ? ` (${libc})` : ''}`
  const err = new Error(
    `agent-checkpoint: no prebuilt native binding for ${here}. ` +
      `Prebuilt: ${PLATFORMS.map((p) => p.key).join(', ')}. ` +
      'On other platforms use the WebAssembly package (npm install agent-checkpoint-wasm), ' +
      'or build this package from source with a Rust toolchain (see the repository README, "Install").',
  )
  err.code = 'ERR_AGENT_CHECKPOINT_UNSUPPORTED_PLATFORM'
  return err
}

module.exports = { PLATFORMS, detectLibc, platformPackage }
