// The headline's caveat on "depends on the model" when the control is a score measured with
// sampling noise (analyze/headline.ts): on simulated fixed in-domain test sets the control's
// correction left some null pair "depends on the model" in about half of 28-pair studies
// (docs/analyze.md, "fixed test sets"), so that verdict is marked unconfirmed wherever the control is
// noisy, and only there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_OPTIONS, type RunAnalysis } from '../../src/analyze/analysis.ts';
import { headlineOf } from '../../src/analyze/headline.ts';
import { metaAcrossRuns } from '../../src/analyze/pair-meta.ts';
import type { RunControlNoise } from '../../src/analyze/run-result.ts';

const options = { ...DEFAULT_OPTIONS, control: 'id' };
const run = (name: string, r: number, controlNoise?: RunControlNoise): RunAnalysis => ({
  run: name, n: 40, control: 'id', distinct: 40, ...(controlNoise ? { control_noise: controlNoise } : {}),
  pairs: [{ a: 'x', b: 'y', r, n_eff: 40, df: 37, p: 1e-6, p_adjusted: 1e-6, ci95: [r - 0.2, r + 0.2], representation: 'levels' }],
});
const headline = (rs: number[], noise?: RunControlNoise) => {
  const runs = rs.map((r, i) => run(`r${i}`, r, i === 0 ? noise : undefined));
  return headlineOf({ runs, meta: metaAcrossRuns(runs, options) }, options);
};
const byModel = [0.8, -0.8, 0.8, -0.8, 0.8];

test('a pair that depends on the model with a noisy control carries the caveat, in the sentence and as a field', () => {
  for (const noise of [{ correction: 'simex', reliability: 0.96 }, { correction: 'moments', reliability: 0.5, uncorrected: 2 },
    { correction: 'none', warning: "the control's sampling variance is not known" }, { correction: 'none' }] as RunControlNoise[]) {
    const h = headline(byModel, noise);
    assert.equal(h.counts['depends on the model'], 1);
    assert.equal(h.noisy_control_caveat, true);
    assert.match(h.sentence, /1 depends on the model.*Caveat: the control is a score measured with sampling noise.*read that verdict as unconfirmed/);
  }
});

test('no caveat where the control carries no noise, or where no pair depends on the model', () => {
  const known = [undefined, { correction: 'simex', reliability: 1 }, { correction: 'simex', reliability: 0.9, error_covariance: true }];
  for (const noise of known as (RunControlNoise | undefined)[]) {
    const h = headline(byModel, noise);
    assert.equal(h.counts['depends on the model'], 1);
    assert.equal(h.noisy_control_caveat, undefined);
    assert.doesNotMatch(h.sentence, /Caveat/);
  }
  const h = headline([0.8, 0.75, 0.82, 0.79, 0.8], { correction: 'simex', reliability: 0.9 });
  assert.equal(h.counts.generalises, 1);
  assert.equal(h.noisy_control_caveat, undefined);
  assert.doesNotMatch(h.sentence, /Caveat/);
});
