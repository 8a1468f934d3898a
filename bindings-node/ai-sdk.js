// `@agent-checkpoint/node/ai-sdk`: checkpoints inside a Vercel AI SDK agent
// loop. `editsFiles(tool, paths?)` declares which input fields of a tool are
// the paths it edits; `checkpointRun(root, options?)` makes one run, whose
// `tools(toolset)` wraps every declared tool's `execute` so that its paths
// are captured before it runs and rolled back when it throws or rejects,
// and which collects every path its tools touched, captured before the first
// touch, for `undo()` of the whole run. The AI SDK (`ai`) is never required
// here: a tool is the plain object `tool({...})` returns, and `execute` keeps
// its signature, so the package works without `ai` installed and `ai` stays
// an optional peer dependency (its types are used by ai-sdk.d.ts). Only
// composition of the native calls and the guards lives here: what a capture
// or a rollback does is the core's.
'use strict'

const nodePath = require('node:path')
const native = require('./index.js')
const { attach, captureOptions, checkpointGuardAsync, rollbackOptions, withProgress } = require('./guard.js')

/** The input fields read for paths when a tool names none. */
const DEFAULT_PATH_FIELDS = Object.freeze(['path', 'filePath', 'file_path', 'paths', 'filePaths', 'file_paths'])

// What `editsFiles` declared, on the tool (a registered symbol, so a copy of
// the tool made with spread syntax keeps it).
const EDITS_FILES = Symbol.for('agent-checkpoint.ai-sdk.editsFiles')

function describe(value) {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}

function checkTool(tool, where) {
  if (tool === null || typeof tool !== 'object') {
    throw new TypeError(`${where}: a tool is an object (what the AI SDK's tool() returns), not ${describe(tool)}`)
  }
}

// The declared paths as given: field names (one, or a list) or a function
// of the input.
function checkSpec(paths, where) {
  if (typeof paths === 'function') return paths
  const fields = typeof paths === 'string' ? [paths] : paths
  if (!Array.isArray(fields) || fields.length === 0 || !fields.every((f) => typeof f === 'string' && f !== '')) {
    throw new TypeError(`${where}: paths are input field names (a string or a non-empty list) or a function of the input`)
  }
  return Object.freeze([...fields])
}

/** The paths a call of a tool declared with `spec` edits, read from its input. */
function pathsOf(spec, input) {
  if (typeof spec === 'function') {
    const out = spec(input)
    const list = typeof out === 'string' ? [out] : out === undefined || out === null ? [] : Array.from(out)
    if (!list.every((p) => typeof p === 'string')) {
      throw new TypeError('editsFiles: the paths function returned something other than paths (strings)')
    }
    return list
  }
  const found = []
  let present = false
  for (const field of spec) {
    const value = input === null || typeof input !== 'object' ? undefined : input[field]
    if (value === undefined || value === null) continue
    present = true
    if (typeof value === 'string') found.push(value)
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) found.push(...value)
    else throw new TypeError(`editsFiles: input field ${field} is neither a path nor a list of paths`)
  }
  if (!present) {
    // A tool declared as editing files that names no path would run unguarded.
    throw new TypeError(
      `editsFiles: the tool's input has none of the path fields ${spec.join(', ')}; ` +
        "name the fields that hold its paths: editsFiles(tool, ['field'])",
    )
  }
  return found
}

// Whether `execute` is an `async function*`: the wrapper must then be one too
// (the AI SDK streams its preliminary results), decided before it runs.
function isAsyncGeneratorFunction(fn) {
  return Object.prototype.toString.call(fn) === '[object AsyncGeneratorFunction]'
}

function isAsyncIterable(value) {
  return value !== null && value !== undefined && typeof value[Symbol.asyncIterator] === 'function'
}

// What `execute` returned, settled: an async iterable that is no generator
// function's is run to its end, and its last value is the output.
async function settle(result) {
  if (!isAsyncIterable(result)) return await result
  let last
  for await (const value of result) last = value
  return last
}

