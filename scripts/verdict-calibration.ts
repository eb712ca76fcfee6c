// How often each of analyze's four verdicts (analyze/verdict.ts) is declared for one pair of OOD
// sets, by the truth behind it, with 3, 5, 10 and 20 runs: the error rates and power of
// "generalises", "depends on the model", "negligible everywhere" (the equivalence margin, default
// 0.1) and how often the answer is "inconclusive".
//
//   node --import tsx scripts/verdict-calibration.ts [--reps 1000] [--seed 1] [--phi 0.5] [--margin 0.1]
//
// Each simulated study has k runs. Run i has n checkpoints (30 or 100): an in-domain control c (a
// saturating learning curve plus white noise) and two OOD sets a = 0.8 c + 0.05 e and
// b = -0.3 c + 0.05 v, with e and v AR(1) noise of coefficient phi whose innovations correlate
// rho_i (stats/ar1.ts), so the run's true partial correlation given c is rho_i. Truths:
//   null             rho_i = 0 in every run
//   at the margin    rho_i = 0.1 in every run (a relation exactly as large as the margin)
//   common effect    rho_i = 0.3 in every run
//   model-dependent  rho_i = tanh(z_i), z_i ~ N(0, 0.4^2) (the sign differs between models)
// Every study goes through the real path: analyzeRuns with the default options (effective-n
// inference, levels or differences per pair, unstable runs left out, REML + Hartung-Knapp), one
// pair, so no correction over pairs applies (with m pairs the Holm correction makes the pooled and
// Q tests stricter). A second table: how often the unstable check flags honest runs with a true
// effect. Prints markdown tables (docs/analyze.md has their output). Seeded.
import { analyzeRuns, DEFAULT_OPTIONS, PAIR_VERDICTS, type AnalyzeOptions, type PairVerdict } from '../src/analyze/analysis.ts';
import type { RunSeries } from '../src/analyze/run-series.ts';
import { ar1Into, correlatedAr1Into, createRandom, type Random } from '../src/stats/index.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const reps = arg('reps', 1000);
const seed = arg('seed', 1);
const phi = arg('phi', 0.5);
const margin = arg('margin', 0.1);
const random = createRandom(seed);
const opts: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: 'id', calibration: 0, robustness: false, equivalenceMargin: margin };

const TRUTHS: { name: string; rho: (r: Random) => number }[] = [
  { name: 'null', rho: () => 0 },
  { name: 'at the margin (r 0.1)', rho: () => 0.1 },
  { name: 'common effect (r 0.3)', rho: () => 0.3 },
  { name: 'model-dependent (z ~ N(0, 0.4²))', rho: (r) => Math.tanh(0.4 * r.normal()) },
];

function simulatedRun(name: string, n: number, rho: number, ar = phi): RunSeries {
  const e = new Float64Array(n), v = new Float64Array(n);
  if (rho === 0) { ar1Into(e, ar, random); ar1Into(v, ar, random); } else correlatedAr1Into(e, v, ar, rho, random);
  const c = new Float64Array(n), a = new Float64Array(n), b = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    c[t] = 0.3 + 0.5 * (1 - Math.exp(-4 * t / (n - 1))) + 0.02 * random.normal();
    a[t] = 0.8 * c[t] + 0.05 * e[t];
    b[t] = -0.3 * c[t] + 0.05 * v[t];
  }
  return {
    run: name, steps: Array.from({ length: n }, (_, t) => t * 100), values: new Map([['id', c], ['a', a], ['b', b]]),
    attributes: {}, incompleteSteps: [],
  };
}

const started = performance.now();
const lines: string[] = [
  `Simulation: ${reps} studies per row, seed ${seed}; AR(1) phi ${phi}; equivalence margin ${margin}; ` +
    'alpha 0.05; one pair (no correction over pairs).',
  '',
  `| runs | checkpoints | truth | ${PAIR_VERDICTS.join(' | ')} | unstable run results |`,
  `|---|---|---|${PAIR_VERDICTS.map(() => '---|').join('')}---|`,
];
for (const truth of TRUTHS) {
  for (const n of [30, 100]) {
    for (const k of [3, 5, 10, 20]) {
      const counts = Object.fromEntries(PAIR_VERDICTS.map((v) => [v, 0])) as Record<PairVerdict, number>;
      let unstable = 0, wrongSign = 0;
      for (let rep = 0; rep < reps; rep++) {
        const runs = Array.from({ length: k }, (_, i) => simulatedRun(`r${i}`, n, truth.rho(random)));
        const result = analyzeRuns(runs, opts);
        const pair = result.meta.pairs[0];
        counts[pair.verdict]++;
        if (pair.verdict === 'generalises' && truth.name.startsWith('common') && pair.r! < 0) wrongSign++;
        unstable += pair.unstable.length;
      }
      const pct = (x: number, of: number) => `${((100 * x) / of).toFixed(1)}%`;
      const cells = PAIR_VERDICTS.map((v) => pct(counts[v], reps) + (v === 'generalises' && wrongSign ? ` (${wrongSign} with the wrong sign)` : ''));
      lines.push(`| ${k} | ${n} | ${truth.name} | ${cells.join(' | ')} | ${pct(unstable, reps * k)} |`);
    }
  }
}
// How often the unstable check (analyze/stability.ts) flags an honest run: one run at a time, a true
// partial correlation of 0.5, among the runs whose pair is significant (adjusted p < 0.05; only
// those face the carrying-checkpoint check), on white noise and on AR(1) noise.
lines.push('', 'Unstable runs among significant ones, true r 0.5 (one pair per run):', '',
  '| checkpoints | phi | significant runs | flagged unstable |', '|---|---|---|---|');
for (const n of [10, 15, 25, 50]) {
  for (const p of [0, 0.8]) {
    let significant = 0, flagged = 0;
    for (let rep = 0; rep < reps; rep++) {
      const pair = analyzeRuns([simulatedRun('r', n, 0.5, p)], opts).runs[0].pairs[0];
      if (pair.p_adjusted !== null && pair.p_adjusted < 0.05) {
        significant++;
        if (pair.unstable !== undefined) flagged++;
      }
    }
    lines.push(`| ${n} | ${p} | ${significant} of ${reps} | ${significant ? ((100 * flagged) / significant).toFixed(1) : '-'}% |`);
  }
}
lines.push('', `(${((performance.now() - started) / 1000).toFixed(0)} s)`);
process.stdout.write(lines.join('\n') + '\n');
