// How long `genstudy analyze` takes end to end (process start included) on the example:
// a CSV of 5 runs x 8 test sets x 60 steps; and the default analysis as a library on 1000 runs x
// 8 OOD sets x 50 checkpoints (analyzeRuns: the effective-n test on levels or differences, Holm,
// the agreement) against the same test in numpy/scipy (bench/analyze_reference.py, run here by
// Debian's /usr/bin/python3 on the same data), with sums of p and n_eff and the agreement counts
// from both sides so the numbers are checked to agree, not only timed; and what the calibration
// (200 simulated pairs per run) and the robustness table (8 more analyses) add to it.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { simulateScores, DEFAULT_SIMULATED_SETS } from '../test/support/simulated-scores.ts';
import { analyzeRuns, DEFAULT_OPTIONS, type AnalyzeOptions } from '../src/analyze/analysis.ts';
import type { RunSeries } from '../src/analyze/run-series.ts';
import { ar1Into, createRandom } from '../src/stats/index.ts';

const RUNS = 1000, SETS = 8, STEPS = 50;

/** Seeded runs: a learning curve; OOD sets load on it, on a shared AR(1) latent (+, -, or 0) and on their own AR(1) noise. */
function makeRuns(seed: number): RunSeries[] {
  const random = createRandom(seed);
  const latent = new Float64Array(STEPS), noise = new Float64Array(STEPS);
  const runs: RunSeries[] = [];
  for (let r = 0; r < RUNS; r++) {
    ar1Into(latent, 0.8, random);
    const rate = 2 + 4 * random.uniform();
    const id = Float64Array.from({ length: STEPS }, (_, t) => 0.4 + 0.5 * (1 - Math.exp(-rate * t / STEPS)) + 0.005 * random.normal());
    const values = new Map<string, Float64Array>([['in-domain', id]]);
    for (let s = 0; s < SETS; s++) {
      ar1Into(noise, 0.6, random);
      const cue = [0.01, -0.01, 0][s % 3];
      values.set(`ood-${s}`, Float64Array.from(id, (v, t) => 0.2 + 0.5 * v + cue * latent[t] + 0.01 * noise[t]));
    }
    runs.push({ run: `run-${r}`, steps: Array.from({ length: STEPS }, (_, t) => t), values, attributes: {}, incompleteSteps: [] });
  }
  return runs;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function timed(fn: () => void, reps: number): { ms: number; cpuMs: number } {
  fn(); // warm-up (JIT)
  const times: number[] = [], cpu: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now(), c0 = cpuMs();
    fn();
    times.push(performance.now() - t0);
    cpu.push(cpuMs() - c0);
  }
  return { ms: median(times), cpuMs: median(cpu) };
}

/** The default analysis of 1000 x 8 x 50 as a library, against numpy/scipy. */
export function benchAnalyzeLibrary(): Record<string, number> {
  const runs = makeRuns(1);
  const inference: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: 'in-domain', calibration: 0, robustness: false };
  const out: Record<string, number> = {};
  let result = analyzeRuns(runs, inference);
  const t = timed(() => { result = analyzeRuns(runs, inference); }, 5);
  out.default_test_1000x8x50_ms = t.ms;
  out.default_test_1000x8x50_cpu_ms = t.cpuMs;
  let pSum = 0, nEffSum = 0;
  for (const run of result.runs) for (const p of run.pairs) { pSum += p.p ?? 0; nEffSum += p.n_eff; }
  const positive = result.agreement.reduce((s, g) => s + g.positive, 0), negative = result.agreement.reduce((s, g) => s + g.negative, 0);
  out.positive = positive;
  out.negative = negative;
  const full = timed(() => analyzeRuns(runs, { ...DEFAULT_OPTIONS, control: 'in-domain' }), 1);
  out.default_with_calibration_and_robustness_ms = full.ms;
  out.default_with_calibration_and_robustness_cpu_ms = full.cpuMs;
  const python = '/usr/bin/python3';
  if (!existsSync(python)) return out;
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-bench-analyze-'));
  try {
    const data = new Float64Array(RUNS * (SETS + 1) * STEPS);
    runs.forEach((run, r) => {
      const base = r * (SETS + 1) * STEPS;
      data.set(run.values.get('in-domain')!, base);
      for (let s = 0; s < SETS; s++) data.set(run.values.get(`ood-${s}`)!, base + (s + 1) * STEPS);
    });
    const file = join(dir, 'runs.f64');
    writeFileSync(file, Buffer.from(data.buffer));
    const script = resolve(import.meta.dirname, 'analyze_reference.py');
    const res = spawnSync(python, [script, file, String(RUNS), String(SETS), String(STEPS)], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`analyze_reference.py failed: ${res.stderr}`);
    const ref = JSON.parse(res.stdout) as { ms: number; cpu_ms: number; p_sum: number; neff_sum: number; positive: number; negative: number };
    out.numpy_ms = ref.ms;
    out.numpy_cpu_ms = ref.cpu_ms;
    out.speedup_vs_numpy = ref.ms / t.ms;
    out.cpu_speedup_vs_numpy = ref.cpu_ms / t.cpuMs;
    out.p_sum_rel_diff = Math.abs(ref.p_sum - pSum) / Math.abs(ref.p_sum);
    out.neff_sum_rel_diff = Math.abs(ref.neff_sum - nEffSum) / Math.abs(ref.neff_sum);
    out.agreement_counts_diff = Math.abs(ref.positive - positive) + Math.abs(ref.negative - negative);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export async function benchAnalyze(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-bench-'));
  try {
    const sets = [
      ...DEFAULT_SIMULATED_SETS,
      { id: 'extra-a', cueLoading: 0.05, idLoading: 0.5, base: 0.3 },
      { id: 'extra-b', cueLoading: -0.05, idLoading: 0.5, base: 0.3 },
    ];
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
      ...benchAnalyzeLibrary(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
