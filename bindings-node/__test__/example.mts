// Compiled (never run) by `tsc -p __test__/tsconfig.json` against the
// committed index.d.ts: the typings must accept this and reject the
// `@ts-expect-error` lines.

import {
  CheckpointStore,
  type PushPlan,
  type PushResult,
  type CheckpointError,
  type CheckpointGuard,
  checkpointGuard,
  checkpointGuardAsync,
  type GuardOptions,
  withCheckpoint,
  type DiffLine,
  type DiffLineKind,
  type ErrorCode,
  type Hunk,
  type ProgressStage,
  type RollbackReport,
  createCheckpoint,
  createCheckpointAsync,
  inspectSnapshot,
  newUlid,
  parseRef,
  parseShadowBranchName,
  type PlanAction,
  type PlanItem,
  planRollback,
  planRollbackAsync,
  PushQueue,
  type BlobRedaction,
  type Finding,
  type Redaction,
  Redactor,
  redactBlob,
  redactBlobAsync,
  redactJson,
  redactJsonAsync,
  redactText,
  redactTextAsync,
  recordApplied,
  recordAppliedAsync,
  rollback,
  rollbackAsync,
  ulidTimestampMs,
  PROMPT_SEPARATOR,
} from '@agent-checkpoint/node'

// The guards (README.md, "Node: `withCheckpoint` and `using`" quotes the two
// functions below).
function applyBatch(root: string, edit: (root: string) => void): void {
  using guard = checkpointGuard(root, ['src/app.py', 'gen/new.py'])
  edit(root) // if it throws, the end of the scope rolls the paths back
  guard.keep() // reached only when the batch succeeded
}

async function applyBatchAsync(root: string, edit: (root: string) => Promise<void>): Promise<void> {
  await using guard = await checkpointGuardAsync(root, ['src/app.py'], { durable: false })
  await edit(root) // a rejection: rolled back off the JS thread
  guard.keep()
}

export async function guards(root: string): Promise<void> {
  applyBatch(root, () => {})
  await applyBatchAsync(root, async () => {})
  const options: GuardOptions = { key: 'secret', redo: false, onProgress: (stage, done, total) => console.log(stage, done, total) }
  const lines: number = await withCheckpoint(root, ['a.txt'], async (g: CheckpointGuard) => {
    const snapshot: string = g.snapshot
    return snapshot.length
  }, options)
  const same: string = await withCheckpoint(root, ['a.txt'], () => 'sync callbacks too')
  const g = checkpointGuard(root, ['a.txt'])
  const report: RollbackReport = g.rollback()
  const later: RollbackReport = await g.rollbackAsync()
  const last: RollbackReport | null = g.report
  console.log(lines, same, report.ok, later.ok, last?.ok, g.kept, g.rolledBack, g.rollbackError)
  g[Symbol.dispose]()
  await g[Symbol.asyncDispose]()
  // A kept batch written to a store on the way out.
  const store = new CheckpointStore(root)
  let kept: string | null = null
  await withCheckpoint(root, ['a.txt'], (k) => {
    k.keep()
  }, { store, sessionId: 's1', session: { agent: 'my-agent', prompts: ['p'] } })
  const viaGuard = checkpointGuard(root, ['a.txt'], { store })
  kept = viaGuard.writeToStore() ?? (await viaGuard.writeToStoreAsync())
  const id: string | null = viaGuard.checkpointId
  console.log(kept, id, viaGuard.storeError)
  // @ts-expect-error the store is a CheckpointStore
  checkpointGuard(root, ['a.txt'], { store: 'repo' })
  // push is typed by its options: a plan for a dry run, else the result.
  const pushed: PushResult = store.push('origin')
  const alsoPushed: PushResult = await store.pushAsync('origin', { dryRun: false })
  const plan: PushPlan = store.push('origin', { dryRun: true })
  const planned: PushPlan = await store.pushAsync(undefined, { dryRun: true })
  const dryRun: boolean = Math.random() > 0.5
  const either: PushResult | PushPlan = store.push('origin', { dryRun })
  const workDir: string | null = store.workDir
  console.log(pushed.pushed, alsoPushed.pushed, plan.checkpoints, planned.checkpoints, either, workDir)
  // @ts-expect-error a dry run is a plan, not a push's result
  const notPushed: PushResult = store.push('origin', { dryRun: true })
  // @ts-expect-error the guard's options are the capture's and the rollback's
  checkpointGuard(root, ['a.txt'], { onConflict: 'skip' })
  // @ts-expect-error report is null until a rollback finished
  const notYet: RollbackReport = g.report
  // @ts-expect-error the snapshot is read-only
  g.snapshot = ''
  console.log(notYet)
}

function isCheckpointError(err: unknown): err is CheckpointError {
  return err instanceof Error && 'code' in err
}

