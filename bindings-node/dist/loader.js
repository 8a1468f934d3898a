// The loader of the `@agent-checkpoint/node` npm package (its index.js, which
// its entry main.js re-exports with the guards of guard.js): requires
// the platform package that fits this process (one of its
// optionalDependencies) and re-exports it. scripts/dist appends the named
// export lines of the napi-generated loader, so that ESM `import { x }` sees
// them. An unsupported platform, or a platform package npm did not install,
// is an error that names the platform and says what to do.
'use strict'

const { MAIN_PACKAGE, detectLibc, platformPackage } = require('./platform.js')

function loadNative() {
  const libc = detectLibc()
  const name = platformPackage(process.platform, process.arch, libc)
  if (name instanceof Error) throw name
  try {
    return require(name)
  } catch (cause) {
    const err = new Error(
      `agent-checkpoint: the native binding for ${process.platform}-${process.arch}${libc ? ` (${libc})` : ''} ` +
        `is the optional dependency ${name}, and it could not be loaded (${cause && cause.message}). ` +
        `Reinstall without --omit=optional / --no-optional (npm install ${MAIN_PACKAGE}), ` +
        'and make sure the lockfile was not made on another platform.',
    )
    err.code = 'ERR_AGENT_CHECKPOINT_NATIVE_MISSING'
    err.cause = cause
    throw err
  }
}

const nativeBinding = loadNative()
module.exports = nativeBinding
