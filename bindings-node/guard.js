// A batch of edits as a scope that is rolled back when it fails:
// `withCheckpoint(root, paths, fn)` and `checkpointGuard(root, paths)` (for
// `using` / `await using`). Only composition of the native calls lives here
// (createCheckpoint, rollback, CheckpointStore.writeSession and their …Async
// twins, from the napi loader beside this file): what a rollback does is the
// core's.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const native = require('./index.js')

// Node >= 20.4 defines Symbol.dispose / Symbol.asyncDispose as these
// registered symbols (before V8 itself has them); a runtime with neither gets
// the same registered symbols, so `obj[Symbol.for('nodejs.dispose')]()` still
// finds the method. Globals are never written here.
const disposeSymbol = typeof Symbol.dispose === 'symbol' ? Symbol.dispose : Symbol.for('nodejs.dispose')
const asyncDisposeSymbol =
  typeof Symbol.asyncDispose === 'symbol' ? Symbol.asyncDispose : Symbol.for('nodejs.asyncDispose')

function captureOptions(options) {
  const { allowGitDir, maxFileBytes, key, recordRoot } = options
  return { allowGitDir, maxFileBytes, key, recordRoot }
}

function rollbackOptions(options) {
  const { durable, allowGitDir, key, redo, restoreSetid, strictRoot, maxFileBytes } = options
  return { durable, allowGitDir, key, redo, restoreSetid, strictRoot, maxFileBytes }
}

// withCheckpoint's way to record a store failure it attaches, not a method
// of the guard's public surface.
const noteStoreError = Symbol('noteStoreError')

// Fields of the session the guard sets itself.
const OWN_FIELDS = ['checkpointId', 'checkpoint_id', 'sessionId', 'session_id', 'snapshot']

function invalidArgument(message) {
  const err = new TypeError(message)
  err.code = 'invalid_argument'
  return err
}

// A stored checkpoint is rolled back into the store's working tree
// (`store.rollback(id)` with no root), which refuses a snapshot taken
// elsewhere (`root_mismatch`): checked here before anything is captured, so
// the run fails at its start rather than at its undo.
function checkStore(root, options) {
  const { store, session } = options
  if (store === undefined || store === null) return
  if (!(store instanceof native.CheckpointStore)) {
    throw new TypeError('checkpointGuard: options.store must be a CheckpointStore')
  }
  const workDir = store.workDir
  if (workDir === null || realpath(workDir) !== realpath(root)) {
    throw invalidArgument(
      `checkpointGuard: with options.store, root must be the store's working tree (${workDir}), not ${root}: ` +
        'capture from the top, naming the paths below it',
    )
  }
  for (const name of OWN_FIELDS) {
    if (session !== undefined && session !== null && Object.hasOwn(session, name)) {
      throw invalidArgument(`checkpointGuard: options.session must not set ${name} (the guard sets it)`)
    }
  }
}

