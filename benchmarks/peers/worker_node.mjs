// A worker for the Node package (bindings-node): createCheckpoint of the
// paths, the snapshot written to STORE/<id>.json; rollback of it
// ({ durable: false }). JSON lines on stdin, one reply per line, as
// worker_py.py: the op's wall seconds and the process's peak RSS (KiB).
// usage: node worker_node.mjs ROOT STORE
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const pkg = require(join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'bindings-node'));
const [root, store] = process.argv.slice(2);

function handle(message) {
  if (message.op === 'checkpoint') {
    writeFileSync(join(store, `${message.id}.json`), pkg.createCheckpoint(root, message.paths));
  } else if (message.op === 'restore') {
    const snapshot = readFileSync(join(store, `${message.id}.json`), 'utf8');
    const report = pkg.rollback(root, snapshot, { durable: false });
    if (!report.ok) throw new Error(`rollback not ok: ${JSON.stringify(report.failures)}`);
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  const start = process.hrtime.bigint();
  let reply;
  try {
    handle(message);
    reply = { seconds: Number(process.hrtime.bigint() - start) / 1e9 };
  } catch (error) {
    reply = { error: String(error) };
  }
  reply.peak_kb = Math.round(process.resourceUsage().maxRSS);
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}
