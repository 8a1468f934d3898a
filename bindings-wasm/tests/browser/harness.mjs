// Headless Chromium for the browser tests: Debian's `chromium` (never a
// downloaded browser), driven by puppeteer-core, on pages served by
// examples/browser/serve.mjs from 127.0.0.1 (cross-origin isolated).
//
// No browser is not a pass: `openBrowser()` throws, saying how to install one.

import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import puppeteer from 'puppeteer-core'
import { serve } from '../../examples/browser/serve.mjs'

const NAMES = ['chromium', 'chromium-browser']

/** The Chromium to drive: `$CHROMIUM`, else `chromium` on PATH; `null` when there is none. */
export function findChromium() {
  const candidates = process.env.CHROMIUM
    ? [process.env.CHROMIUM]
    : (process.env.PATH ?? '').split(path.delimiter).flatMap((dir) => NAMES.map((n) => path.join(dir, n)))
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {}
  }
  return null
}

/**
 * Serves bindings-wasm/ and starts headless Chromium. Resolves to
 * `{ browser, origin, version, open(urlPath), close() }`; `open` returns a
 * page whose console errors and uncaught exceptions are collected in
 * `page.problems`.
 */
export async function openBrowser() {
  const executablePath = findChromium()
  if (executablePath === null) {
    throw new Error(
      'no Chromium to run the browser tests: install Debian\'s package (apt-get install -y chromium; scripts/wasm does) ' +
        'or set CHROMIUM=/path/to/chromium. The browser tests do not pass without a browser.',
    )
  }
  const { server, origin } = await serve()
  let browser
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      // Root (as in CI containers) cannot use Chromium's sandbox.
      args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-dev-shm-usage'],
    })
  } catch (error) {
    server.close()
    throw new Error(`could not start ${executablePath}: ${error.message}`)
  }
  return {
    browser,
    origin,
    executablePath,
    version: await browser.version(),
    async open(urlPath) {
      const page = await browser.newPage()
      page.problems = []
      page.on('pageerror', (e) => page.problems.push(`uncaught: ${e.message}`))
      page.on('console', (m) => m.type() === 'error' && page.problems.push(`console: ${m.text()}`))
      await page.goto(origin + urlPath)
      return page
    },
    async close() {
      await browser.close()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

const toJson = (value) => JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? { $bigint: String(v) } : v))
const fromJson = (text) => JSON.parse(text, (_, v) => (v && typeof v === 'object' && '$bigint' in v ? BigInt(v.$bigint) : v))

/**
 * Opens tests/browser/opfs-host.html in `session` and waits for its worker.
 * Resolves to `{ page, call(op, ...args) }`: `call` runs `op` of
 * opfs-host-worker.js there; a thrown error keeps its string `code` (and
 * only then has one). Arguments and results cross as JSON text, so a path
 * named `__proto__` stays a key.
 */
export async function openOpfsHost(session) {
  const page = await session.open('/tests/browser/opfs-host.html')
  const started = await page.evaluate(() => window.opfsHost.ready)
  if (!started.ready || !started.crossOriginIsolated) {
    throw new Error(`the OPFS test host did not start: ${JSON.stringify(started)} ${page.problems.join('; ')}`)
  }
  async function call(op, ...args) {
    const out = await page.evaluate((op, args) => window.opfsHost.call(op, args), op, toJson(args))
    if (out.error) {
      const error = new Error(out.error.message)
      if (out.error.code !== undefined) error.code = out.error.code
      if (out.error.name !== undefined) error.name = out.error.name
      throw error
    }
    return fromJson(out.result)
  }
  return { page, call }
}
