// `@agent-checkpoint/node/ai-sdk` (ai-sdk.js) inside the AI SDK's own agent
// loop: `generateText` (and `streamText`) with tools and a stop condition,
// driven by the SDK's scripted `MockLanguageModelV2` (`ai/test`), no network.
// Every case edits real files in a temp dir and compares them, bytes,
// afterwards.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import { MockLanguageModelV2, convertArrayToReadableStream } from 'ai/test'
import { z } from 'zod'
import { rollback } from '@agent-checkpoint/node'
import { DEFAULT_PATH_FIELDS, checkpointRun, editsFiles } from '@agent-checkpoint/node/ai-sdk'

const here = path.dirname(fileURLToPath(import.meta.url))
const BINARY = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x0a, 0x0d])

/** A temp dir `<tmp>/root` with a text file, a binary file and notes; removed after the test. */
function tempRoot(t) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-node-ai-sdk-'))
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }))
  const root = path.join(tmp, 'root')
  fs.mkdirSync(path.join(root, 'src'), { recursive: true })
  fs.writeFileSync(path.join(root, 'src/app.py'), 'v1\n')
  fs.writeFileSync(path.join(root, 'data.bin'), BINARY)
  fs.writeFileSync(path.join(root, 'notes.md'), 'notes 1\n')
  return root
}

