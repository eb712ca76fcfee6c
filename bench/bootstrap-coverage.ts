// Coverage of analyze's block bootstrap interval (--bootstrap N), measured by simulation:
// `npm run bench -- bootstrap-coverage` (env COVERAGE_RUNS, default 1000 simulated runs per cell;
// COVERAGE_RESAMPLES, default 400 resamples per interval). Runs as in bench/ar1-score-tables.ts:
// a learning-curve control c and ood-a = 0.8 c + 0.05 e, ood-b = -0.3 c + 0.05 v, e and v AR(1)
// with coefficient phi whose values correlate rho (the true partial correlation). Plateau-heavy
// runs then hold each checkpoint's whole score row at the previous one's with probability 0.5 (a
// small model's curve sitting still: about half the checkpoints repeat a row), which keeps the
// true partial correlation rho. Per cell: the share of 95% intervals that contain rho for the
// percentile-t interval genstudy uses (stats/bootstrap.ts), the plain percentile interval it used
// before (computed here from the same resamples' r), and the effective-n Fisher-z CI of the main
// test; an interval that is null (the pair's r undefined, or too few defined resamples) counts as
// not covering, and its share is printed. Prints the markdown table of docs/analyze.md.
import { blockBootstrap, correlatedAr1Into, createRandom, partialCorrelation, type Random } from '../src/stats/index.ts';
import { circularBlockRows, quantile } from '../src/stats/bootstrap.ts';

const CELLS: { plateau: boolean; phi: number; n: number }[] = [];
for (const plateau of [false, true]) {
  for (const phi of plateau ? [0.5, 0.8] : [0, 0.5, 0.8]) for (const n of [25, 50]) CELLS.push({ plateau, phi, n });
}
const RHOS = [0, 0.5];
const LINEAR = { method: 'pearson', residualiser: 'linear' } as const;

function simulatedRun(n: number, phi: number, rho: number, plateau: boolean, random: Random, e: Float64Array, v: Float64Array) {
  correlatedAr1Into(e, v, phi, rho, random);
  const c = Float64Array.from({ length: n }, (_, t) => 0.3 + 0.5 * (1 - Math.exp(-4 * t / (n - 1))) + 0.02 * random.normal());
  const x = c.map((cv, t) => 0.8 * cv + 0.05 * e[t]), y = c.map((cv, t) => -0.3 * cv + 0.05 * v[t]);
  if (plateau) {
    for (let t = 1; t < n; t++) if (random.uniform() < 0.5) { c[t] = c[t - 1]; x[t] = x[t - 1]; y[t] = y[t - 1]; }
  }
  return { x, y, c };
}

/** genstudy's former interval: percentiles of the resampled r (same resampling scheme and seed). */
function percentileInterval(x: Float64Array, y: Float64Array, c: Float64Array, resamples: number, seed: number): [number, number] | null {
  const n = x.length;
  const blockLength = Math.max(1, Math.ceil(Math.cbrt(n)));
  const random = createRandom(seed);
  const rows = new Int32Array(n), bx = new Float64Array(n), by = new Float64Array(n), bc = new Float64Array(n);
  const rs: number[] = [];
  for (let b = 0; b < resamples; b++) {
    circularBlockRows(n, blockLength, random.uniform, rows);
    for (let i = 0; i < n; i++) { bx[i] = x[rows[i]]; by[i] = y[rows[i]]; bc[i] = c[rows[i]]; }
    const r = partialCorrelation(bx, by, [bc], LINEAR, n).r; // every resampled row counts, as the bootstrap does
    if (r !== null) rs.push(r);
  }
  if (rs.length < resamples / 2) return null;
  const sorted = Float64Array.from(rs).sort();
  return [quantile(sorted, 0.025), quantile(sorted, 0.975)];
}

export async function benchBootstrapCoverage(): Promise<Record<string, number | string>> {
  const runs = Number(process.env.COVERAGE_RUNS ?? 1000);
  const resamples = Number(process.env.COVERAGE_RESAMPLES ?? 400);
  const out: Record<string, number | string> = { runs_per_cell: runs, resamples };
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    '| series | phi | n | rho | percentile-t (genstudy) | null | percentile (before) | effective-n Fisher CI |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const t0 = performance.now();
  let seed = 1;
  for (const { plateau, phi, n } of CELLS) {
    for (const rho of RHOS) {
      const random = createRandom(seed++);
      const e = new Float64Array(n), v = new Float64Array(n);
      const covered = { t: 0, tNull: 0, percentile: 0, fisher: 0 };
      for (let r = 0; r < runs; r++) {
        const { x, y, c } = simulatedRun(n, phi, rho, plateau, random, e, v);
        const inside = (ci: [number, number] | null | undefined) => (ci && ci[0] <= rho && rho <= ci[1] ? 1 : 0);
        const t = blockBootstrap(x, y, [c], { ...LINEAR, resamples, seed: r }).ci95;
        covered.t += inside(t);
        if (t === null) covered.tNull++;
        covered.percentile += inside(percentileInterval(x, y, c, resamples, r));
        covered.fisher += inside(partialCorrelation(x, y, [c], { ...LINEAR, inference: 'effective-n' }).ci95);
      }
      const key = `${plateau ? 'plateau' : 'ar1'}_phi${phi}_n${n}_rho${rho}`;
      out[`${key}_percentile_t`] = covered.t / runs;
      out[`${key}_percentile`] = covered.percentile / runs;
      out[`${key}_fisher`] = covered.fisher / runs;
      const cells = [covered.t, covered.tNull, covered.percentile, covered.fisher].map((c) => pct(c / runs));
      lines.push(`| ${plateau ? 'plateau-heavy' : 'AR(1)'} | ${phi} | ${n} | ${rho} | ${cells.join(' | ')} |`);
    }
  }
  out.seconds = (performance.now() - t0) / 1000;
  console.log(lines.join('\n'));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchBootstrapCoverage());
}
