// How far to trust the across-run meta-analysis with few runs: the false-positive rate of the
// pooled test, the coverage of its 95% CI and of the 95% prediction interval, and its power, for
// REML with and without the Hartung-Knapp adjustment, by simulation.
//
//   node --import tsx scripts/meta-analysis-calibration.ts [--reps 2000] [--seed 1]
//
// Each simulated study has k runs (3, 5, 10). Run i has a true partial correlation
// rho_i = tanh(z_i), z_i ~ N(mu, tau^2), and n_i checkpoints (uniform on 15..60) of
// independent (x, y, c): x = c + e1, y = 0.5 c + e2 with corr(e1, e2) = rho_i, so its partial
// correlation given c is rho_i. genstudy's partial correlation (k = 1) gives r_i; the run enters
// the meta-analysis as z = atanh(r_i) with variance 1 / (n_i - 4), as analyze does. The checkpoints
// are independent here, so this measures the across-run layer alone (within-run autocorrelation is
// the effective sample size's job). Prints a markdown table (docs/analyze.md has its output).
// "called generalises" is analyze's verdict for a single pair (no correction over pairs): pooled
// p < 0.05 and a 95% prediction interval of one sign. With tau = 0.3 and mu = 0.3 the true
// effects of new runs include negative ones (tanh(0.3 -+ 1.96 * 0.3) = [-0.28, 0.71]), so there
// the verdict is wrong; with tau = 0 (one true effect) it is right.
// A second table: the moderator test's false-positive rate (a two-level attribute, alternating
// over the runs, that the true effects do not depend on), QM against Hartung-Knapp's F.
import { createRandom, isMetaRegression, metaRegression, partialCorrelation, randomEffectsMeta } from '../src/stats/index.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const reps = arg('reps', 2000);
const seed = arg('seed', 1);
const random = createRandom(seed);

/** One run's estimate: z of the partial correlation of n checkpoints with true partial correlation rho. */
function runEstimate(rho: number, n: number): { y: number; v: number } {
  const x = new Float64Array(n), y = new Float64Array(n), c = new Float64Array(n);
  const s = Math.sqrt(1 - rho * rho);
  for (let t = 0; t < n; t++) {
    const a = random.normal(), b = random.normal();
    c[t] = random.normal();
    x[t] = c[t] + a;
    y[t] = 0.5 * c[t] + rho * a + s * b;
  }
  const r = partialCorrelation(x, y, [c], { method: 'pearson', residualiser: 'linear' }).r!;
  return { y: Math.atanh(r), v: 1 / (n - 4) };
}

interface Tally { reject: number; ciCover: number; piCover: number; piCount: number; heterogeneous: number; generalises: number }

const lines: string[] = [
  `Simulation: ${reps} studies per row, seed ${seed}; alpha 0.05; n per run uniform on 15..60.`,
  '',
  '| runs k | mu (z) | tau | method | rejects mu = 0 | 95% CI covers mu | 95% PI covers a new run | Q p < 0.05 | called "generalises" |',
  '|---|---|---|---|---|---|---|---|---|',
];
for (const k of [3, 5, 10]) {
  for (const mu of [0, 0.3]) {
    for (const tau of [0, 0.1, 0.3]) {
      const tallies: Record<'REML' | 'REML + HK', Tally> = {
        'REML': { reject: 0, ciCover: 0, piCover: 0, piCount: 0, heterogeneous: 0, generalises: 0 },
        'REML + HK': { reject: 0, ciCover: 0, piCover: 0, piCount: 0, heterogeneous: 0, generalises: 0 },
      };
      for (let rep = 0; rep < reps; rep++) {
        const ys: number[] = [], vs: number[] = [];
        for (let i = 0; i < k; i++) {
          const z = mu + tau * random.normal();
          const n = 15 + random.int(46);
          const e = runEstimate(Math.tanh(z), n);
          ys.push(e.y); vs.push(e.v);
        }
        const zNew = mu + tau * random.normal();
        for (const [name, hk] of [['REML', false], ['REML + HK', true]] as const) {
          const m = randomEffectsMeta(ys, vs, { estimator: 'REML', hartungKnapp: hk });
          const t = tallies[name];
          if (m.p < 0.05) t.reject++;
          if (m.ci[0] <= mu && mu <= m.ci[1]) t.ciCover++;
          if (m.q_p! < 0.05) t.heterogeneous++;
          if (m.prediction_interval) {
            t.piCount++;
            if (m.prediction_interval[0] <= zNew && zNew <= m.prediction_interval[1]) t.piCover++;
            // analyze's verdict for one pair: pooled effect significant, prediction interval of one sign
            if (m.p < 0.05 && (m.prediction_interval[0] > 0 || m.prediction_interval[1] < 0)) t.generalises++;
          }
        }
      }
      for (const [name, t] of Object.entries(tallies)) {
        const pct = (x: number, of: number) => `${((100 * x) / of).toFixed(1)}%`;
        lines.push(`| ${k} | ${mu} | ${tau} | ${name} | ${pct(t.reject, reps)}${mu === 0 ? '' : ' (power)'} | ${pct(t.ciCover, reps)} ` +
          `| ${t.piCount ? pct(t.piCover, t.piCount) : '-'} | ${pct(t.heterogeneous, reps)} | ${pct(t.generalises, reps)} |`);
      }
    }
  }
}
lines.push('', 'Moderator test (two levels, no true difference; mu = 0.2 in z):', '',
  '| runs k | tau | QM (z) rejects | F (Hartung-Knapp) rejects |', '|---|---|---|---|');
for (const k of [4, 6, 10]) {
  for (const tau of [0, 0.3]) {
    let qm = 0, f = 0;
    for (let rep = 0; rep < reps; rep++) {
      const ys: number[] = [], vs: number[] = [];
      for (let i = 0; i < k; i++) {
        const e = runEstimate(Math.tanh(0.2 + tau * random.normal()), 15 + random.int(46));
        ys.push(e.y); vs.push(e.v);
      }
      const moderator = { kind: 'categorical' as const, values: ys.map((_, i) => (i % 2 === 0 ? 'a' : 'b')) };
      const z = metaRegression(ys, vs, moderator, { estimator: 'REML', hartungKnapp: false });
      const hk = metaRegression(ys, vs, moderator, { estimator: 'REML', hartungKnapp: true });
      if (isMetaRegression(z) && z.test.p < 0.05) qm++;
      if (isMetaRegression(hk) && hk.test.p < 0.05) f++;
    }
    lines.push(`| ${k} | ${tau} | ${((100 * qm) / reps).toFixed(1)}% | ${((100 * f) / reps).toFixed(1)}% |`);
  }
}
process.stdout.write(lines.join('\n') + '\n');