// A failed call: its paths are rolled back and the tool's error is what the
// AI SDK sees (and hands the model), whatever the rollback does; as in
// `withCheckpoint`, its failure or incomplete report is attached, never thrown.
async function rollBackFailed(guard, err) {
  try {
    const report = await guard.rollbackAsync()
    if (!report.ok) attach(err, 'rollbackReport', report)
  } catch (failure) {
    attach(err, 'rollbackError', failure)
  }
}

function undoneError() {
  return new Error('checkpointRun: this run was undone; its tools run no more (start a new run)')
}

/**
 * Declares `tool` as editing files: returns a copy of it that says which
 * input fields hold the paths it edits (`paths`: a field name, a list of
 * them, or a function of the input returning the paths; by default the
 * fields `path`, `filePath`, `file_path`, `paths`, `filePaths`, `file_paths`,
 * each a path or a list of paths). Nothing is captured until a run wraps it
 * (`run.tools({...})`).
 */
function editsFiles(tool, paths) {
  checkTool(tool, 'editsFiles')
  const spec = paths === undefined ? DEFAULT_PATH_FIELDS : checkSpec(paths, 'editsFiles')
  return { ...tool, [EDITS_FILES]: spec }
}

/** One agent run's checkpoint; made by `checkpointRun`. */
class CheckpointRun {
  #root
  #resolvedRoot
  #options
  #snapshots = []
  #paths = []
  #seen = new Set()
  // Per path (resolved against the root): the end of the last call holding it.
  #locks = new Map()
  #wrapped = new WeakSet()
  #undo = null

  constructor(root, options) {
    if (typeof root !== 'string') throw new TypeError('checkpointRun: root must be a string')
    this.#root = root
    this.#resolvedRoot = nodePath.resolve(root)
    this.#options = options === undefined || options === null ? {} : options
  }

  /** The root the run's tools edit under (as given). */
  get root() {
    return this.#root
  }

