// The error rates of analyze's inference, measured by simulation: `npm run bench -- calibration`.
// For AR(1) noise coefficients phi 0, 0.5, 0.8, 0.95 and runs of n = 10, 25, 50 checkpoints, score
// tables from bench/ar1-score-tables.ts (null: rho = 0; alternative: true partial correlation
// rho = 0.5) go through the real analysis path (buildRunSeries, analyzeRun) with the default
// inference and with --inference naive; each run has one OOD pair, tested at alpha = 0.05 without
// correction. Prints the markdown table docs/analyze.md shows (false-positive rate with its 95%
// simulation interval, and power) and returns the numbers. RUNS runs per cell (env CALIBRATION_RUNS
// to change it; 2000 gives a binomial standard error of 0.5% at 5%).
import { analyzeRun, DEFAULT_OPTIONS, type AnalyzeOptions } from '../src/analyze/analysis.ts';
import { buildRunSeries } from '../src/analyze/run-series.ts';
import { ar1ScoreTable, CONTROL } from './ar1-score-tables.ts';

const PHIS = [0, 0.5, 0.8, 0.95];
const NS = [10, 25, 50];
const EFFECT = 0.5;
const ALPHA = 0.05;

function rejectionRate(phi: number, n: number, rho: number, runs: number, seed: number, opts: AnalyzeOptions): number {
  const rows = ar1ScoreTable({ phi, n, rho, runs, seed }).map((r) => ({
    run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value, attributes: {}, origin: 'simulated',
  }));
  let rejected = 0;
  for (const series of buildRunSeries(rows, 'accuracy')) {
    const p = analyzeRun(series, opts).pairs[0].p;
    if (p !== null && p < ALPHA) rejected++;
  }
  return rejected / runs;
}

export async function benchCalibration(): Promise<Record<string, number | string>> {
  const runs = Number(process.env.CALIBRATION_RUNS ?? 2000);
  const base: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: CONTROL, correction: 'none', alpha: ALPHA, calibration: 0, robustness: false };
  const inferences = { default: base, naive: { ...base, inference: 'naive' as const } };
  const out: Record<string, number | string> = { runs_per_cell: runs };
  const se = (p: number) => 1.96 * Math.sqrt(p * (1 - p) / runs);
  const lines = [
    `| phi | n | false positives, default | false positives, naive | power at rho ${EFFECT}, default | power, naive |`,
    '|---|---|---|---|---|---|',
  ];
  const t0 = performance.now();
  for (const phi of PHIS) {
    for (const n of NS) {
      const seed = 1000 * Math.round(phi * 100) + n;
      const cell: Record<string, number> = {};
      for (const [name, opts] of Object.entries(inferences)) {
        cell[`fpr_${name}`] = rejectionRate(phi, n, 0, runs, seed, opts);
        cell[`power_${name}`] = rejectionRate(phi, n, EFFECT, runs, seed + 7, opts);
        out[`phi${phi}_n${n}_fpr_${name}`] = cell[`fpr_${name}`];
        out[`phi${phi}_n${n}_power_${name}`] = cell[`power_${name}`];
      }
      const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
      lines.push(`| ${phi} | ${n} | ${pct(cell.fpr_default)} ± ${pct(se(cell.fpr_default))} | ${pct(cell.fpr_naive)} ` +
        `| ${pct(cell.power_default)} | ${pct(cell.power_naive)} |`);
    }
  }
  out.seconds = (performance.now() - t0) / 1000;
  console.log(lines.join('\n'));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchCalibration());
}
