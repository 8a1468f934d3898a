// Runs the Node package on a workload, with its default options (redo on).
// usage: node contender_node.mjs capture|rollback|rollback-durable DIR REPS [INNER]
// Prints one JSON line: times_s (one per rep, each the mean of INNER calls), snapshot_bytes, peak_rss_kb.
// Before each timed rollback every captured file is edited in place (untimed:
// its first byte inverted), so that every rollback has every file to restore.
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const pkg = require(join(fileURLToPath(new URL('.', import.meta.url)), '..', 'bindings-node'));

const [op, dir, repsText, innerText] = process.argv.slice(2);
const reps = Number(repsText);
const inner = Number(innerText ?? '1');
const root = join(dir, 'root');
const paths = readFileSync(join(dir, 'paths.txt'), 'utf8').split('\n').filter(Boolean);

function edit() {
  const byte = Buffer.alloc(1);
  for (const p of paths) {
    const fd = openSync(join(root, p), 'r+');
    try {
      if (readSync(fd, byte, 0, 1, 0) === 1) {
        byte[0] ^= 0xff;
        writeSync(fd, byte, 0, 1, 0);
      }
    } finally {
      closeSync(fd);
    }
  }
}

let snapshot = op === 'capture' ? '' : pkg.createCheckpoint(root, paths);
const times = [];
for (let r = 0; r <= reps; r++) { // the first run warms the cache, untimed
  let total = 0n;
  for (let i = 0; i < inner; i++) {
    if (op === 'capture') {
      const start = process.hrtime.bigint();
      snapshot = pkg.createCheckpoint(root, paths);
      total += process.hrtime.bigint() - start;
    } else {
      edit();
      const start = process.hrtime.bigint();
      const report = pkg.rollback(root, snapshot, { durable: op === 'rollback-durable' });
      total += process.hrtime.bigint() - start;
      if (!report.ok) throw new Error(`rollback not ok: ${JSON.stringify(report.failures)}`);
    }
  }
  if (r > 0) times.push(Number(total) / 1e9 / inner);
}
console.log(JSON.stringify({
  contender: 'node', op, times_s: times, snapshot_bytes: snapshot.length,
  peak_rss_kb: Math.round(process.resourceUsage().maxRSS),
}));