export async function example(root: string): Promise<void> {
  const snapshot: string = createCheckpoint(root, ['src/a.py', { file: 'gen/new.py' }], {
    allowGitDir: false,
    maxFileBytes: 1 << 20,
  })
  const again: string = await createCheckpointAsync(root, ['src/a.py'])

  const report: RollbackReport = rollback(root, snapshot, { durable: false })
  const code: ErrorCode | null = report.errorCode
  if (code === 'malformed_snapshot' || report.ok) console.log(report.restored, report.unrestored[0]?.code, report.plan[0]?.action)
  const later: RollbackReport = await rollbackAsync(root, again, { allowGitDir: true })
  console.log(later.unrestored.map((u) => `${u.path}: ${u.reason}`).join(','), later.otherRoot)

  try {
    createCheckpoint(root, ['../outside'])
  } catch (err) {
    if (isCheckpointError(err) && err.code === 'path_escapes_root') console.log(err.path, err.errno)
  }

  for (const item of inspectSnapshot(snapshot)) {
    const size: number | null = item.size
    if (item.kind === 'link') console.log(item.linkTarget, size, item.mode)
  }

  const ms: number | null = ulidTimestampMs(newUlid(Date.now()))
  const id: string | null = parseRef('refs/entire/checkpoints/f6/a1b2c3d4e5f6')
  const parts = parseShadowBranchName('entire/abc1234-e3b0c4')
  console.log(ms, id, parts?.commitPrefix, parts?.worktreeHash, PROMPT_SEPARATOR)

  const queue = new PushQueue('/repo/.git')
  queue.enqueue('refs/entire/checkpoints/f6/a1b2c3d4e5f6')
  queue.enqueueAll([])
  const refs: string[] = queue.drain()
  queue.remove(refs.concat(queue.peek()))
  const file: string = queue.path
  console.log(file)

  // Preview, guard, redo, sealing.
  const key = new TextEncoder().encode('secret')
  const sealed: string = createCheckpoint(root, ['src/a.py'], { key })
  const applied: string = recordApplied(root, sealed, { key, allowGitDir: false })
  const appliedLater: string = await recordAppliedAsync(root, sealed, { key })
  const plan: PlanItem[] = planRollback(root, applied, { key, onConflict: 'skip' })
  for (const item of plan) {
    const action: PlanAction = item.action
    if (action === 'conflict' || item.conflict) console.log(item.path)
  }
  console.log((await planRollbackAsync(root, appliedLater)).length)
  const guarded: RollbackReport = rollback(root, applied, { key: 'secret', onConflict: 'skip', redo: true })
  const skipped: string[] = guarded.conflicts
  const redo: string | null = guarded.redo
  if (redo !== null) console.log((await rollbackAsync(root, redo, { redo: false })).ok, skipped)
  const sealedLater: string = await createCheckpointAsync(root, ['src/a.py'], { key: 'secret' })
  console.log(sealedLater)

  // @ts-expect-error onConflict is 'overwrite' or 'skip'
  rollback(root, applied, { onConflict: 'ignore' })
  // @ts-expect-error a key is a string or bytes
  createCheckpoint(root, ['src/a.py'], { key: 42 })
  // @ts-expect-error plan actions are a closed set
  if (plan[0]?.action === 'delete') console.log()
  // @ts-expect-error redo is nullable
  const redoText: string = guarded.redo
  console.log(redoText)

  // @ts-expect-error operations are strings or { file }
  createCheckpoint(root, [{ path: 'a' }])
  // @ts-expect-error errorCode is a closed set
  if (report.errorCode === 'no_such_code') console.log()
  // @ts-expect-error the async variant returns a Promise
  const notAString: string = createCheckpointAsync(root, [])
  console.log(notAString)

  // Diffs and progress.
  const diffed: PlanItem[] = planRollback(root, applied, { diff: true, diffContext: 1, diffMaxBytes: 1 << 20 })
  for (const item of diffed) {
    const summary: string | null = item.diffSummary
    const hunk: Hunk | undefined = item.hunks[0]
    const line: DiffLine | undefined = hunk?.lines[0]
    const kind: DiffLineKind | undefined = line?.kind
    const oldLine: number | undefined = line?.oldLine
    console.log(item.diff, summary, hunk?.oldStart, hunk?.newLines, kind, oldLine, line?.newLine)
  }
  const onProgress = (stage: ProgressStage, done: number, total: number): void => console.log(stage, done, total)
  await createCheckpointAsync(root, ['src/a.py'], { onProgress })
  await planRollbackAsync(root, applied, { diff: true, onProgress })
  await rollbackAsync(root, applied, { onProgress })
  // @ts-expect-error the synchronous functions take no progress callback (the JS thread is blocked)
  rollback(root, applied, { onProgress })
  // @ts-expect-error diff line kinds are a closed set
  if (diffed[0]?.hunks[0]?.lines[0]?.kind === 'changed') console.log()

  // Redaction.
  const clean: string = redactText('key=AKIAYRWQG5EJLPZLBYNP', { personalData: true, rules: [['ticket', 'TICKET-[0-9]+']] })
  const cleanJson: string = redactJson('{"a": 1}') + (await redactJsonAsync('{}', {})) + (await redactTextAsync(clean))
  const bytes: Uint8Array = redactBlob('a.jsonl', new Uint8Array([1])) ?? (await redactBlobAsync('a.txt', new TextEncoder().encode('x')))
  const redactor = new Redactor({ rules: [['ticket', 'TICKET-[0-9]+']] })
  const withFindings: Redaction = redactor.redactTextWithFindings(cleanJson)
  const first: Finding | undefined = withFindings.findings[0]
  const blob: BlobRedaction = await redactor.redactBlobWithFindingsAsync('a.json', bytes)
  const names: string[] = redactor.ruleNames
  console.log(first?.rule, first?.start, blob.output.length, names, redactor.personalData)
  // @ts-expect-error rules are [name, pattern] pairs
  redactText('x', { rules: ['ticket'] })
  // @ts-expect-error findings carry no secret text
  console.log(withFindings.findings[0]?.text)
}
