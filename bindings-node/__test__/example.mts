// Compiled (never run) by `tsc -p __test__/tsconfig.json` against the
// committed index.d.ts: the typings must accept this and reject the
// `@ts-expect-error` lines.

import {
  type CheckpointError,
  type ErrorCode,
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
  recordApplied,
  recordAppliedAsync,
  rollback,
  rollbackAsync,
  ulidTimestampMs,
  PROMPT_SEPARATOR,
} from 'agent-checkpoint'

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
  if (code === 'malformed_snapshot' || report.ok) console.log(report.restored, report.failures['x'])
  const later: RollbackReport = await rollbackAsync(root, again, { allowGitDir: true })
  console.log(later.unrestored.join(','))

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
}
