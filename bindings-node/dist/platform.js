// Which prebuilt platform package of agent-checkpoint fits this process.
// Shipped in the `@agent-checkpoint/node` npm package next to its loader
// (index.js); scripts/dist reads PLATFORMS to build one package per entry.
'use strict'

const { readFileSync } = require('node:fs')

/**
 * The prebuilt native packages: npm `os`/`cpu`/`libc` (`libc` on Linux only)
 * and the Rust target each is built for.
 */
const PLATFORMS = [
  { key: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc', rustTarget: 'x86_64-unknown-linux-gnu' },
  { key: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc', rustTarget: 'aarch64-unknown-linux-gnu' },
  { key: 'linux-x64-musl', os: 'linux', cpu: 'x64', libc: 'musl', rustTarget: 'x86_64-unknown-linux-musl' },
  { key: 'linux-arm64-musl', os: 'linux', cpu: 'arm64', libc: 'musl', rustTarget: 'aarch64-unknown-linux-musl' },
  { key: 'darwin-x64', os: 'darwin', cpu: 'x64', libc: null, rustTarget: 'x86_64-apple-darwin' },
  { key: 'darwin-arm64', os: 'darwin', cpu: 'arm64', libc: null, rustTarget: 'aarch64-apple-darwin' },
  // Built with mingw-w64 (the GNU ABI); a Node addon talks to node.exe
  // through N-API only, so it loads in the MSVC-built node.exe.
  { key: 'win32-x64-gnu', os: 'win32', cpu: 'x64', libc: null, rustTarget: 'x86_64-pc-windows-gnu' },
]

/** The npm scope every package of agent-checkpoint is published under. */
const SCOPE = '@agent-checkpoint'
/** The main Node package: the loader, its typings and one optional dependency per platform. */
const MAIN_PACKAGE = `${SCOPE}/node`
/** The WebAssembly package, for every platform without a prebuilt binding. */
const WASM_PACKAGE = `${SCOPE}/wasm`

/** The npm name of the platform package with `key` (one of PLATFORMS' keys). */
function platformPackageName(key) {
  return `${MAIN_PACKAGE}-${key}`
}

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
  const found = PLATFORMS.find((p) => p.os === platform && p.cpu === arch && (libc === null || p.libc === null || p.libc === libc))
  if (found) return platformPackageName(found.key)
  const here = `${platform}-${arch}${libc ? ` (${libc})` : ''}`
  const err = new Error(
    `agent-checkpoint: no prebuilt native binding for ${here}. ` +
      `Prebuilt: ${PLATFORMS.map((p) => p.key).join(', ')}. ` +
      `On other platforms use the WebAssembly package (npm install ${WASM_PACKAGE}), ` +
      'or build this package from source with a Rust toolchain (see the repository README, "Install").',
  )
  err.code = 'ERR_AGENT_CHECKPOINT_UNSUPPORTED_PLATFORM'
  return err
}

module.exports = { PLATFORMS, SCOPE, MAIN_PACKAGE, WASM_PACKAGE, platformPackageName, detectLibc, platformPackage }
