// What the example app does with a filesystem, the same for both backends:
// `OpfsFs` in the dedicated worker (worker.js) and `MemoryFs` on the main
// thread (app.js). `wasm` is the package's web build, `fs` a CheckpointFs
// with MemoryFs's helpers (putFile, entries).

const decoder = new TextDecoder()

/** The app's actions over `fs`; each returns plain data (it may cross a postMessage). */
export function makeActions(wasm, fs) {
  return {
    /** Every file and directory, with the text of each file. */
    files: () =>
      fs.entries().map((e) =>
        e.kind === 'file' ? { path: e.path, kind: e.kind, text: decoder.decode(e.data), size: e.data.length } : { path: e.path, kind: e.kind },
      ),
    /** Creates or overwrites a file, creating its parent directories. */
    save: (path, text) => fs.putFile(path, text),
    /** Deletes a file. */
    remove: (path) => fs.removeFile(path),
    /** Deletes everything (deepest first). */
    clear: () => {
      for (const e of fs.entries().reverse()) e.kind === 'dir' ? fs.rmdir(e.path) : fs.removeFile(e.path)
    },
    /** A checkpoint of `paths` (existing or not yet): the snapshot text and what it holds. */
    capture: (paths) => {
      const snapshot = wasm.createCheckpoint(fs, paths)
      return { snapshot, captured: wasm.inspectSnapshot(snapshot) }
    },
    /** What a rollback would do, touching nothing. */
    plan: (snapshot) => wasm.planRollback(fs, snapshot),
    /** The rollback and its report. */
    rollback: (snapshot) => wasm.rollback(fs, snapshot),
  }
}

/** A thrown value as plain data: the package's errors keep `code` and `path`. */
export function errorData(error) {
  return { name: error?.name ?? 'Error', message: error?.message ?? String(error), code: error?.code ?? null, path: error?.path ?? null }
}
