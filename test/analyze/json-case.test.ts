// The analysis JSON has one case convention, snake_case (docs/design.md, Decisions): an in-process
// analysis of small runs that fill every optional part (calibration, control noise, uneven steps,
// bootstrap, permutations, a moderator, a run left out) written as `analyze --format json` and the
// study's analysis.json write it (formatJson), every key walked. Maps keyed by data (the verdict
// counts) are the data's own words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS, PAIR_VERDICTS } from '../../src/analyze/analysis.ts';
import { ANALYSIS_JSON_VERSION, formatJson } from '../../src/analyze/format.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { createRandom } from '../../src/stats/index.ts';

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Paths (a.b[].c) whose object's keys are data, each with the keys it may hold. */
const DATA_KEYED: Record<string, readonly string[]> = { 'headline.counts': PAIR_VERDICTS };

/** A run of n checkpoints, log-spaced at first: three OOD sets around a rising control, a's and d's relation signed by `family`. */
function run(name: string, family: 'pos' | 'neg', seed: number, n = 30): RunSeries {
  const rnd = createRandom(seed);
  const c = Float64Array.from({ length: n }, (_, t) => 0.5 + 0.3 * (1 - Math.exp(-t / 10)));
  const a = new Float64Array(n), b = new Float64Array(n), d = new Float64Array(n);
  const rho = family === 'pos' ? 0.6 : -0.6;
  for (let t = 0; t < n; t++) {
    const u = rnd.normal(), v = rnd.normal(), w = rnd.normal();
    a[t] = c[t] + 0.02 * u;
    b[t] = 0.8 * c[t] + 0.02 * (0.6 * u + 0.8 * v);
    d[t] = 0.6 * c[t] + 0.02 * (rho * u + 0.8 * w);
  }
  const values = new Map([['id', c], ['a', a], ['b', b], ['d', d]]);
  // binomial noise of 1000 examples: what the control-noise correction and the reliabilities need
  const samplingVariance = new Map([...values].map(([k, x]) => [k, x.map((p) => p * (1 - p) / 1000)]));
  const steps = Array.from({ length: n }, (_, t) => (t < 5 ? t * 10 : t * 100));
  return { run: name, steps, values, samplingVariance, attributes: { family }, incompleteSteps: [] };
}

/** Every key of `value` with its path, the keys of data-keyed maps left out. */
function keysOf(value: unknown, at = ''): { key: string; path: string }[] {
  if (Array.isArray(value)) return value.flatMap((v) => keysOf(v, `${at}[]`));
  if (value === null || typeof value !== 'object') return [];
  if (at in DATA_KEYED) {
    for (const k of Object.keys(value)) assert.ok(DATA_KEYED[at].includes(k), `${at}: ${k} is not one of its data's words`);
    return [];
  }
  return Object.entries(value).flatMap(([key, v]) => {
    const path = at ? `${at}.${key}` : key;
    return [{ key, path }, ...keysOf(v, path)];
  });
}

test('every key of the analysis JSON is snake_case, with its format version first', () => {
  const runs = [0, 1, 2, 3, 4, 5].map((i) => run(`m${i}`, i % 2 ? 'neg' : 'pos', 10 + i));
  runs.push(run('short', 'pos', 99, 4));
  const result = analyzeRuns(runs, {
    ...DEFAULT_OPTIONS, control: 'id', moderator: 'family', bootstrap: 20, permutations: 20, calibration: 20,
  });
  const json = JSON.parse(formatJson(result));
  assert.equal(Object.keys(json)[0], 'format_version');
  assert.equal(json.format_version, ANALYSIS_JSON_VERSION);
  const keys = keysOf(json);
  const paths = new Set(keys.map((k) => k.path));
  // the fixture fills the optional parts, so their keys are walked too
  for (const path of ['left_out[].reason', 'runs[].spacing.reference_gap', 'runs[].control_noise.reliability', 'runs[].calibration.variance_ratio',
    'runs[].pairs[].n_eff', 'runs[].pairs[].r_disattenuated',
    'runs[].pairs[].r_simex', 'runs[].pairs[].r_uncorrected', 'runs[].pairs[].bootstrap_ci95', 'runs[].pairs[].permutation_p',
    'meta.hartung_knapp', 'meta.pairs[].tau2_ci95', 'meta.pairs[].moderator.coefficients[].ci95', 'robustness.pairs[].otherwise',
    'headline.runs_left_out']) {
    assert.ok(paths.has(path), `${path} is not in the JSON: the fixture no longer fills it`);
  }
  assert.deepEqual(keys.filter((k) => !SNAKE.test(k.key)).map((k) => k.path), []);
});

test('the check sees the keys the JSON had before its format version', () => {
  const before = { headline: { runsLeftOut: 0 }, leftOut: [], runs: [{ pairs: [{ nEff: 20, p_adjusted: 0.1 }] }] };
  assert.deepEqual(keysOf(before).filter((k) => !SNAKE.test(k.key)).map((k) => k.path), ['headline.runsLeftOut', 'leftOut', 'runs[].pairs[].nEff']);
});
