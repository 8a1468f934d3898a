// Vector trees on the real filesystem, for the component's Node host tests:
// write a tree, read it back (never following links), apply a mutate step.
// Same behaviour as tests/js/targets/node.mjs, without loading the napi package.

import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'

/** The vectors' `{text|b64, mode}` node as bytes. */
export function bytesOf(node) {
  return 'text' in node ? Buffer.from(node.text, 'utf8') : Buffer.from(node.b64, 'base64')
}

/** Creates `node` at `full`, parents included (special files with `mkfifo`). */
export function writeNode(full, node) {
  fs.mkdirSync(path.dirname(full), { recursive: true })
  if ('link' in node) fs.symlinkSync(node.link, full)
  else if ('dir' in node) fs.mkdirSync(full, { recursive: true })
  else if ('special' in node) execFileSync('mkfifo', [full])
  else {
    fs.writeFileSync(full, bytesOf(node))
    fs.chmodSync(full, node.mode ?? 0o644)
  }
}

/** Writes every node of `tree` under `dir`. */
export function writeTree(dir, tree) {
  for (const [rel, node] of Object.entries(tree)) writeNode(path.join(dir, rel), node)
}

/** The whole tree under `dir`, never following links. */
export function readTree(dir, prefix = '', out = Object.create(null)) {
  for (const entry of fs.readdirSync(dir)) {
    const full = path.join(dir, entry)
    const rel = prefix ? `${prefix}/${entry}` : entry
    const st = fs.lstatSync(full)
    if (st.isSymbolicLink()) out[rel] = { link: fs.readlinkSync(full) }
    else if (st.isDirectory()) {
      out[rel] = { dir: true }
      readTree(full, rel, out)
    } else if (st.isFile()) out[rel] = { b64: fs.readFileSync(full).toString('base64'), mode: st.mode & 0o7777 }
    else out[rel] = { special: true }
  }
  return out
}

const lstat = (p) => {
  try {
    return fs.lstatSync(p)
  } catch {
    return null
  }
}

/** Applies one vector mutate step on the host, as the Rust runner does through its Root. */
export function mutate(root, step) {
  const at = (key) => path.join(root, step[key])
  if ('write' in step) {
    const p = at('write')
    fs.mkdirSync(path.dirname(p), { recursive: true })
    // Like Root::write_file: replace a link, never write through it.
    if (lstat(p)?.isSymbolicLink()) fs.unlinkSync(p)
    fs.writeFileSync(p, bytesOf(step))
    fs.chmodSync(p, step.mode ?? 0o644)
  } else if ('delete' in step) fs.unlinkSync(at('delete'))
  else if ('rmdir' in step) fs.rmdirSync(at('rmdir'))
  else if ('mkdir' in step) {
    const p = at('mkdir')
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.mkdirSync(p)
  } else if ('symlink' in step) {
    const p = at('symlink')
    fs.mkdirSync(path.dirname(p), { recursive: true })
    const st = lstat(p)
    if (st && !st.isDirectory()) fs.unlinkSync(p)
    fs.symlinkSync(step.target, p)
  } else throw new Error(`unknown mutation ${JSON.stringify(step)}`)
}
