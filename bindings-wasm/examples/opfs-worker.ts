// A dedicated Worker's use of OpfsFs (type-checked by scripts/wasm against
// pkg/web's opfs.d.ts; tsconfig.json maps the package names to pkg/web):
// checkpoint the OPFS directory of a web IDE's project before an agent's
// batch, then preview and undo it.

import init, { createCheckpoint, planRollback, rollback, type RollbackReport } from '@agent-checkpoint/wasm'
import { OpfsFs, type OpfsOptions, type OpfsStat } from '@agent-checkpoint/wasm/opfs'

export async function undoBatch(batch: (fs: OpfsFs) => void): Promise<RollbackReport> {
  await init()
  const options: OpfsOptions = { absolutePath: '/project', timeoutMs: 10_000 }
  const fs = await OpfsFs.open('projects/demo', options)
  try {
    const snapshot = createCheckpoint(fs, ['src/app.js', 'src/new.js']) // OpfsFs is a CheckpointFs
    batch(fs)
    const changes = planRollback(fs, snapshot).filter((item) => item.action !== 'keep')
    console.log(`${changes.length} changes to undo`)
    const report = rollback(fs, snapshot)
    for (const problem of report.unrestored) console.warn(`${problem.path}: ${problem.code}`)
    const stat: OpfsStat = fs.stat('src/app.js')
    if (stat.kind === 'file') console.log(`src/app.js: ${stat.size} bytes`)
    return report
  } finally {
    fs.close()
  }
}
