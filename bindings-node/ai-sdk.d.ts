/* Types of `@agent-checkpoint/node/ai-sdk` (ai-sdk.js), written by hand. */

import type { InferToolInput, Tool } from 'ai'
import type { GuardOptions, PathProblem, RollbackReport } from './index.js'

/** The input fields read for paths when a tool names none: `path`, `filePath`, `file_path`, `paths`, `filePaths`, `file_paths`. */
export declare const DEFAULT_PATH_FIELDS: readonly string[]

/**
 * Which paths a call of a tool edits: the name of an input field (or a list
 * of them) whose value is a path or a list of paths, or a function of the
 * input returning the paths. Paths are relative to the run's root (or
 * absolute inside it), as the tool resolves them.
 */
export type EditedPaths<INPUT> =
  | (unknown extends INPUT ? string : Extract<keyof INPUT, string>)
  | ReadonlyArray<unknown extends INPUT ? string : Extract<keyof INPUT, string>>
  | ((input: INPUT) => string | Iterable<string> | null | undefined)

/**
 * Declares `tool` as editing files: a copy of it that says which input
 * fields hold its paths (by default `DEFAULT_PATH_FIELDS`; a call whose input
 * has none of the named fields fails without running). Nothing is captured
 * until a run wraps it: `run.tools({ ... })`.
 */
export declare function editsFiles<T extends Tool<any, any>>(tool: T, paths?: EditedPaths<InferToolInput<T>>): T

/** What `undo()` did: the reports of the run's rollbacks, together. */
export interface RunUndoReport {
  /** Every rollback accepted its snapshot and restored every path. */
  ok: boolean
  /** The paths restored, sorted. */
  restored: Array<string>
  /** The paths that could not be restored, each with its code and reason. */
  unrestored: Array<PathProblem>
  /** One report per snapshot, latest snapshot first (the order they were rolled back). */
  reports: Array<RollbackReport>
}

/**
 * One agent run's checkpoint. Its wrapped tools capture their paths before
 * `execute` runs and roll them back when it throws or rejects (the error
 * is still the one the AI SDK sees, with `rollbackReport` / `rollbackError`
 * on it when the rollback did not restore everything). The run captures
 * every path when first touched, so `undo()` brings the whole run back.
 * Calls over one path run one after the other (the AI SDK runs a step's
 * tool calls concurrently).
 */
export interface CheckpointRun {
  /** The root given to `checkpointRun`. */
  readonly root: string
  /** Every path the run's tools touched (canonical), in the order first touched. */
  readonly paths: ReadonlyArray<string>
  /**
   * The run's snapshots (JSON text) in capture order, each path in exactly
   * one: rolling them back latest first (`rollback(root, snapshot)`) is what
   * `undo()` does, for a run undone later from where they were kept.
   */
  readonly snapshots: ReadonlyArray<string>
  /** Whether `undo()` was called. */
  readonly undone: boolean
  /** The tool set with every tool declared by `editsFiles` wrapped for this run; other tools as they are. */
  tools<TOOLS extends Record<string, Tool<any, any>>>(tools: TOOLS): TOOLS
  /** `tool` wrapped for this run as editing files (`paths` as in `editsFiles`; by default what it declared). */
  tool<T extends Tool<any, any>>(tool: T, paths?: EditedPaths<InferToolInput<T>>): T
  /**
   * Rolls back every path the run touched, once the calls running now have
   * ended. At most once: a later call gives the same report, and the run's
   * tools refuse to run afterwards.
   */
  undo(): Promise<RunUndoReport>
}

/** One checkpoint for one agent run over `root`, with the capture and rollback options `checkpointGuard` takes (`store` is not used by a run). */
export declare function checkpointRun(root: string, options?: GuardOptions | undefined | null): CheckpointRun
