// Target `node-async`: target `node` with every filesystem call played through
// its async variant (createCheckpointAsync, rollbackAsync, planRollbackAsync,
// recordAppliedAsync), so every vector checks that the async variants give the
// same results as the sync ones.

import { createRequire } from 'node:module'
import * as path from 'node:path'
import { api, makeRoot, newRoot as newSyncRoot, planOptions } from './node.mjs'

const binding = createRequire(import.meta.url)('../../../bindings-node')

// The same package as target `node`, so the same expected_failures.txt entries.
export const name = 'node'
export { api }

export async function newRoot(tree) {
  const dir = (await newSyncRoot(tree)).absPath
  return makeRoot(dir, path.dirname(dir), {
    capture: (paths, options) => binding.createCheckpointAsync(dir, paths, options),
    rollback: (text, options) => binding.rollbackAsync(dir, text, options),
    plan: (text, options) => binding.planRollbackAsync(dir, text, planOptions(options)),
    recordApplied: (text, options) => binding.recordAppliedAsync(dir, text, options),
  })
}
