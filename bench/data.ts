// Data readers: rows per second and memory for large files (streaming JSONL / CSV vs whole-file
// JSON arrays), and the time to load every registered study B file when ../shared/data is here.
// Run: node --import tsx bench/data.ts   (or export benchData for bench/run.ts)
import { createWriteStream, mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { execFileSync } from 'node:child_process';
import { readRows } from '../src/data/readers/index.ts';
import { loadRegistered, registeredIds } from '../src/data/registry.ts';

async function writeLines(file: string, n: number, line: (k: number) => string, header?: string): Promise<void> {
  const out = createWriteStream(file);
  if (header) out.write(header);
  for (let k = 0; k < n; k++) if (!out.write(line(k))) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/** Reads a file in a fresh process, so its peak memory is the reader's own. */
function timeRead(file: string | undefined): { rows: number; seconds: number; maxRssMB: number } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--read', file ?? ''], { encoding: 'utf8' });
  return JSON.parse(out);
}

async function readOnly(file: string): Promise<void> {
  const t0 = performance.now();
  let rows = 0;
  if (file) for await (const _ of readRows(file)) rows++;
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write(JSON.stringify({ rows, seconds, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
}

export async function benchData(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-bench-data-'));
  const results: Record<string, number | string> = {};
  try {
    const n = 1_000_000;
    const text = (k: number) => `The quick brown fox ${k} jumps over the lazy dog, again and again.`;
    const jsonl = join(dir, 'big.jsonl');
    await writeLines(jsonl, n, (k) => JSON.stringify({ idx: k, premise: text(k), hypothesis: text(k + 1), label: k % 3 }) + '\n');
    const csv = join(dir, 'big.csv');
    await writeLines(csv, n, (k) => `${k},"${text(k)}","${text(k + 1)}",${k % 3}\n`, 'idx,premise,hypothesis,label\n');
    const json = join(dir, 'big.json');
    const m = 200_000;
    await writeLines(json, m, (k) => (k ? ',\n' : '[\n') + JSON.stringify({ idx: k, premise: text(k), label: k % 3 }) + (k === m - 1 ? '\n]\n' : ''));
    const idle = timeRead(undefined);
    results.idle_process_max_rss_MB = idle.maxRssMB;
    for (const [name, file] of [['jsonl', jsonl], ['csv', csv], ['json_array', json]] as const) {
      const r = timeRead(file);
      const mb = statSync(file).size / 2 ** 20;
      results[`${name}_file_MB`] = mb;
      results[`${name}_rows_per_s`] = r.rows / r.seconds;
      results[`${name}_MB_per_s`] = mb / r.seconds;
      results[`${name}_max_rss_MB`] = r.maxRssMB;
    }
    const shared = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/data');
    if (existsSync(shared)) {
      const ids = registeredIds().filter((id) => id.startsWith('study-b/') && !/xsum:train-[46]000/.test(id));
      const t0 = performance.now();
      let examples = 0;
      for (const id of ids) examples += (await loadRegistered(id, { dataDir: shared })).examples.length;
      results.study_b_files = ids.length;
      results.study_b_examples = examples;
      results.study_b_load_all_s = (performance.now() - t0) / 1000;
    } else results.study_b = 'skipped: ../shared/data absent';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

if (process.argv[2] === '--read') {
  await readOnly(process.argv[3]);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchData();
  for (const [k, v] of Object.entries(results)) console.log(`${k}\t${typeof v === 'number' ? +v.toPrecision(4) : v}`);
}
