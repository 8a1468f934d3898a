// Node quick start of the wasm-bindgen package.
import { createRequire } from 'node:module'
const { MemoryFs, createCheckpoint, rollback } = createRequire(import.meta.url)(
  '../pkg/nodejs/agent_checkpoint_wasm.js',
)

const fs = new MemoryFs('/project')
fs.putFile('src/a.py', 'print("old")\n')

const checkpoint = createCheckpoint(fs, ['src/a.py', 'gen/new.py'])
fs.putFile('src/a.py', 'print("new")\n') // the batch edits a.py ...
fs.putFile('gen/new.py', 'x = 1\n') // ... and creates gen/new.py

const result = rollback(fs, checkpoint)
console.log(result.ok, result.restored.join(' '))
//> true gen/new.py src/a.py
console.log(fs.getText('src/a.py').trim(), fs.getText('gen/new.py'))
//> print("old") null
