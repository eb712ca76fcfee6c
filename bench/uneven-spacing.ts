// The error rates of analyze's default test on unevenly spaced checkpoints, measured by
// simulation: `npm run bench -- uneven-spacing` (env UNEVEN_RUNS, default 1000 runs per cell).
// Schedules: Pythia's published checkpoints as the issue states them (0, 1, 2, 4, ..., 512, 1000,
// 3000, then every 10,000 steps to 140,000, and 143,000: 28 checkpoints), genstudy's own
// `logSpaced: 12`, `24` and `50` over 100,000 steps (src/train/policy.ts; step 0 added), and 25
// evenly spaced checkpoints for comparison. Noise: Ornstein-Uhlenbeck in training steps with time
// constants tau from 0.1% to 100% of the run's length (bench/ar1-score-tables.ts, ouScoreTable;
// null rho = 0, alternative a true partial correlation of 0.5). Each run goes through the real
// analysis path (buildRunSeries, analyzeRun) with one pair at alpha 0.05, no correction, and is
// tested three ways: the default (which models the gaps), the even-spacing test genstudy used
// before (the same scores given steps 0, 1, 2, ...: a lag-1 autocorrelation and plain
// differences), and the naive test. Prints the markdown table of docs/analyze.md.
import { analyzeRun, DEFAULT_OPTIONS, type AnalyzeOptions } from '../src/analyze/analysis.ts';
import { buildRunSeries, type RunSeries } from '../src/analyze/run-series.ts';
import { checkpointSteps } from '../src/train/policy.ts';
import { CONTROL, ouScoreTable } from './ar1-score-tables.ts';

export const PYTHIA_STEPS = [
  0, ...Array.from({ length: 10 }, (_, i) => 2 ** i), 1000, 3000, ...Array.from({ length: 14 }, (_, i) => 10000 * (i + 1)), 143000,
];
const SCHEDULES: Record<string, number[]> = {
  pythia: PYTHIA_STEPS,
  'log-spaced 12': checkpointSteps({ logSpaced: 12 }, 100000),
  'log-spaced 24': checkpointSteps({ logSpaced: 24 }, 100000),
  'log-spaced 50': checkpointSteps({ logSpaced: 50 }, 100000),
  'even 25': Array.from({ length: 25 }, (_, i) => i * 4000),
};
const TAU_FRACTIONS = [0.001, 0.01, 0.1, 0.3, 1];
const EFFECT = 0.5;
const ALPHA = 0.05;

function seriesOf(steps: number[], tau: number, rho: number, runs: number, seed: number): RunSeries[] {
  const rows = ouScoreTable({ steps, tau, rho, runs, seed }).map((r) => ({
    run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value, attributes: {}, origin: 'simulated',
  }));
  return buildRunSeries(rows, 'accuracy');
}

function rejectionRates(series: RunSeries[], opts: AnalyzeOptions): { gaps: number; even: number; naive: number } {
  const counts = { gaps: 0, even: 0, naive: 0 };
  const reject = (s: RunSeries, o: AnalyzeOptions) => { const p = analyzeRun(s, o).pairs[0].p; return p !== null && p < ALPHA ? 1 : 0; };
  for (const s of series) {
    counts.gaps += reject(s, opts);
    counts.even += reject({ ...s, steps: s.steps.map((_, i) => i) }, opts);
    counts.naive += reject(s, { ...opts, inference: 'naive' });
  }
  const n = series.length;
  return { gaps: counts.gaps / n, even: counts.even / n, naive: counts.naive / n };
}

export async function benchUnevenSpacing(): Promise<Record<string, number | string>> {
  const runs = Number(process.env.UNEVEN_RUNS ?? 1000);
  const opts: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: CONTROL, correction: 'none', alpha: ALPHA, calibration: 0, robustness: false };
  const out: Record<string, number | string> = { runs_per_cell: runs };
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const se = (p: number) => 1.96 * Math.sqrt(p * (1 - p) / runs);
  const lines = [
    '| schedule | n | tau / length | false positives, default | even-spacing test | naive ' +
      `| power at rho ${EFFECT}, default | even-spacing test | naive |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const t0 = performance.now();
  let seed = 1;
  for (const [name, steps] of Object.entries(SCHEDULES)) {
    for (const fraction of TAU_FRACTIONS) {
      const tau = fraction * steps[steps.length - 1];
      const nul = rejectionRates(seriesOf(steps, tau, 0, runs, seed++), opts);
      const alt = rejectionRates(seriesOf(steps, tau, EFFECT, runs, seed++), opts);
      const key = `${name.replace(/ /g, '')}_tau${fraction}`;
      out[`${key}_fpr`] = nul.gaps; out[`${key}_fpr_even_test`] = nul.even; out[`${key}_fpr_naive`] = nul.naive;
      out[`${key}_power`] = alt.gaps; out[`${key}_power_even_test`] = alt.even; out[`${key}_power_naive`] = alt.naive;
      lines.push(`| ${name} | ${steps.length} | ${fraction} | ${pct(nul.gaps)} ± ${pct(se(nul.gaps))} | ${pct(nul.even)} | ${pct(nul.naive)} ` +
        `| ${pct(alt.gaps)} | ${pct(alt.even)} | ${pct(alt.naive)} |`);
    }
  }
  out.seconds = (performance.now() - t0) / 1000;
  console.log(lines.join('\n'));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchUnevenSpacing());
}
