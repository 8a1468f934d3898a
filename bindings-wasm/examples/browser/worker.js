// The example's dedicated worker: the package and OpfsFs over the OPFS
// directory `checkpoint-demo`. The page posts {id, action, args}; the worker
// answers {id, result} or {id, error}.

import init, * as wasm from '../../pkg/web/agent_checkpoint_wasm.js'
import { OpfsFs } from '../../pkg/web/opfs.js'
import { errorData, makeActions } from './actions.js'

let actions
try {
  await init()
  const fs = await OpfsFs.open('checkpoint-demo', { absolutePath: '/project' })
  actions = makeActions(wasm, fs)
  self.postMessage({ ready: true })
} catch (error) {
  self.postMessage({ ready: false, error: errorData(error) })
}

self.onmessage = ({ data: { id, action, args } }) => {
  try {
    self.postMessage({ id, result: actions[action](...args) })
  } catch (error) {
    self.postMessage({ id, error: errorData(error) })
  }
}
