// The entry of `@agent-checkpoint/node` ("main" and "exports" in
// package.json): everything the napi-generated loader exports (index.js,
// rewritten by every `napi build`, so nothing hand-written goes there) plus
// the guards written in JavaScript on top of it (guard.js). Written so that
// Node's CommonJS export detection sees every name, for ESM `import { x }`.
'use strict'

const { checkpointGuard, checkpointGuardAsync, withCheckpoint } = require('./guard.js')

module.exports = require('./index.js')
module.exports.checkpointGuard = checkpointGuard
module.exports.checkpointGuardAsync = checkpointGuardAsync
module.exports.withCheckpoint = withCheckpoint