  /** Every path the run's tools touched (canonical), in the order first touched. */
  get paths() {
    return [...this.#paths]
  }

  /** The run's snapshots (JSON text), in capture order, each path in exactly one. */
  get snapshots() {
    return [...this.#snapshots]
  }

  /** Whether `undo()` was called. */
  get undone() {
    return this.#undo !== null
  }

  /**
   * The tool set with every tool declared by `editsFiles` wrapped for this
   * run; every other tool is passed on as it is.
   */
  tools(tools) {
    if (tools === null || typeof tools !== 'object') {
      throw new TypeError(`CheckpointRun.tools: a tool set is an object of tools, not ${describe(tools)}`)
    }
    const out = {}
    for (const [name, tool] of Object.entries(tools)) {
      const declared = tool !== null && typeof tool === 'object' && tool[EDITS_FILES] !== undefined
      out[name] = declared ? this.tool(tool) : tool
    }
    return out
  }

  /**
   * `tool` wrapped for this run as editing the paths `paths` names (as in
   * `editsFiles`; by default what `editsFiles` declared, else the default
   * fields). A tool this run already wrapped is returned as it is.
   */
  tool(tool, paths) {
    checkTool(tool, 'CheckpointRun.tool')
    if (this.#wrapped.has(tool)) return tool
    const spec =
      paths !== undefined ? checkSpec(paths, 'CheckpointRun.tool') : (tool[EDITS_FILES] ?? DEFAULT_PATH_FIELDS)
    const execute = tool.execute
    if (typeof execute !== 'function') {
      throw new TypeError(
        'CheckpointRun.tool: the tool has no execute function (the client runs it), so nothing here can guard it',
      )
    }
    const run = this
    const wrapped = {
      ...tool,
      [EDITS_FILES]: spec,
      execute: isAsyncGeneratorFunction(execute)
        ? async function* (input, options) {
            yield* run.#stream(tool, execute, spec, input, options)
          }
        : function (input, options) {
            return run.#call(tool, execute, spec, input, options)
          },
    }
    this.#wrapped.add(wrapped)
    return wrapped
  }

  /**
   * Rolls back every path the run's tools touched to what it was before the
   * first touch (latest capture first), once the calls running now ended.
   * At most once: later calls give the same report, and the run's tools
   * refuse to run afterwards.
   */
  undo() {
    if (this.#undo === null) this.#undo = this.#rollBackAll()
    return this.#undo
  }

  async #rollBackAll() {
    await Promise.all(new Set(this.#locks.values()))
    const options = withProgress(rollbackOptions(this.#options), this.#options)
    const reports = []
    for (const snapshot of [...this.#snapshots].reverse()) {
      reports.push(await native.rollbackAsync(this.#root, snapshot, options))
    }
    return {
      ok: reports.every((r) => r.ok),
      restored: reports.flatMap((r) => r.restored).sort(),
      unrestored: reports.flatMap((r) => r.unrestored),
      reports,
    }
  }

  // Waits for the calls holding any of `paths`, then holds them: the AI SDK
  // runs the tool calls of one step concurrently, and two calls over one
  // path must not interleave (a rollback would undo the other's edits).
  // Taken synchronously, so calls over one path run in the order made.
  async #acquire(paths) {
    const keys = new Set(paths.map((p) => nodePath.resolve(this.#resolvedRoot, p)))
    let release
    const mine = new Promise((resolve) => {
      release = resolve
    })
    const previous = []
    for (const key of keys) {
      const held = this.#locks.get(key)
      if (held !== undefined) previous.push(held)
      this.#locks.set(key, mine)
    }
    await Promise.all(previous)
    return () => {
      release()
      for (const key of keys) if (this.#locks.get(key) === mine) this.#locks.delete(key)
    }
  }

  // The call's guard over its paths; the run's capture of those it had not
  // seen yet (the call's own snapshot when all are new).
  async #capture(paths) {
    if (this.#undo !== null) throw undoneError()
    const guard = await checkpointGuardAsync(this.#root, paths, this.#options)
    const canonical = native.snapshotPaths(guard.snapshot)
    const fresh = canonical.filter((p) => !this.#seen.has(p))
    if (fresh.length === 0) return guard
    for (const p of fresh) this.#seen.add(p)
    try {
      const snapshot =
        fresh.length === canonical.length
          ? guard.snapshot
          : await native.createCheckpointAsync(
              this.#root,
              fresh,
              withProgress(captureOptions(this.#options), this.#options),
            )
      this.#snapshots.push(snapshot)
      this.#paths.push(...fresh)
    } catch (err) {
      for (const p of fresh) this.#seen.delete(p)
      throw err
    }
    return guard
  }

  async #call(tool, execute, spec, input, options) {
    if (this.#undo !== null) throw undoneError()
    const paths = pathsOf(spec, input)
    if (paths.length === 0) return await settle(execute.call(tool, input, options))
    const release = await this.#acquire(paths)
    try {
      const guard = await this.#capture(paths)
      try {
        return await settle(execute.call(tool, input, options))
      } catch (err) {
        await rollBackFailed(guard, err)
        throw err
      }
    } finally {
      release()
    }
  }

  async *#stream(tool, execute, spec, input, options) {
    if (this.#undo !== null) throw undoneError()
    const paths = pathsOf(spec, input)
    if (paths.length === 0) {
      yield* execute.call(tool, input, options)
      return
    }
    const release = await this.#acquire(paths)
    try {
      const guard = await this.#capture(paths)
      try {
        yield* execute.call(tool, input, options)
      } catch (err) {
        await rollBackFailed(guard, err)
        throw err
      }
    } finally {
      release()
    }
  }
}

/** One checkpoint for one agent run over `root` (options as `checkpointGuard` takes them). */
function checkpointRun(root, options) {
  return new CheckpointRun(root, options)
}

module.exports = { checkpointRun, editsFiles, DEFAULT_PATH_FIELDS }
