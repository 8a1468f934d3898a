// Target `node-async`: target `node` with every filesystem call played through
// its async variant (createCheckpointAsync, rollbackAsync, planRollbackAsync,
// recordAppliedAsync), and every redaction through redactTextAsync,
// redactJsonAsync, redactBlobAsync and the Redactor's *WithFindingsAsync
// methods, so every vector checks that the async variants give the same
// results as the sync ones.

import { createRequire } from 'node:module'
import * as path from 'node:path'
import { api as syncApi, makeRoot, newRoot as newSyncRoot } from './node.mjs'

const binding = createRequire(import.meta.url)('../../../bindings-node')

// The same package as target `node`, so the same expected_failures.txt entries.
export const name = 'node'

/** The package's Redactor, every method played through its async twin. */
class AsyncRedactor {
  #inner
  constructor(options) {
    this.#inner = new binding.Redactor(options)
  }
  redactTextWithFindings(text) {
    return this.#inner.redactTextWithFindingsAsync(text)
  }
  redactJsonWithFindings(text) {
    return this.#inner.redactJsonWithFindingsAsync(text)
  }
  redactBlobWithFindings(path, data) {
    return this.#inner.redactBlobWithFindingsAsync(path, data)
  }
}

export const api = {
  ...syncApi,
  redactText: binding.redactTextAsync,
  redactJson: binding.redactJsonAsync,
  redactBlob: binding.redactBlobAsync,
  Redactor: AsyncRedactor,
}

export async function newRoot(tree) {
  const dir = (await newSyncRoot(tree)).absPath
  return makeRoot(dir, path.dirname(dir), {
    capture: (paths, options) => binding.createCheckpointAsync(dir, paths, options),
    rollback: (text, options) => binding.rollbackAsync(dir, text, options),
    plan: (text, options) => binding.planRollbackAsync(dir, text, options),
    recordApplied: (text, options) => binding.recordAppliedAsync(dir, text, options),
  })
}
