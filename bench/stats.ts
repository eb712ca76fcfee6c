// Speed of the statistics core on the scale: 200 runs x 10 test sets x 1000 evaluation steps,
// each run's 45 pairs of test sets partially correlated with the in-domain score controlled for,
// by partialCorrelationPairs (pearson + linear, spearman + linear, pearson + spline), against the
// same computation in numpy/scipy (bench/stats_reference.py, run here on the same data by Debian's
// /usr/bin/python3). The data is seeded and shared through a temporary binary file; both sides print
// sums of r and p so the numbers are checked to agree, not only timed. Wall and CPU time are both
// reported (medians of 5 passes after a warm-up); CPU time is the steadier one on a busy machine.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRandom, partialCorrelationPairs, type PartialOptions } from '../src/stats/index.ts';

const RUNS = 200, SERIES = 10, STEPS = 1000;

interface Run { id: Float64Array; series: Record<string, Float64Array> }

/** Seeded runs: a saturating in-domain curve, and test sets that follow it plus AR(1) noise. */
export function makeRuns(seed = 1): Run[] {
  const random = createRandom(seed);
  const runs: Run[] = [];
  for (let r = 0; r < RUNS; r++) {
    const id = new Float64Array(STEPS);
    let noise = 0;
    for (let t = 0; t < STEPS; t++) {
      noise = 0.9 * noise + 0.01 * random.normal();
      id[t] = 0.5 + 0.4 * (1 - Math.exp(-5 * t / STEPS)) + noise;
    }
    const series: Record<string, Float64Array> = {};
    for (let s = 0; s < SERIES; s++) {
      const v = new Float64Array(STEPS);
      const loading = random.uniform() * 2 - 0.5, curve = random.uniform();
      let e = 0;
      for (let t = 0; t < STEPS; t++) {
        e = 0.7 * e + 0.02 * random.normal();
        v[t] = 0.3 + loading * id[t] + curve * (id[t] - 0.7) ** 2 + e;
      }
      series[`set${String(s).padStart(2, '0')}`] = v;
    }
    runs.push({ id, series });
  }
  return runs;
}

const CONFIGS: Record<string, PartialOptions> = {
  pearson_linear: { method: 'pearson', residualiser: 'linear' },
  spearman_linear: { method: 'spearman', residualiser: 'linear' },
  pearson_spline: { method: 'pearson', residualiser: 'spline' },
};

function analyse(runs: Run[], opts: PartialOptions): { rSum: number; pSum: number } {
  let rSum = 0, pSum = 0;
  for (const run of runs) {
    for (const { result } of partialCorrelationPairs(run.series, [run.id], opts)) {
      rSum += result.r ?? 0;
      pSum += result.p ?? 0;
    }
  }
  return { rSum, pSum };
}

/** CPU time of this process (user + system), less disturbed than wall time on a shared machine. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function benchStats(): Promise<Record<string, number>> {
  const runs = makeRuns(1);
  const out: Record<string, number> = {};
  const sums: Record<string, { rSum: number; pSum: number }> = {};
  for (const [name, opts] of Object.entries(CONFIGS)) {
    sums[name] = analyse(runs, opts); // warm-up (JIT)
    const times: number[] = [], cpuTimes: number[] = [];
    for (let rep = 0; rep < 5; rep++) {
      const t0 = performance.now(), c0 = cpuMs();
      analyse(runs, opts);
      times.push(performance.now() - t0);
      cpuTimes.push(cpuMs() - c0);
    }
    out[`${name}_ms`] = median(times);
    out[`${name}_cpu_ms`] = median(cpuTimes);
  }
  const python = '/usr/bin/python3';
  if (!existsSync(python)) return out;
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-bench-stats-'));
  try {
    // layout: run-major; per run the id series, then the SERIES test sets in name order
    const data = new Float64Array(RUNS * (SERIES + 1) * STEPS);
    runs.forEach((run, r) => {
      const base = r * (SERIES + 1) * STEPS;
      data.set(run.id, base);
      Object.keys(run.series).sort().forEach((name, s) => data.set(run.series[name], base + (s + 1) * STEPS));
    });
    const file = join(dir, 'runs.f64');
    writeFileSync(file, Buffer.from(data.buffer));
    const script = resolve(import.meta.dirname, 'stats_reference.py');
    const res = spawnSync(python, [script, file, String(RUNS), String(SERIES), String(STEPS)], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`stats_reference.py failed: ${res.stderr}`);
    const ref = JSON.parse(res.stdout) as Record<string, { ms: number; cpu_ms: number; r_sum: number; p_sum: number }>;
    for (const name of Object.keys(CONFIGS)) {
      const r = ref[name];
      out[`${name}_numpy_ms`] = r.ms;
      out[`${name}_numpy_cpu_ms`] = r.cpu_ms;
      out[`${name}_speedup_vs_numpy`] = r.ms / out[`${name}_ms`];
      out[`${name}_cpu_speedup_vs_numpy`] = r.cpu_ms / out[`${name}_cpu_ms`];
      out[`${name}_r_sum_diff`] = Math.abs(r.r_sum - sums[name].rSum);
      out[`${name}_p_sum_diff`] = Math.abs(r.p_sum - sums[name].pSum);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchStats());
}
