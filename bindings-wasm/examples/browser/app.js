// The example page: files you create, a checkpoint, your edits (the "batch"),
// a preview of the rollback and the rollback itself, with its report.
//
// Backend `?fs=opfs` (the default when the page is cross-origin isolated):
// the package runs in worker.js over OpfsFs; this page talks to it by
// postMessage. Backend `?fs=memory`: the package runs here, on the main
// thread, over MemoryFs (no worker, no OPFS).

import init, * as wasm from '../../pkg/web/agent_checkpoint_wasm.js'
import { errorData, makeActions } from './actions.js'

const $ = (selector) => document.querySelector(selector)
const params = new URLSearchParams(location.search)
const backend = params.get('fs') ?? (globalThis.crossOriginIsolated ? 'opfs' : 'memory')

/** The actions of the chosen backend, each returning a Promise. */
async function connect() {
  if (backend === 'memory') {
    await init()
    const local = makeActions(wasm, new wasm.MemoryFs('/project'))
    return Object.fromEntries(Object.entries(local).map(([name, fn]) => [name, async (...args) => fn(...args)]))
  }
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })
  await new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => (data.ready ? resolve() : reject(Object.assign(new Error(data.error.message), data.error)))
    worker.onerror = (event) => reject(new Error(`worker.js failed: ${event.message}`))
  })
  const pending = new Map()
  let next = 0
  worker.onmessage = ({ data: { id, result, error } }) => {
    const { resolve, reject } = pending.get(id)
    pending.delete(id)
    error ? reject(Object.assign(new Error(error.message), error)) : resolve(result)
  }
  const call = (action) => (...args) =>
    new Promise((resolve, reject) => {
      const id = next++
      pending.set(id, { resolve, reject })
      worker.postMessage({ id, action, args })
    })
  return Object.fromEntries(['files', 'save', 'remove', 'clear', 'capture', 'plan', 'rollback'].map((a) => [a, call(a)]))
}

// ---- rendering -------------------------------------------------------------

function el(tag, { dataset = {}, ...props } = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props)
  Object.assign(node.dataset, dataset)
  node.append(...children)
  return node
}

async function showFiles() {
  const rows = (await app.files()).map((f) =>
    el(
      'tr',
      { dataset: { path: f.path, kind: f.kind } },
      el('td', { className: 'path' }, f.kind === 'dir' ? `${f.path}/` : f.path),
      el('td', { className: 'text' }, f.kind === 'dir' ? '' : f.text),
    ),
  )
  $('#files tbody').replaceChildren(...rows)
  $('#files').dataset.count = String(rows.length)
  if (rows.length === 0) $('#files tbody').append(el('tr', {}, el('td', { colSpan: 2, className: 'empty' }, 'no files yet')))
}

/** Shows a result in the report panel; `data` is also kept as JSON for scripts. */
function showReport(kind, title, ok, body, data) {
  $('#report').dataset.kind = kind
  $('#report').dataset.ok = String(ok)
  $('#verdict').textContent = title
  $('#verdict').className = ok ? 'ok' : 'bad'
  $('#report-body').replaceChildren(...body)
  $('#report-json').textContent = JSON.stringify(data, null, 2)
}

function table(head, rows) {
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))),
    el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', { className: `cell-${c}` }, c))))),
  )
}

function showError(action, error) {
  const code = error.code ?? error.name
  showReport('error', `${action} refused: ${code}`, false, [el('p', { className: 'message' }, error.message)], errorData(error))
}

function showPlan(plan) {
  const changes = plan.filter((i) => i.action !== 'keep').length
  showReport(
    'plan',
    `Preview: ${changes} change${changes === 1 ? '' : 's'}, nothing touched`,
    true,
    [table(['path', 'would'], plan.map((i) => [i.path, i.action + (i.code ? ` (${i.code})` : '')]))],
    plan,
  )
}

function showRollback(report) {
  const title = !report.valid
    ? `Rollback refused: ${report.errorCode} — nothing changed`
    : report.ok
      ? `Rollback ok: ${report.restored.length} path${report.restored.length === 1 ? '' : 's'} restored`
      : `Rollback incomplete: ${report.unrestored.length} not restored`
  const restored = new Set(report.restored)
  const problems = new Map(report.unrestored.map((u) => [u.path, u]))
  const rows = report.plan.map((i) => {
    const problem = problems.get(i.path)
    const done = i.action === 'remove' || i.action === 'rmdir' ? 'removed' : i.action === 'keep' ? 'unchanged' : 'restored'
    return [i.path, i.action, problem ? problem.code : restored.has(i.path) || i.action === 'rmdir' ? done : '']
  })
  const body = [table(['path', 'action', 'result'], rows)]
  for (const u of report.unrestored) body.push(el('p', { className: 'message' }, `${u.path}: ${u.reason}`))
  if (!report.valid) body.push(el('p', { className: 'message' }, report.error))
  showReport('rollback', title, report.ok, body, { ...report, redo: report.redo ? '(a snapshot)' : null })
}

function showCapture({ snapshot, captured }) {
  $('#snapshot').value = snapshot
  showReport(
    'capture',
    `Checkpoint of ${captured.length} path${captured.length === 1 ? '' : 's'}`,
    true,
    [table(['path', 'captured as'], captured.map((c) => [c.path, c.kind === 'new' ? 'absent (new)' : `${c.kind}, ${c.size} bytes`]))],
    captured,
  )
}

// ---- actions ---------------------------------------------------------------

let sequence = 0
/** Runs one UI action; `body[data-seq]` counts finished actions (for scripts driving the page). */
async function act(name, fn) {
  $('#status').textContent = `${name}…`
  try {
    await fn()
  } catch (error) {
    showError(name, error)
  } finally {
    await showFiles().catch((error) => showError('list files', error))
    $('#status').textContent = `${backendLabel} · ready`
    document.body.dataset.seq = String(++sequence)
  }
}

const paths = () => $('#paths').value.split(/[\s,]+/).filter(Boolean)

const backendLabel = backend === 'memory' ? 'MemoryFs on the main thread' : 'OPFS in a dedicated Worker'
for (const link of document.querySelectorAll('#backends a')) {
  link.classList.toggle('current', link.dataset.fs === backend)
}

let app
try {
  app = await connect()
  $('#status').textContent = `${backendLabel} · ready`
  await showFiles()
  document.body.dataset.ready = 'true'
} catch (error) {
  $('#status').textContent = `${backendLabel} · failed`
  showError('start', error)
  document.body.dataset.ready = 'failed'
}

$('#save').onclick = () => act('save', () => app.save($('#path').value, $('#content').value))
$('#delete').onclick = () => act('delete', () => app.remove($('#path').value))
$('#clear').onclick = () => act('clear', () => app.clear())
$('#sample').onclick = () =>
  act('sample', async () => {
    await app.save('src/app.js', 'console.log("hello")\n')
    await app.save('src/util.js', 'export const two = 1 + 1\n')
    await app.save('notes/todo.txt', 'ship the demo\n')
  })
$('#capture').onclick = () => act('capture', async () => showCapture(await app.capture(paths())))
$('#plan').onclick = () => act('preview', async () => showPlan(await app.plan($('#snapshot').value)))
$('#rollback').onclick = () => act('rollback', async () => showRollback(await app.rollback($('#snapshot').value)))
$('#files').onclick = (event) => {
  const row = event.target.closest('tr[data-kind="file"]')
  if (!row) return
  $('#path').value = row.dataset.path
  $('#content').value = row.querySelector('.text').textContent
}