function realpath(p) {
  try {
    return fs.realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

// The session a kept batch is written as: the snapshot's paths as its
// files, then the caller's fields, then the snapshot.
function sessionFields(options, snapshot) {
  return { filesTouched: native.snapshotPaths(snapshot), ...(options.session ?? {}), snapshot }
}

function withProgress(sync, options) {
  return options.onProgress === undefined ? sync : { ...sync, onProgress: options.onProgress }
}

/** The paths of one batch, captured; made by `checkpointGuard` / `checkpointGuardAsync`. */
class CheckpointGuard {
  #root
  #options
  #kept = false
  #pending = null
  #report = null
  #rollbackError = undefined
  #written = false
  #writing = null
  #checkpointId = null
  #storeError = undefined

  constructor(root, snapshot, options) {
    this.#root = root
    this.#options = options
    /** The snapshot taken when the guard was made (JSON text). */
    Object.defineProperty(this, 'snapshot', { value: snapshot, enumerable: true })
  }

  /** The report of the rollback, once one finished; `null` before. */
  get report() {
    return this.#report
  }

  /** Whether `keep()` was called. */
  get kept() {
    return this.#kept
  }

  /** Whether a rollback ran or is running (whatever its report says). */
  get rolledBack() {
    return this.#report !== null || this.#pending !== null || this.#rollbackError !== undefined
  }

  /** What the rollback threw, when it threw instead of reporting; `undefined` otherwise. */
  get rollbackError() {
    return this.#rollbackError
  }

  /** The checkpoint written to `options.store` when the batch was kept; `null` before, or without a store. */
  get checkpointId() {
    return this.#checkpointId
  }

  /** What writing to `options.store` threw when it was not thrown itself; `undefined` otherwise. */
  get storeError() {
    return this.#storeError
  }

  #shouldWrite() {
    const { store } = this.#options
    return store !== undefined && store !== null && !this.#written && !this.rolledBack
  }

  /** Keeps the batch and writes it to `options.store` (once; a failed write may be retried). */
  writeToStore() {
    if (this.#writing !== null) {
      throw new Error('checkpointGuard: a writeToStoreAsync() of this guard is running; await it')
    }
    if (!this.#shouldWrite()) return this.#checkpointId
    this.#kept = true
    const id = native.newUlid()
    this.#options.store.writeSession(id, this.#options.sessionId ?? 'guard', sessionFields(this.#options, this.snapshot))
    this.#written = true
    this.#checkpointId = id
    return id
  }

  /** `writeToStore()` off the JS thread. */
  writeToStoreAsync() {
    if (this.#writing !== null) return this.#writing
    if (!this.#shouldWrite()) return Promise.resolve(this.#checkpointId)
    this.#kept = true
    const id = native.newUlid()
    let started
    try {
      started = this.#options.store.writeSessionAsync(
        id,
        this.#options.sessionId ?? 'guard',
        sessionFields(this.#options, this.snapshot),
      )
    } catch (err) {
      return Promise.reject(err)
    }
    this.#writing = started.then(
      () => {
        this.#written = true
        this.#checkpointId = id
        this.#writing = null
        return id
      },
      (err) => {
        this.#writing = null
        throw err
      },
    )
    return this.#writing
  }

  // A store write's failure attached to the callback's error, not thrown.
  [noteStoreError](err) {
    this.#storeError = err
  }

  /** Never roll back when disposed or when the callback fails; `rollback()` still does. */
  keep() {
    this.#kept = true
  }

  /** Roll the captured paths back now (at most once: later calls return the same report). */
  rollback() {
    if (this.#report !== null) return this.#report
    if (this.#rollbackError !== undefined) throw this.#rollbackError
    if (this.#pending !== null) {
      throw new Error('checkpointGuard: a rollbackAsync() of this guard is running; await it')
    }
    try {
      this.#report = native.rollback(this.#root, this.snapshot, rollbackOptions(this.#options))
    } catch (err) {
      this.#rollbackError = err
      throw err
    }
    return this.#report
  }

  /** `rollback()` off the JS thread (at most once: later calls give the same report). */
  rollbackAsync() {
    if (this.#report !== null) return Promise.resolve(this.#report)
    if (this.#rollbackError !== undefined) return Promise.reject(this.#rollbackError)
    if (this.#pending === null) {
      const options = withProgress(rollbackOptions(this.#options), this.#options)
      let started
      try {
        started = native.rollbackAsync(this.#root, this.snapshot, options)
      } catch (err) {
        this.#rollbackError = err
        return Promise.reject(err)
      }
      this.#pending = started.then(
        (report) => {
          this.#report = report
          this.#pending = null
          return report
        },
        (err) => {
          this.#rollbackError = err
          this.#pending = null
          throw err
        },
      )
    }
    return this.#pending
  }

  /** The end of a `using` scope: rolls back unless kept or already rolled back. */
  [disposeSymbol]() {
    if (!this.#kept && !this.rolledBack) this.rollback()
    else if (this.#kept) this.writeToStore()
  }

  /** The end of an `await using` scope: as `[Symbol.dispose]`, off the JS thread. */
  async [asyncDisposeSymbol]() {
    if (this.#pending !== null) await this.#pending
    else if (!this.#kept && !this.rolledBack) await this.rollbackAsync()
    else if (this.#kept) await this.writeToStoreAsync()
  }
}

function guardOptions(options) {
  return options === undefined || options === null ? {} : options
}

/** Captures `paths` under `root` now and returns the guard over them. */
function checkpointGuard(root, paths, options) {
  const opts = guardOptions(options)
  checkStore(root, opts)
  const snapshot = native.createCheckpoint(root, paths, captureOptions(opts))
  return new CheckpointGuard(root, snapshot, opts)
}

/** `checkpointGuard` with the capture off the JS thread. */
async function checkpointGuardAsync(root, paths, options) {
  const opts = guardOptions(options)
  checkStore(root, opts)
  const snapshot = await native.createCheckpointAsync(root, paths, withProgress(captureOptions(opts), opts))
  return new CheckpointGuard(root, snapshot, opts)
}

function attach(err, name, value) {
  if (err === null || (typeof err !== 'object' && typeof err !== 'function')) return
  try {
    err[name] = value
  } catch {
    // A frozen error is rethrown as it is; the guard still has the report.
  }
}

/**
 * Captures `paths`, runs `fn(guard)`, and rolls the paths back if it throws
 * or rejects, then throws that same error. Resolves to what `fn` returns; a
 * batch that succeeds keeps its edits (and `guard.snapshot`).
 */
async function withCheckpoint(root, paths, fn, options) {
  if (typeof fn !== 'function') throw new TypeError('withCheckpoint: fn must be a function')
  const guard = await checkpointGuardAsync(root, paths, options)
  let value
  try {
    value = await fn(guard)
  } catch (err) {
    // The callback's error is what the caller sees, whatever the rollback
    // does: its failure or incomplete report is attached, never thrown.
    if (!guard.kept && !guard.rolledBack) {
      try {
        const report = await guard.rollbackAsync()
        if (!report.ok) attach(err, 'rollbackReport', report)
      } catch (failure) {
        attach(err, 'rollbackError', failure)
      }
    }
    // A kept batch (`guard.keep()` before the error) is still written.
    try {
      await guard.writeToStoreAsync()
    } catch (failure) {
      guard[noteStoreError](failure)
      attach(err, 'storeError', failure)
    }
    throw err
  }
  await guard.writeToStoreAsync()
  return value
}

// The option routing and the error annotation are shared with ai-sdk.js;
// main.js exports only the three guards.
module.exports = {
  checkpointGuard,
  checkpointGuardAsync,
  withCheckpoint,
  captureOptions,
  rollbackOptions,
  withProgress,
  attach,
}
