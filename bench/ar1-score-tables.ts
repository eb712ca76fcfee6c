// Simulated score tables with a known truth, for the error rates of analyze's inference
// (bench/calibration.ts, the table in docs/analyze.md). Each run has an in-domain control c (a
// saturating learning curve plus white noise) and two OOD sets that follow it linearly plus AR(1)
// noise:  ood-a = 0.8 c + 0.05 e,  ood-b = -0.3 c + 0.05 v,  e and v AR(1) with coefficient phi
// whose values correlate rho (stats/ar1.ts). With rho = 0 every true partial correlation given c
// is 0 (a null); with rho > 0 it is rho (an alternative of that effect size).
// As a script it writes one table as CSV (the columns `genstudy analyze` reads):
//   node --import tsx bench/ar1-score-tables.ts --phi 0.8 --n 25 --rho 0 --runs 300 --seed 1 > null.csv
import { ar1Into, correlatedAr1Into, correlatedOuInto, createRandom, ouInto } from '../src/stats/index.ts';

export interface Ar1TableOptions { phi: number; n: number; rho: number; runs: number; seed: number }
export interface Ar1Row { run: string; step: number; test_set: string; metric: string; value: number }

export const CONTROL = 'in-domain';

export function ar1ScoreTable(o: Ar1TableOptions): Ar1Row[] {
  const random = createRandom(o.seed);
  const rows: Ar1Row[] = [];
  const e = new Float64Array(o.n), v = new Float64Array(o.n);
  for (let r = 0; r < o.runs; r++) {
    const run = `run-${String(r).padStart(4, '0')}`;
    if (o.rho === 0) { ar1Into(e, o.phi, random); ar1Into(v, o.phi, random); } else correlatedAr1Into(e, v, o.phi, o.rho, random);
    for (let t = 0; t < o.n; t++) {
      const c = 0.3 + 0.5 * (1 - Math.exp(-4 * t / (o.n - 1))) + 0.02 * random.normal();
      const step = t * 100;
      rows.push({ run, step, test_set: CONTROL, metric: 'accuracy', value: c });
      rows.push({ run, step, test_set: 'ood-a', metric: 'accuracy', value: 0.8 * c + 0.05 * e[t] });
      rows.push({ run, step, test_set: 'ood-b', metric: 'accuracy', value: -0.3 * c + 0.05 * v[t] });
    }
  }
  return rows;
}

export interface OuTableOptions { steps: readonly number[]; tau: number; rho: number; runs: number; seed: number }

/**
 * The same design on any step schedule, with noise autocorrelated in training steps: e and v are
 * Ornstein-Uhlenbeck series sampled at the steps (correlation exp(-gap / tau), stats/ar1.ts) and
 * the control's learning curve is a function of the step, 0.3 + 0.5 (1 - exp(-4 step / last step)).
 * For the error rates on unevenly spaced schedules (bench/uneven-spacing.ts).
 */
export function ouScoreTable(o: OuTableOptions): Ar1Row[] {
  const random = createRandom(o.seed);
  const rows: Ar1Row[] = [];
  const n = o.steps.length, last = o.steps[n - 1];
  const e = new Float64Array(n), v = new Float64Array(n);
  for (let r = 0; r < o.runs; r++) {
    const run = `run-${String(r).padStart(4, '0')}`;
    if (o.rho === 0) {
      ouInto(e, o.steps, o.tau, random);
      ouInto(v, o.steps, o.tau, random);
    } else correlatedOuInto(e, v, o.steps, o.tau, o.rho, random);
    for (let t = 0; t < n; t++) {
      const c = 0.3 + 0.5 * (1 - Math.exp(-4 * o.steps[t] / last)) + 0.02 * random.normal();
      const step = o.steps[t];
      rows.push({ run, step, test_set: CONTROL, metric: 'accuracy', value: c });
      rows.push({ run, step, test_set: 'ood-a', metric: 'accuracy', value: 0.8 * c + 0.05 * e[t] });
      rows.push({ run, step, test_set: 'ood-b', metric: 'accuracy', value: -0.3 * c + 0.05 * v[t] });
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string, fallback: number): number => {
    const i = process.argv.indexOf(`--${name}`);
    return i < 0 ? fallback : Number(process.argv[i + 1]);
  };
  const rows = ar1ScoreTable({ phi: arg('phi', 0.8), n: arg('n', 25), rho: arg('rho', 0), runs: arg('runs', 300), seed: arg('seed', 1) });
  const csv = ['run,step,test_set,metric,value', ...rows.map((r) => `${r.run},${r.step},${r.test_set},${r.metric},${r.value}`)];
  process.stdout.write(csv.join('\n') + '\n');
}
