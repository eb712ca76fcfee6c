// How long `genstudy analyze` takes end to end (process start included) on the example:
// a CSV of 5 runs x 8 test sets x 60 steps.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { simulateScores, DEFAULT_SIMULATED_SETS } from '../src/synth/simulated-scores.ts';

export async function benchAnalyze(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-bench-'));
  try {
    const sets = [...DEFAULT_SIMULATED_SETS, { id: 'extra-a', cueLoading: 0.05, idLoading: 0.5, base: 0.3 }, { id: 'extra-b', cueLoading: -0.05, idLoading: 0.5, base: 0.3 }];
    const rows = simulateScores({ seed: 1, runs: 5, steps: 60, sets });
    const file = join(dir, 'scores.csv');
    writeFileSync(file, ['run,step,test_set,metric,value', ...rows.map((r) => `${r.run},${r.step},${r.test_set},${r.metric},${r.value}`)].join('\n'));
    const bin = resolve(import.meta.dirname, '../bin/genstudy.js');
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [bin, 'analyze', file, '--control', 'in-domain'], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      if (i > 0) times.push(performance.now() - t0); // the first run warms tsx's compile cache
    }
    const startup: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      spawnSync(process.execPath, [bin, '--version']);
      startup.push(performance.now() - t0);
    }
    return {
      'analyze_csv_5x8x60_median_ms': median(times),
      'cli_startup_median_ms': median(startup),
      rows: rows.length,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
