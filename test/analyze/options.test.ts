// The analysis options are declared once (analyze/options.ts): the CLI flags, the study file's
// `analysis:` section and the library defaults all come from that table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command } from 'commander';
import { ANALYSIS_OPTIONS, AnalysisOptionsSchema, DEFAULT_OPTIONS } from '../../src/analyze/options.ts';
import { addAnalysisOptions, analysisOptionsFromFlags, type AnalysisFlags } from '../../src/cli/analysis-flags.ts';
import { AnalysisSchema } from '../../src/config/schema.ts';
import { CORRECTIONS, CORRELATION_METHODS, INFERENCES, RESIDUALISERS } from '../../src/stats/index.ts';
import { UserError } from '../../src/errors.ts';

function parse(args: string[]) {
  const cmd = addAnalysisOptions(new Command().exitOverride().configureOutput({ writeErr: () => {} }));
  cmd.parse(args, { from: 'user' });
  return analysisOptionsFromFlags(cmd.opts() as AnalysisFlags);
}

test('the choices are what stats/ offers, and the defaults are the calibrated ones', () => {
  assert.deepEqual(ANALYSIS_OPTIONS.method.choices, CORRELATION_METHODS);
  assert.deepEqual(ANALYSIS_OPTIONS.residualiser.choices, ['auto', ...RESIDUALISERS]);
  assert.equal(DEFAULT_OPTIONS.residualiser, 'auto');
  assert.deepEqual(ANALYSIS_OPTIONS.inference.choices, INFERENCES);
  assert.deepEqual(ANALYSIS_OPTIONS.correction.choices, CORRECTIONS);
  assert.equal(DEFAULT_OPTIONS.inference, 'effective-n');
  assert.equal(DEFAULT_OPTIONS.representation, 'auto');
  assert.equal(DEFAULT_OPTIONS.robustness, true);
  assert.equal(DEFAULT_OPTIONS.calibration, 200);
});

test('no flags give exactly the library defaults; every option has a flag', () => {
  assert.deepEqual(parse([]), DEFAULT_OPTIONS);
  const cmd = addAnalysisOptions(new Command());
  const flags = cmd.options.map((o) => o.long);
  for (const [name, spec] of Object.entries(ANALYSIS_OPTIONS)) {
    const kebab = 'flag' in spec ? spec.flag : name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    assert.ok(flags.includes(`--${kebab}`) || flags.includes(`--no-${kebab}`), `no flag for ${name}`);
  }
});

test('flags are parsed and validated by the one schema', () => {
  const o = parse(['--inference', 'naive', '--no-robustness', '--calibration', '0', '--alpha', '0.01', '--test-set', 'a', 'b', '--differences']);
  assert.equal(o.inference, 'naive');
  assert.equal(o.robustness, false);
  assert.equal(o.calibration, 0);
  assert.equal(o.alpha, 0.01);
  assert.deepEqual(o.testSets, ['a', 'b']);
  assert.equal(o.representation, 'differences', '--differences is the shorthand for --representation differences');
  assert.equal(parse(['--meta-estimator', 'dl']).metaEstimator, 'DL', 'estimators are taken in any case');
  assert.equal(parse(['--no-hartung-knapp']).hartungKnapp, false);
  assert.throws(() => parse(['--alpha', '2']), (e: unknown) => e instanceof UserError && /--alpha 2: expected a number in \(0, 1\)/.test(e.message));
  assert.throws(() => parse(['--calibration', '1.5']),
    (e: unknown) => e instanceof UserError && /--calibration 1.5: expected a whole number/.test(e.message));
  assert.throws(() => parse(['--inference', 'bayes']), /Allowed choices are effective-n, naive/);
});

test("a study file's analysis section goes through the same schema, plus its metric", () => {
  const parsed = AnalysisSchema.parse({ inference: 'naive', representation: 'levels', calibration: 50 });
  assert.deepEqual(parsed, { ...DEFAULT_OPTIONS, inference: 'naive', representation: 'levels', calibration: 50, metric: 'accuracy' });
  assert.equal(AnalysisSchema.safeParse({ inference: 'bayes' }).success, false);
  assert.equal(AnalysisSchema.safeParse({ differences: true }).success, false, 'the old boolean is now representation: differences');
  assert.deepEqual(AnalysisOptionsSchema.parse({}), DEFAULT_OPTIONS);
});
