// A static file server for the browser example and its tests: serves
// bindings-wasm/ (so the page reaches ../../pkg/web) on 127.0.0.1 with the
// headers that make a page cross-origin isolated (SharedArrayBuffer, which
// OpfsFs needs). GET and HEAD only; nothing outside bindings-wasm/ is served.
//
//   node examples/browser/serve.mjs [port]    # then open the printed URL

import { createServer } from 'node:http'
import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** bindings-wasm/ */
export const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.css': 'text/css',
  '.png': 'image/png',
  '.ts': 'text/plain; charset=utf-8',
}

/** Starts the server on 127.0.0.1 (`port` 0: a free one); resolves to `{ server, origin }`. */
export async function serve({ root = PACKAGE_DIR, port = 0 } = {}) {
  const server = createServer(async (req, res) => {
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin')
    res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp')
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin')
    res.setHeader('Cache-Control', 'no-store')
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end()
      return
    }
    let file
    try {
      const wanted = decodeURIComponent(new URL(req.url, 'http://x').pathname)
      file = path.resolve(root, `.${wanted}`)
      if (file !== root && !file.startsWith(root + path.sep)) throw new Error('outside the root')
      if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html')
      const body = await readFile(file)
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' })
      res.end(req.method === 'HEAD' ? undefined : body)
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found')
    }
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  return { server, origin: `http://127.0.0.1:${server.address().port}` }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { origin } = await serve({ port: Number(process.argv[2] ?? 8000) })
  console.log(`${origin}/examples/browser/  (Ctrl-C to stop; run scripts/wasm first to build pkg/web)`)
}
