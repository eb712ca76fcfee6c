import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { ResultStore } from '../../src/store/result-store.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeStudyA, writeStudyB } from './helpers.ts';

test('genstudy report writes the page and tables, and prints the answer and where they are', async (t) => {
  const dir = tempDir(t);
  const storePath = join(dir, 'results.sqlite');
  const store = ResultStore.open(storePath);
  writeStudyA(store, { runs: 2, steps: 16 });
  writeStudyB(store, { seeds: [0] });
  store.close();
  const study = join(dir, 'study.yaml');
  writeFileSync(study, 'name: cli-test\n');
  const out = join(dir, 'report');
  const r = await genstudy(['report', storePath, '--out', out, '--control', 'in-domain', '--method', 'spearman', '--correction', 'bonferroni',
    '--alpha', '0.01', '--study', study, '--title', 'CLI test', '--calibration', '20']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Across 2 runs, of 10 pairs of OOD test sets .* and 10 are inconclusive \(a prediction interval needs at least 3 runs\)\./);
  assert.match(r.stdout, /Study B: FT vs base, mean difference by role/);
  assert.ok(r.stdout.includes(`Report: ${join(out, 'report.html')}`));
  const html = readFileSync(join(out, 'report.html'), 'utf8');
  assert.ok(html.includes('<title>CLI test</title>'));
  assert.ok(html.includes('spearman partial correlation'));
  assert.ok(html.includes('name: cli-test'));
  const pairs = parse(readFileSync(join(out, 'partial_correlations.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
  assert.equal(pairs.length, 2 * 10);
  assert.ok(pairs.every((p) => (p.significant === 'true') === (Number(p.p_adjusted) < 0.01)));
  for (const name of ['agreement', 'study_b', 'study_b_by_role', 'runs', 'test_sets', 'scores', 'training_log']) {
    assert.ok(existsSync(join(out, `${name}.csv`)) && existsSync(join(out, `${name}.json`)), name);
  }
});

test('genstudy report: clear errors for a file that is not a store, a control that is not there and a bad flag', async (t) => {
  const dir = tempDir(t);
  const notStore = join(dir, 'scores.csv');
  writeFileSync(notStore, 'run,step,test_set,metric,value\n');
  let r = await genstudy(['report', notStore, '--out', join(dir, 'o')]);
  assert.equal(r.code, 2);
  // report reads any input analyze takes: an empty table is the table's error, not "not a store"
  assert.match(r.stderr, /scores\.csv: no score rows/);

  const storePath = join(dir, 'results.sqlite');
  const store = ResultStore.open(storePath);
  writeStudyA(store, { runs: 1, steps: 8 });
  store.close();
  r = await genstudy(['report', storePath, '--out', join(dir, 'o'), '--control', 'ID']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no scores for the control test set "ID" \(it has: in-domain, negation-broken/);
  r = await genstudy(['report', storePath, '--out', join(dir, 'o'), '--alpha', '2']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--alpha 2: expected a number in \(0, 1\)/);
  r = await genstudy(['report', storePath, '--out', join(dir, 'o'), '--method', 'kendall']);
  assert.equal(r.code, 2, 'a parser error exits as a value genstudy checks does');
  assert.match(r.stderr, /'kendall' is invalid\. Allowed choices are pearson, spearman/);
  r = await genstudy(['report', storePath, '--out', join(dir, 'o'), '--control', 'in-domain', '--pair', 'overlap-broken', 'vocab-shift']);
  assert.equal(r.code, 2, 'an unknown --pair set is an error, not another pair drawn');
  assert.match(r.stderr, new RegExp(/--pair overlap-broken vocab-shift: vocab-shift is not an OOD test set of this analysis; /.source +
    /the OOD test sets are negation-broken, .*vocabulary-shift\n$/.source));
  assert.ok(!existsSync(join(dir, 'o', 'report.html')), 'nothing written after an error');
});
