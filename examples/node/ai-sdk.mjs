// An agent run with the Vercel AI SDK (`ai` 5) over a project directory:
// its file-editing tools are captured before they run and rolled back when
// they fail, and the whole run can be undone afterwards.
//
//   npm install @agent-checkpoint/node ai zod
//   node ai-sdk.mjs
//
// The model is the AI SDK's scripted mock (`ai/test`), so this runs offline
// and prints the same every time: it calls `writeFile` twice, then
// `replaceInFiles`, which edits two files and fails on the third. With a
// real provider, pass its model instead (`model: openai('gpt-5')`, ...).
// bindings-node/__test__/ai-sdk.test.mjs runs this file and checks what it
// prints against the `//>` lines.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { generateText, stepCountIs, tool } from 'ai'
import { MockLanguageModelV2 } from 'ai/test'
import { z } from 'zod'
import { checkpointRun, editsFiles } from '@agent-checkpoint/node/ai-sdk'

const root = mkdtempSync(join(tmpdir(), 'ai-sdk-example-'))
writeFileSync(join(root, 'app.js'), "console.log('v1')\n")
/** @param {string} rel */
const show = (rel) => (existsSync(join(root, rel)) ? readFileSync(join(root, rel), 'utf8').trim() : '(none)')

// Tools declared as editing files: `path` and `paths` are read by default;
// editsFiles(tool, ['target']) names other fields, or a function finds them.
const writeFile = editsFiles(
  tool({
    description: 'Write a file of the project',
    inputSchema: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path, content }) => {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), content)
      return `wrote ${path}`
    },
  }),
)
const replaceInFiles = editsFiles(
  tool({
    description: 'Replace a string in every one of the files',
    inputSchema: z.object({ paths: z.array(z.string()), search: z.string(), replace: z.string() }),
    execute: async ({ paths, search, replace }) => {
      for (const path of paths) {
        if (!existsSync(join(root, path))) throw new Error(`no such file: ${path}`) // half way
        const text = readFileSync(join(root, path), 'utf8')
        writeFileSync(join(root, path), text.replaceAll(search, replace))
      }
      return `replaced in ${paths.length} files`
    },
  }),
)

// The script the mock model follows: one response per step.
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
/** @param {string} toolCallId @param {string} toolName @param {object} input */
const call = (toolCallId, toolName, input) =>
  /** @type {const} */ ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) })
const model = new MockLanguageModelV2({
  doGenerate: [
    {
      content: [
        call('1', 'writeFile', { path: 'app.js', content: "console.log('v2')\n" }),
        call('2', 'writeFile', { path: 'lib/util.js', content: "export const version = 'v2'\n" }),
      ],
      finishReason: 'tool-calls',
      usage,
      warnings: [],
    },
    {
      content: [call('3', 'replaceInFiles', { paths: ['app.js', 'lib/util.js', 'lib/gone.js'], search: 'v2', replace: 'v3' })],
      finishReason: 'tool-calls',
      usage,
      warnings: [],
    },
    { content: [{ type: 'text', text: 'Done.' }], finishReason: 'stop', usage, warnings: [] },
  ],
})

// One checkpoint for the run; its tools are the run's.
const run = checkpointRun(root)
const result = await generateText({
  model,
  tools: run.tools({ writeFile, replaceInFiles }),
  stopWhen: stepCountIs(10),
  prompt: 'Bump the version to v2, then to v3.',
})

for (const part of result.steps.flatMap((step) => step.content)) {
  if (part.type === 'tool-result') console.log('result:', part.toolName, part.output)
  if (part.type === 'tool-error') console.log('error: ', part.toolName, String(part.error))
}
//> result: writeFile wrote app.js
//> result: writeFile wrote lib/util.js
//> error:  replaceInFiles Error: no such file: lib/gone.js

// The failed call's edits were rolled back; the calls before it are kept.
console.log(show('app.js'), '|', show('lib/util.js'))
//> console.log('v2') | export const version = 'v2'

// The whole run, undone: every path its tools touched, as before the run.
console.log([...run.paths].sort().join(' '))
//> app.js lib/gone.js lib/util.js
const report = await run.undo()
console.log(report.ok, show('app.js'), '|', show('lib/util.js'), existsSync(join(root, 'lib')))
//> true console.log('v1') | (none) false
rmSync(root, { recursive: true })
