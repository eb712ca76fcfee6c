// Reading score tables at a sweep's size: long CSVs of 1M, 4M and 15M rows (20, 80 and 300 runs x 50
// test sets x 1000 checkpoints, bench/read-scale-tables.ts, kept in the temporary folder between
// runs), each read in a child process of its own (so that its peak memory is the reading's alone) as
// `analyze` reads it: readScoreInput (the scan, the duplicate check), the summary line, and the
// per-run series of the metric (what the analysis is handed). Prints per size the rows, the wall and
// CPU seconds, microseconds of CPU per row, the peak RSS and the bytes the score columns hold.
//   npm run bench -- read-scale
//   READ_SCALE_ROWS=1000000 npm run bench -- read-scale      # one size (rows = runs x 50 x 1000)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeLongTable } from './read-scale-tables.ts';

const SETS = 50, CHECKPOINTS = 1000;
const SIZES = [1_000_000, 4_000_000, 15_000_000];

function sizes(): number[] {
  const v = process.env.READ_SCALE_ROWS;
  if (v === undefined || v === '') return SIZES;
  return v.split(',').map((s) => {
    const rows = Number(s);
    if (!Number.isInteger(rows) || rows % (SETS * CHECKPOINTS) !== 0) {
      throw new Error(`READ_SCALE_ROWS=${v}: expected multiples of ${SETS * CHECKPOINTS}`);
    }
    return rows;
  });
}

/** The child: reads `file` as analyze does and prints what it measured as JSON. */
async function child(file: string): Promise<void> {
  const { readScoreInput } = await import('../src/analyze/read-scores.ts');
  const { summarizeReading } = await import('../src/analyze/score-reading.ts');
  const { buildRunSeries } = await import('../src/analyze/run-series.ts');
  const t0 = performance.now(), c0 = process.cpuUsage();
  const reading = await readScoreInput(file);
  const read = { s: (performance.now() - t0) / 1000, cpu: cpuSeconds(c0) };
  const line = summarizeReading(file, reading);
  const series = buildRunSeries(reading.scores, 'accuracy');
  const all = { s: (performance.now() - t0) / 1000, cpu: cpuSeconds(c0) };
  process.stdout.write(JSON.stringify({
    rows: reading.scores.length, runs: series.length, read_s: read.s, read_cpu_s: read.cpu, read_summary_series_s: all.s,
    read_summary_series_cpu_s: all.cpu, columns_mb: reading.scores.bytes() / 1e6, peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    summary_chars: line.length,
  }));
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

export async function benchReadScale(): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = { load_average_at_start: loadavg().map((x) => x.toFixed(2)).join(' ') };
  for (const rows of sizes()) {
    const runs = rows / (SETS * CHECKPOINTS);
    const file = join(tmpdir(), `genstudy-bench-read-scale-${runs}-${SETS}-${CHECKPOINTS}.csv`);
    if (!existsSync(file)) writeLongTable(file, { runs, sets: SETS, checkpoints: CHECKPOINTS });
    const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', file], { encoding: 'utf8',
      maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`reading ${file} failed (${r.status ?? r.signal}): ${r.stderr.slice(-2000)}`);
    const m = JSON.parse(r.stdout) as Record<string, number>;
    const key = `${rows / 1e6}M`;
    out[`${key}_rows`] = m.rows;
    out[`${key}_read_s`] = m.read_s;
    out[`${key}_read_cpu_s`] = m.read_cpu_s;
    out[`${key}_read_us_per_row`] = (m.read_cpu_s / m.rows) * 1e6;
    out[`${key}_read_summary_series_cpu_s`] = m.read_summary_series_cpu_s;
    out[`${key}_columns_mb`] = m.columns_mb;
    out[`${key}_peak_rss_mb`] = m.peak_rss_mb;
  }
  out.load_average_at_end = loadavg().map((x) => x.toFixed(2)).join(' ');
  return out;
}

if (process.argv[2] === '--child') await child(process.argv[3]);
