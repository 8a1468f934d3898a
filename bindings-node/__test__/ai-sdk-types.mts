// Compiled (never run) by `tsc -p __test__/tsconfig.ai-sdk.json` with
// examples/node/ai-sdk.mjs: the typings of `@agent-checkpoint/node/ai-sdk`
// (ai-sdk.d.ts, over the pinned `ai`) must accept this and reject the
// `@ts-expect-error` lines.

import { generateText, stepCountIs, tool } from 'ai'
import { MockLanguageModelV2 } from 'ai/test'
import { z } from 'zod'
import type { RollbackReport } from '@agent-checkpoint/node'
import {
  type CheckpointRun,
  type EditedPaths,
  type RunUndoReport,
  DEFAULT_PATH_FIELDS,
  checkpointRun,
  editsFiles,
} from '@agent-checkpoint/node/ai-sdk'

const write = tool({
  inputSchema: z.object({ target: z.string(), content: z.string() }),
  execute: async ({ target, content }) => `${target}: ${content.length}`,
})
const patch = tool({
  inputSchema: z.object({ path: z.string() }),
  async *execute({ path }) {
    yield `patching ${path}`
  },
})

export async function typed(root: string): Promise<void> {
  const byField = editsFiles(write, 'target')
  const byFields = editsFiles(write, ['target'])
  const byFunction = editsFiles(write, (input) => [input.target])
  const byDefault = editsFiles(patch)
  const spec: EditedPaths<{ a: string; b: string[] }> = ['a', 'b']
  const fields: readonly string[] = DEFAULT_PATH_FIELDS
  // @ts-expect-error not a field of the tool's input
  editsFiles(write, 'nope')
  // @ts-expect-error the function gets the tool's typed input
  editsFiles(write, (input) => [input.nope])
  // @ts-expect-error paths are strings
  editsFiles(write, (input) => [input.content.length])

  const run: CheckpointRun = checkpointRun(root, { key: 'secret', durable: false })
  const tools = run.tools({ byField, byFields, byFunction, byDefault, plain: write })
  const same: typeof byField = tools.byField
  const one = run.tool(write, 'content')
  const result = await generateText({
    model: new MockLanguageModelV2(),
    tools: { ...tools, one },
    stopWhen: stepCountIs(3),
    prompt: 'typed',
  })
  const report: RunUndoReport = await run.undo()
  const reports: RollbackReport[] = report.reports
  const paths: ReadonlyArray<string> = run.paths
  const snapshots: ReadonlyArray<string> = run.snapshots
  const done: boolean = run.undone && report.ok
  console.log(spec, fields, same, result.text, reports, paths, snapshots, done, report.restored, report.unrestored)
  // @ts-expect-error the run's options are the guards'
  checkpointRun(root, { onConflict: 'skip' })
  // @ts-expect-error the run's root is a string
  checkpointRun(42)
}