/** Every file under `root` with its bytes (hex), and every directory as `<dir>/`. */
function tree(root) {
  const out = {}
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`
      if (entry.isDirectory()) {
        out[`${rel}/`] = 'dir'
        walk(rel)
      } else {
        out[rel] = fs.readFileSync(path.join(root, rel)).toString('hex')
      }
    }
  }
  walk('')
  return out
}

const hex = (value) => Buffer.from(value).toString('hex')
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }

/**
 * The AI SDK's mock model, scripted: each step is a list of tool calls
 * `[toolName, input]` (the model stops for the tools to run) or a text (the
 * model's last answer).
 */
function scripted(...steps) {
  let id = 0
  return new MockLanguageModelV2({
    doGenerate: steps.map((step) =>
      typeof step === 'string'
        ? { content: [{ type: 'text', text: step }], finishReason: 'stop', usage, warnings: [] }
        : {
            content: step.map(([toolName, input]) => ({
              type: 'tool-call',
              toolCallId: `call-${++id}`,
              toolName,
              input: JSON.stringify(input),
            })),
            finishReason: 'tool-calls',
            usage,
            warnings: [],
          },
    ),
  })
}

const parts = (result, type) => result.steps.flatMap((s) => s.content).filter((p) => p.type === type)

/** Writes `b64` (bytes) to `path` under `root`, creating its directory. */
function writeBytes(root, rel, b64) {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), Buffer.from(b64, 'base64'))
}

/** The file-editing tools of these tests, over `root`. */
function fileTools(root) {
  return {
    writeFile: editsFiles(
      tool({
        description: 'Write bytes (base64) to a file',
        inputSchema: z.object({ path: z.string(), b64: z.string() }),
        execute: async ({ path: rel, b64 }) => {
          writeBytes(root, rel, b64)
          return `wrote ${rel}`
        },
      }),
    ),
    // Writes each file in turn and fails after `failAfter` of them.
    editThenFail: editsFiles(
      tool({
        description: 'Write bytes to several files, failing midway',
        inputSchema: z.object({ paths: z.array(z.string()), b64: z.string(), failAfter: z.number() }),
        execute: async ({ paths, b64, failAfter }) => {
          for (const [i, rel] of paths.entries()) {
            if (i === failAfter) throw new Error(`failed at ${rel}`)
            writeBytes(root, rel, b64)
            await sleep(1)
          }
          return 'unreachable'
        },
      }),
    ),
    // Not declared as editing files: passed on as it is.
    readFile: tool({
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path: rel }) => fs.readFileSync(path.join(root, rel), 'utf8'),
    }),
  }
}

const V2 = Buffer.from('v2\n').toString('base64')
const NEW = Buffer.from([9, 8, 7, 0]).toString('base64')
const BAD = Buffer.from('half done\n').toString('base64')

test('an agent run: the failed tool is rolled back, the earlier kept, and undo() undoes the whole run', async (t) => {
  const root = tempRoot(t)
  const before = tree(root)
  const run = checkpointRun(root)
  const tools = fileTools(root)
  const result = await generateText({
    model: scripted(
      [
        ['writeFile', { path: 'src/app.py', b64: V2 }],
        ['writeFile', { path: 'gen/new.bin', b64: NEW }],
        ['readFile', { path: 'notes.md' }],
      ],
      [['editThenFail', { paths: ['src/app.py', 'data.bin', 'gen/deep/x.bin', 'notes.md'], b64: BAD, failAfter: 3 }]],
      // Into the directory the run made: undo() must roll this back first.
      [['writeFile', { path: 'gen/later.bin', b64: V2 }]],
      'Done.',
    ),
    tools: run.tools(tools),
    stopWhen: stepCountIs(10),
    prompt: 'Edit the project.',
  })

  assert.equal(result.steps.length, 4)
  assert.equal(result.text, 'Done.')
  assert.deepEqual(
    parts(result, 'tool-result').map((p) => [p.toolName, p.output]),
    [
      ['writeFile', 'wrote src/app.py'],
      ['writeFile', 'wrote gen/new.bin'],
      ['readFile', 'notes 1\n'],
      ['writeFile', 'wrote gen/later.bin'],
    ],
  )
  const [error] = parts(result, 'tool-error')
  assert.equal(error.toolName, 'editThenFail')
  assert.equal(error.error.message, 'failed at notes.md')
  assert.equal('rollbackReport' in error.error || 'rollbackError' in error.error, false)

  // The failed call's three writes (one in a new directory) are gone; the
  // first step's edits are as the first step left them.
  assert.deepEqual(tree(root), {
    ...before,
    'src/app.py': hex('v2\n'),
    'gen/': 'dir',
    'gen/new.bin': hex([9, 8, 7, 0]),
    'gen/later.bin': hex('v2\n'),
  })

  const touched = ['data.bin', 'gen/deep/x.bin', 'gen/later.bin', 'gen/new.bin', 'notes.md', 'src/app.py']
  assert.deepEqual([...run.paths].sort(), touched)
  assert.equal(run.undone, false)
  const report = await run.undo()
  assert.equal(report.ok, true)
  assert.deepEqual(report.restored, touched)
  assert.deepEqual(report.unrestored, [])
  assert.equal(report.reports.length, run.snapshots.length)
  assert.deepEqual(tree(root), before)

  // At most once, and the run's tools refuse to run afterwards.
  fs.writeFileSync(path.join(root, 'src/app.py'), 'after undo\n')
  assert.equal(await run.undo(), report)
  assert.equal(run.undone, true)
  const wrapped = run.tools(tools).writeFile
  await assert.rejects(wrapped.execute({ path: 'src/app.py', b64: V2 }, { toolCallId: 'x', messages: [] }), /undone/)
  assert.equal(fs.readFileSync(path.join(root, 'src/app.py'), 'utf8'), 'after undo\n')
})

test("the run's snapshots, kept elsewhere, undo it later too (latest first)", async (t) => {
  const root = tempRoot(t)
  const before = tree(root)
  const run = checkpointRun(root)
  await generateText({
    model: scripted(
      [['writeFile', { path: 'gen/a.bin', b64: NEW }]],
      [['writeFile', { path: 'gen/b.bin', b64: NEW }]],
      [['editThenFail', { paths: ['gen/a.bin', 'src/app.py'], b64: BAD, failAfter: 5 }]],
      'Done.',
    ),
    tools: run.tools(fileTools(root)),
    stopWhen: stepCountIs(10),
    prompt: 'Edit the project.',
  })
  // Each path is in exactly one snapshot, captured when first touched.
  const snapshots = run.snapshots
  assert.equal(snapshots.length, 3)
  assert.equal(tree(root)['src/app.py'], hex('half done\n'))
  for (const snapshot of [...snapshots].reverse()) assert.equal(rollback(root, snapshot).ok, true)
  // gen/ was made by the run: gone again, though gen/b.bin was captured after.
  assert.deepEqual(tree(root), before)
})

test('streamText runs the wrapped tools the same way', async (t) => {
  const root = tempRoot(t)
  const before = tree(root)
  const run = checkpointRun(root)
  // The scripted steps as streams: tool calls, then a text.
  const finish = (finishReason) => ({ type: 'finish', finishReason, usage })
  const calls = (...list) =>
    list.map(([toolName, input], i) => ({ type: 'tool-call', toolCallId: `s-${toolName}-${i}`, toolName, input: JSON.stringify(input) }))
  const model = new MockLanguageModelV2({
    doStream: [
      [calls(['writeFile', { path: 'gen/new.bin', b64: NEW }]), 'tool-calls'],
      [calls(['editThenFail', { paths: ['src/app.py', 'gen/new.bin'], b64: BAD, failAfter: 1 }]), 'tool-calls'],
      [[{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Done.' }, { type: 'text-end', id: 't' }], 'stop'],
    ].map(([chunks, reason]) => ({
      stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, ...chunks, finish(reason)]),
    })),
  })
  const result = streamText({
    model,
    tools: run.tools(fileTools(root)),
    stopWhen: stepCountIs(10),
    prompt: 'Edit the project.',
  })
  assert.equal(await result.text, 'Done.')
  const steps = await result.steps
  assert.deepEqual(
    steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error').map((p) => p.error.message),
    ['failed at gen/new.bin'],
  )
  assert.deepEqual(tree(root), { ...before, 'gen/': 'dir', 'gen/new.bin': hex([9, 8, 7, 0]) })
  assert.equal((await run.undo()).ok, true)
  assert.deepEqual(tree(root), before)
})

test('the default path fields, field names, and a function of the input say what is captured', async (t) => {
  const root = tempRoot(t)
  const options = { toolCallId: 'c', messages: [] }
  assert.deepEqual([...DEFAULT_PATH_FIELDS], ['path', 'filePath', 'file_path', 'paths', 'filePaths', 'file_paths'])
  // A tool that writes every string of its input (at any depth) as a path, then fails.
  const strings = (value) =>
    typeof value === 'string' ? [value] : Object.values(value ?? {}).flatMap((v) => strings(v))
  const failing = (inputSchema) =>
    tool({
      inputSchema,
      execute: async (input) => {
        for (const rel of strings(input)) writeBytes(root, rel, BAD)
        throw new Error('fail')
      },
    })
  const run = checkpointRun(root)
  const before = tree(root)
  for (const field of DEFAULT_PATH_FIELDS) {
    const wrapped = run.tool(editsFiles(failing(z.object({ [field]: z.any() }))))
    const value = field.endsWith('s') ? ['src/app.py', `new/${field}.txt`] : `new/${field}.txt`
    await assert.rejects(wrapped.execute({ [field]: value }, options), /fail/)
    assert.deepEqual(tree(root), before, field)
  }
  const declared = [
    [editsFiles(failing(z.object({ target: z.string() })), 'target'), { target: 'src/app.py' }],
    [editsFiles(failing(z.object({ a: z.string(), b: z.array(z.string()) })), ['a', 'b']), { a: 'data.bin', b: ['x/y'] }],
    [editsFiles(failing(z.object({ edits: z.array(z.object({ file: z.string() })) })), (input) => input.edits.map((e) => e.file)),
      { edits: [{ file: 'notes.md' }] }],
  ]
  for (const [declaredTool, input] of declared) {
    await assert.rejects(run.tool(declaredTool).execute(input, options), /fail/)
    assert.deepEqual(tree(root), before, JSON.stringify(input))
  }
  // The function's paths are what it returns, the edits outside them are not rolled back.
  const partial = editsFiles(failing(z.object({ x: z.string(), y: z.string() })), (input) => [input.x])
  await assert.rejects(run.tool(partial).execute({ x: 'src/app.py', y: 'notes.md' }, options), /fail/)
  assert.deepEqual(tree(root), { ...before, 'notes.md': hex('half done\n') })

  // A declared tool whose input holds none of its path fields does not run.
  let ran = false
  const unnamed = editsFiles(tool({ inputSchema: z.object({ filename: z.string() }), execute: async () => (ran = true) }))
  await assert.rejects(run.tool(unnamed).execute({ filename: 'notes.md' }, options), {
    name: 'TypeError',
    message: /none of the path fields path, filePath/,
  })
  await assert.rejects(run.tool(unnamed, 'filename').execute({ filename: 42 }, options), TypeError)
  assert.equal(ran, false)
  // A path outside the root is refused by the capture: the tool does not run either.
  await assert.rejects(run.tool(unnamed, 'filename').execute({ filename: '../outside' }, options), {
    code: 'path_escapes_root',
  })
  assert.equal(ran, false)
  // An explicit empty list is nothing to capture: the tool runs as it is.
  assert.equal(await run.tool(unnamed, () => []).execute({ filename: 'x' }, options), true)

  // Tools not declared pass through as they are; a declared tool needs execute.
  const plain = tool({ inputSchema: z.object({}), execute: async () => 1 })
  const set = run.tools({ plain, declared: editsFiles(plain) })
  assert.equal(set.plain, plain)
  assert.notEqual(set.declared.execute, plain.execute)
  assert.equal(run.tools(set).declared, set.declared) // wrapped once per run
  assert.throws(() => run.tool(editsFiles(tool({ inputSchema: z.object({ path: z.string() }) }))), /no execute/)
  assert.throws(() => editsFiles(plain, []), TypeError)
  assert.throws(() => editsFiles(null), TypeError)
})

test('calls over one path in one step run one after the other, so a rollback keeps the other call', async (t) => {
  const root = tempRoot(t)
  const run = checkpointRun(root)
  const result = await generateText({
    model: scripted(
      [
        ['writeFile', { path: 'src/app.py', b64: V2 }],
        ['editThenFail', { paths: ['src/app.py', 'notes.md'], b64: BAD, failAfter: 1 }],
        ['writeFile', { path: 'notes.md', b64: V2 }],
      ],
      'Done.',
    ),
    tools: run.tools(fileTools(root)),
    stopWhen: stepCountIs(10),
    prompt: 'Edit the project.',
  })
  assert.equal(parts(result, 'tool-error').length, 1)
  // The failing call captured src/app.py after the first call wrote it, and
  // notes.md was written only after it was rolled back.
  assert.equal(fs.readFileSync(path.join(root, 'src/app.py'), 'utf8'), 'v2\n')
  assert.equal(fs.readFileSync(path.join(root, 'notes.md'), 'utf8'), 'v2\n')
  assert.equal((await run.undo()).ok, true)
  assert.equal(fs.readFileSync(path.join(root, 'src/app.py'), 'utf8'), 'v1\n')
  assert.equal(fs.readFileSync(path.join(root, 'notes.md'), 'utf8'), 'notes 1\n')
})

test('a streaming tool (async function*) is guarded across its whole stream', async (t) => {
  const root = tempRoot(t)
  const before = tree(root)
  const run = checkpointRun(root)
  const seen = []
  const stream = editsFiles(
    tool({
      inputSchema: z.object({ paths: z.array(z.string()), fail: z.boolean() }),
      async *execute({ paths, fail }) {
        for (const rel of paths) {
          writeBytes(root, rel, BAD)
          yield `wrote ${rel}`
        }
        if (fail) throw new Error('stream broke')
        yield 'all written'
      },
    }),
  )
  const wrapped = run.tool(stream)
  for await (const value of wrapped.execute({ paths: ['a.txt'], fail: false }, { toolCallId: 'c', messages: [] })) {
    seen.push(value)
  }
  assert.deepEqual(seen, ['wrote a.txt', 'all written'])
  const result = await generateText({
    model: scripted([['stream', { paths: ['src/app.py', 'gen/x.txt'], fail: true }]], 'Done.'),
    tools: { stream: wrapped },
    stopWhen: stepCountIs(10),
    prompt: 'Stream.',
  })
  assert.equal(parts(result, 'tool-error')[0].error.message, 'stream broke')
  assert.deepEqual(tree(root), { ...before, 'a.txt': hex('half done\n') })
  assert.equal((await run.undo()).ok, true)
  assert.deepEqual(tree(root), before)
})

test('an aborted run: the tool rejects with the AbortError and its edits are rolled back', async (t) => {
  const root = tempRoot(t)
  const before = tree(root)
  const run = checkpointRun(root)
  const controller = new AbortController()
  const slow = editsFiles(
    tool({
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path: rel }, { abortSignal }) => {
        writeBytes(root, rel, BAD)
        await sleep(60_000, undefined, { signal: abortSignal }) // aborted here
        writeBytes(root, rel, V2)
      },
    }),
  )
  const running = generateText({
    model: scripted([['slow', { path: 'src/app.py' }]], 'Done.'),
    tools: run.tools({ slow }),
    stopWhen: stepCountIs(10),
    abortSignal: controller.signal,
    prompt: 'Go.',
  })
  while (tree(root)['src/app.py'] !== hex('half done\n')) await sleep(1)
  controller.abort()
  const outcome = await running.then(
    (result) => parts(result, 'tool-error')[0].error,
    (err) => err,
  )
  assert.equal(outcome.name, 'AbortError')
  assert.deepEqual(tree(root), before)
})

test('a sealed run: every snapshot carries the key, and undo checks it', async (t) => {
  const root = tempRoot(t)
  const before = tree(root)
  const run = checkpointRun(root, { key: 'the agent key' })
  await generateText({
    model: scripted([['writeFile', { path: 'src/app.py', b64: V2 }]], 'Done.'),
    tools: run.tools(fileTools(root)),
    stopWhen: stepCountIs(10),
    prompt: 'Edit.',
  })
  assert.equal(run.snapshots.length, 1)
  assert.match(run.snapshots[0], /"mac"/)
  assert.equal(rollback(root, run.snapshots[0], { key: 'another key' }).errorCode, 'unauthenticated')
  assert.equal((await run.undo()).ok, true)
  assert.deepEqual(tree(root), before)
})

test('examples/node/ai-sdk.mjs runs and prints what its //> lines show', (t) => {
  const source = path.join(here, '..', '..', 'examples', 'node', 'ai-sdk.mjs')
  const code = fs.readFileSync(source, 'utf8')
  const shown = code
    .split('\n')
    .filter((line) => line.trim().startsWith('//> '))
    .map((line) => line.trim().slice(4))
  assert.equal(shown.length, 6)
  // Run from here, so the package (by its name) and `ai` resolve as a user's do.
  const file = path.join(here, 'ai-sdk-example.tmp.mjs')
  fs.writeFileSync(file, code)
  t.after(() => fs.rmSync(file, { force: true }))
  const out = execFileSync(process.execPath, [file], { encoding: 'utf8' })
  assert.deepEqual(out.replace(/\n$/, '').split('\n'), shown)
})
