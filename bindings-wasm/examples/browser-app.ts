// A browser app's use of the package (type-checked by scripts/wasm against
// pkg/web's .d.ts): an editor's open buffers as a CheckpointFs, a checkpoint
// before an AI batch edit, and a rollback.

import init, {
  createCheckpoint,
  inspectSnapshot,
  MemoryFs,
  newUlid,
  planRollback,
  recordApplied,
  redactBlob,
  redactJson,
  redactText,
  Redactor,
  rollback,
  type BlobRedaction,
  type CheckpointError,
  type Finding,
  type Redaction,
  type CheckpointFs,
  type FsStat,
  type PlanItem,
  type RollbackReport,
} from '../pkg/web/agent_checkpoint_wasm.js'

const fsError = (code: string, message: string): Error => Object.assign(new Error(message), { code })

/** The editor's buffers: paths are plain keys; the package checks parents itself. */
class EditorBuffers implements CheckpointFs {
  readonly absolutePath = '/workspace'
  private readonly files = new Map<string, { data: Uint8Array; mode: number }>()
  private readonly dirs = new Set<string>()

  stat(path: string): FsStat | null {
    const file = this.files.get(path)
    if (file) return { kind: 'file', size: file.data.length, mode: file.mode }
    return this.dirs.has(path) ? { kind: 'dir' } : null
  }
  readFile(path: string): Uint8Array | null {
    return this.files.get(path)?.data ?? null
  }
  readDir(path: string): string[] {
    const prefix = path === '' ? '' : `${path}/`
    const names = new Set<string>()
    for (const p of [...this.files.keys(), ...this.dirs]) {
      if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split('/')[0])
    }
    return [...names]
  }
  writeFile(path: string, data: Uint8Array, mode: number, _durable: boolean): void {
    this.files.set(path, { data: data.slice(), mode })
  }
  removeFile(path: string): void {
    if (!this.files.delete(path)) throw fsError('ENOENT', `no such file: ${path}`)
  }
  mkdir(path: string): void {
    if (this.stat(path)) throw fsError('EEXIST', `exists: ${path}`)
    this.dirs.add(path)
  }
  rmdir(path: string): void {
    const inside = (p: string) => p.startsWith(`${path}/`)
    if ([...this.files.keys(), ...this.dirs].some(inside)) throw fsError('ENOTEMPTY', `not empty: ${path}`)
    this.dirs.delete(path)
  }
  readLink(path: string): string {
    throw fsError('EINVAL', `not a symlink: ${path}`)
  }
  writeLink(path: string, _target: string): void {
    throw fsError('EPERM', `buffers hold no symlinks: ${path}`)
  }
}

export async function demo(): Promise<RollbackReport> {
  await init() // fetches agent_checkpoint_wasm_bg.wasm next to the module
  const buffers = new EditorBuffers()
  const utf8 = new TextEncoder()
  buffers.mkdir('src')
  buffers.writeFile('src/main.ts', utf8.encode('let x = 1\n'), 0o644, false)

  // Before the batch: snapshot exactly the paths it will touch.
  const checkpoint = createCheckpoint(buffers, ['src/main.ts', { file: '/workspace/src/new.ts' }])
  const id = newUlid() // timestamped with Date.now()
  console.log(id, inspectSnapshot(checkpoint).map((item) => `${item.kind} ${item.path}`))

  // The batch runs, then the user rejects it.
  buffers.writeFile('src/main.ts', utf8.encode('let x = 2\n'), 0o644, false)
  buffers.writeFile('src/new.ts', utf8.encode('export {}\n'), 0o644, false)
  const result = rollback(buffers, checkpoint, { durable: false })

  // Sealed with the app's key, guarded: an edit the user makes after the
  // batch is left alone (listed in `conflicts`), and `redo` can bring the batch back.
  const key = utf8.encode('app secret')
  const sealed = createCheckpoint(buffers, ['src/main.ts'], { key })
  buffers.writeFile('src/main.ts', utf8.encode('let x = 3\n'), 0o644, false)
  const applied = recordApplied(buffers, sealed, { key })
  buffers.writeFile('src/main.ts', utf8.encode('let x = 4 // by hand\n'), 0o644, false)
  const plan: PlanItem[] = planRollback(buffers, applied, { onConflict: 'skip', key })
  const guarded = rollback(buffers, applied, { onConflict: 'skip', key })
  console.log(plan.map((item) => `${item.action} ${item.path}`), guarded.conflicts, guarded.redo !== null)
  for (const problem of guarded.unrestored) console.log(problem.path, problem.code, problem.reason)

  // The bundled in-memory filesystem implements the same interface.
  const memory: CheckpointFs = new MemoryFs('/workspace')
  try {
    createCheckpoint(memory, ['../outside.txt'])
  } catch (e) {
    const error = e as CheckpointError
    console.assert(error.code === 'path_escapes_root', error.message)
  }

  // The prompt and transcript the app keeps beside the checkpoint, redacted first.
  const prompt: string = redactText('deploy with key AKIAYRWQG5EJLPZLBYNP', { personalData: true })
  const transcript: string = redactJson('{"role": "user", "content": "hi"}\n', { rules: [['ticket', 'TICKET-[0-9]+']] })
  const blob: Uint8Array = redactBlob('notes.txt', utf8.encode(prompt))
  const redactor = new Redactor({ rules: [['ticket', 'TICKET-[0-9]+']] })
  const found: Redaction = redactor.redactTextWithFindings(transcript)
  const first: Finding | undefined = found.findings[0]
  const bytes: BlobRedaction = redactor.redactBlobWithFindings('a.jsonl', blob)
  console.log(first?.rule, first?.start, bytes.output.length, redactor.ruleNames, redactor.personalData)
  redactor.free()
  return result
}
