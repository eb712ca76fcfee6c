import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { ResultStore } from '../../src/store/result-store.ts';
import { readStoreScores } from '../../src/analyze/read-scores.ts';
import { buildRunSeries } from '../../src/analyze/run-series.ts';
import { analyzeRuns, DEFAULT_OPTIONS, signVerdict } from '../../src/analyze/analysis.ts';
import { formatPairsCsv } from '../../src/analyze/format.ts';
import { UserError } from '../../src/errors.ts';
import { renderReport } from '../../src/report/index.ts';
import { tableToCsv, tableToJson, type Table } from '../../src/report/table.ts';
import { esc } from '../../src/report/html.ts';
import { simulateScores } from '../support/simulated-scores.ts';
import { STUDY_A, STUDY_B_TASKS, studyBScore, tempDir, writeStudyA, writeStudyB } from './helpers.ts';

type Row = Record<string, unknown>;

/** For the tests whose tables and pages neither read: no calibration and no robustness table, a small fraction of a report's CPU. */
const NEITHER = { calibration: 0, robustness: false };

function makeStore(dir: string, fill: (s: ResultStore) => void): string {
  const path = join(dir, 'results.sqlite');
  const store = ResultStore.open(path);
  fill(store);
  store.close();
  return path;
}

test('CSV quotes commas, quotes and line breaks, leaves missing values empty, and matches the JSON rows', () => {
  const table: Table = {
    name: 't', title: 'T', description: '', columns: ['a', 'b', 'c'],
    rows: [['x,y', 'say "hi"', null], ['line\nbreak', 0.1 + 0.2, true], ['plain', -3, false]],
  };
  const csv = tableToCsv(table);
  assert.equal(csv, 'a,b,c\n"x,y","say ""hi""",\n"line\nbreak",0.30000000000000004,true\nplain,-3,false\n');
  const json = tableToJson(table);
  assert.deepEqual(json[0], { a: 'x,y', b: 'say "hi"', c: null });
  const back = parse(csv, { columns: true }) as Row[];
  assert.equal(back.length, 3);
  assert.equal(back[1].a, 'line\nbreak');
  assert.equal(Number(back[1].b), json[1].b, 'numbers keep full precision in the CSV');
});

test('study A tables equal the analysis `genstudy analyze` runs, with the same options', async (t) => {
  const dir = tempDir(t);
  const storePath = makeStore(dir, (s) => writeStudyA(s));
  // the line: the simulated cue is a smooth drift, which a spline in a control that rises with training takes up
  // a 20-simulation calibration: the tables compared are the pairs, the sign counts and the headline, which it does not shape
  const analysis = { ...DEFAULT_OPTIONS, method: 'spearman' as const, residualiser: 'linear' as const, correction: 'bh' as const, alpha: 0.01,
    calibration: 20 };
  const report = await renderReport({ storePath, analysis });
  const expected = analyzeRuns(buildRunSeries(readStoreScores(storePath, ''), 'accuracy'), { ...analysis, control: STUDY_A.control });

  const pairs = report.tables.partial_correlations.json as Row[];
  assert.equal(pairs.length, STUDY_A.runs * 10);
  const csvRows = parse(report.tables.partial_correlations.csv, { columns: true }) as Row[];
  assert.equal(csvRows.length, pairs.length);
  let i = 0;
  for (const run of expected.runs) {
    for (const p of run.pairs) {
      const row = pairs[i];
      assert.deepEqual([row.run, row.a, row.b, row.n, row.df, row.n_eff, row.representation],
        [run.run, p.a, p.b, run.n, p.df, p.n_eff, p.representation]);
      assert.equal(row.r, p.r);
      assert.equal(row.p_adjusted, p.p_adjusted);
      assert.equal(row.ci95_low, p.ci95![0]);
      assert.equal(row.significant, p.p_adjusted! < 0.01);
      assert.equal(Number(csvRows[i].r), p.r);
      i++;
    }
  }
  // One column spec: the report's CSV has exactly the columns `genstudy analyze --format csv` writes.
  assert.equal(report.tables.partial_correlations.csv.split('\n')[0], formatPairsCsv(expected, 0.01).split('\n')[0]);
  assert.match(report.tables.partial_correlations.csv.split('\n')[0], /,n_eff,.*,representation,/);
  const agreement = report.tables.agreement.json as Row[];
  assert.deepEqual(agreement, expected.agreement.map((g) => ({
    a: g.a, b: g.b, positive: g.positive, negative: g.negative, none: g.null, runs: g.runs, signs: signVerdict(g),
  })));
  // The simulated design: cue-sharing sets correlate in every run (the papers' view counts it);
  // the headline is the analysis's own, as analyze prints it.
  assert.ok(agreement.some((g) => g.signs === 'positive in all'));
  assert.equal(report.headline, expected.headline.sentence);
  assert.match(report.headline, /^Across 3 runs, of 10 pairs of OOD test sets /);
  assert.equal(report.studyBHeadline, undefined);
  assert.equal(report.tables.study_b, undefined, 'no study-B table without study-B runs');

  const log = report.tables.training_log.json as Row[];
  assert.equal(log.length, STUDY_A.runs * STUDY_A.steps);
  const runs = report.tables.runs.json as Row[];
  assert.deepEqual(runs.map((r) => r.seed), [40, 41, 42]);
  assert.equal(runs[0].checkpoints_hashed, STUDY_A.steps);
  assert.deepEqual(JSON.parse(runs[0].versions as string), { genstudy: '0.1.0', 'tfjs-core': '4.22.0' });
  const sets = report.tables.test_sets.json as Row[];
  assert.equal(sets.find((s) => s.test_set === 'in-domain')!.content_hash, 'sha256:in-domain-content');
});

test('the control comes from --control, else the runs\' control_test_set attribute; a wrong one is a clear error', async (t) => {
  const dir = tempDir(t);
  const storePath = makeStore(dir, (s) => writeStudyA(s, { runs: 2, steps: 12 }));
  const recorded = await renderReport({ storePath, analysis: NEITHER });
  assert.ok(recorded.tables.partial_correlations, 'control read from the run attribute');
  await assert.rejects(renderReport({ storePath, control: 'no-such-set', analysis: NEITHER }), (err: Error) =>
    err instanceof UserError && /no scores for the control test set "no-such-set" \(it has: in-domain, negation-broken/.test(err.message));
  await assert.rejects(renderReport({ storePath, control: 'in-domain', metric: 'f1', analysis: NEITHER }),
    /has no scores for metric "f1" \(it has: accuracy\)/);

  const store = ResultStore.open(storePath);
  store.upsertRun({ id: 'model-b', attributes: { control_test_set: 'vocabulary-shift' } });
  store.close();
  await assert.rejects(renderReport({ storePath, analysis: NEITHER }),
    /runs record different "control_test_set" values \(in-domain, vocabulary-shift\); choose one with --control/);
  const chosen = await renderReport({ storePath, control: 'vocabulary-shift', analysis: NEITHER });
  assert.ok((chosen.tables.partial_correlations.json as Row[]).every((p) => p.a !== 'vocabulary-shift' && p.b !== 'vocabulary-shift'));
});

test('without a control there is no study-A analysis: a study-B store gets no empty study-A section, other runs are told how to ' +
  'ask for one', async (t) => {
  const dir = tempDir(t);
  const storePath = makeStore(dir, (s) => writeStudyB(s));
  const report = await renderReport({ storePath });
  assert.equal(report.tables.partial_correlations, undefined);
  assert.match(report.headline, /No control \(in-domain\) test set: pass --control SET/, 'the library still says why there is no study-A answer');
  assert.ok(report.html.includes('id="study-b"'));
  assert.ok(!report.html.includes('id="study-a"') && !report.html.includes('href="#study-a"'), 'no study-A section or link in a study-B report');
  assert.ok(!report.html.includes('pass --control SET'));

  const store = ResultStore.open(storePath);
  store.upsertRun({ id: 'plain-run', model: 'm' });
  store.writeScores([0, 1, 2].map((step) => ({ run: 'plain-run', step, testSet: 'amazon', metric: 'accuracy', value: 0.5 + step / 10, n: 250 })));
  store.close();
  const mixed = await renderReport({ storePath });
  assert.ok(mixed.html.includes('id="study-a"') && mixed.html.includes('pass --control SET'),
    'a run outside study B: the page says how to analyse it');
});

test('runs read from a score table: checkpoints are the steps scored, model and seed fill their columns, other columns are ' +
  'columns too', async (t) => {
  const dir = tempDir(t);
  const rows = simulateScores({ seed: 3, runs: 2, steps: 12 });
  const runs = [...new Set(rows.map((r) => r.run))];
  const seedOf = (run: string) => 7 + runs.indexOf(run);
  const csvPath = join(dir, 'scores.csv');
  writeFileSync(csvPath, 'run,step,test_set,metric,value,model,seed,family\n' +
    rows.map((r) => `${r.run},${r.step},${r.test_set},${r.metric},${r.value},${r.model},${seedOf(r.run)},pythia`).join('\n') + '\n');
  const report = await renderReport({ storePath: csvPath, control: 'in-domain', analysis: { testSets: ['overlap-broken', 'negation-broken'] } });
  const table = report.tables.runs.json as Row[];
  assert.deepEqual(table.map((r) => r.run), runs);
  for (const row of table) {
    const steps = new Set(rows.filter((r) => r.run === row.run).map((r) => r.step));
    assert.equal(row.checkpoints, steps.size, `${row.run}: the steps it has scores at`);
    assert.equal(row.checkpoints_hashed, 0);
    assert.equal(row.model, rows.find((r) => r.run === row.run)!.model, 'the CSV\'s model column');
    assert.equal(row.seed, seedOf(row.run as string), 'the CSV\'s seed column, a number');
    assert.equal(row.family, 'pythia', 'another column of the input, a column of its own');
    assert.equal(JSON.parse(row.attributes as string).family, 'pythia');
  }
  const csvHeader = report.tables.runs.csv.split('\n')[0].split(',');
  assert.deepEqual(csvHeader.filter((c) => c === 'model' || c === 'seed'), ['model', 'seed'], 'model and seed once each');
  const last = Math.max(...rows.map((r) => r.step));
  assert.ok(report.html.includes(`<dt>checkpoints</dt><dd>12 (steps 0 to ${last})</dd>`), 'the run summary counts them too');
  assert.ok(report.html.includes(`<dt>seed</dt><dd>${seedOf(runs[0])}</dd>`));
  // the curves draw the analysed sets only, and say what they leave out
  const curves = [...report.html.matchAll(/<figure class="chart" data-chart="curves"[^>]*>(.*?)<\/figure>/gs)].map((m) => m[1]);
  assert.equal(curves.length, runs.length);
  for (const c of curves) {
    assert.match(c, /accuracy of 3 test sets against training step/);
    assert.doesNotMatch(c.slice(0, c.indexOf('<figcaption>')), /vocabulary-shift|overlap-consistent|negation-consistent/,
      'no set outside --test-set drawn');
    assert.match(c, new RegExp(/not drawn: 3 test sets not among the analysed sets \(the control and --test-set\) /.source +
      /\(negation-consistent, overlap-consistent, vocabulary-shift\)/.source));
  }
});

test('study B: last checkpoint, mean over seeds, roles from test-set tags, deltas against the same model\'s base', async (t) => {
  const dir = tempDir(t);
  const storePath = makeStore(dir, (s) => writeStudyB(s, { seeds: [0, 1, 2] }));
  const report = await renderReport({ storePath });
  const cells = report.tables.study_b.json as Row[];
  const sets = STUDY_B_TASKS.flatMap((t) => t.sets.map((s) => ({ ...s, task: t.task, metric: t.metric })));
  // 2 methods x 3 training tasks x 7 test sets, plus the base model's 7.
  assert.equal(cells.length, 2 * 3 * sets.length + sets.length);
  for (const method of ['ft', 'fticl'] as const) {
    for (const task of STUDY_B_TASKS) {
      for (const set of sets) {
        const cell = cells.find((c) => c.method === method && c.training_task === task.task && c.test_set === set.id)!;
        const seeds = [0, 1, 2].map((seed) => studyBScore(method, task.task, set, seed));
        const mean = seeds.reduce((a, b) => a + b, 0) / seeds.length;
        const base = studyBScore('base', null, set, 0);
        const role = set.task !== task.task ? 'cross-task' : set.domain;
        assert.equal(cell.role, role, `${method} ${task.task} ${set.id}`);
        assert.equal(cell.metric, set.metric);
        assert.ok(Math.abs((cell.score as number) - mean) < 1e-12, `${method} ${task.task} ${set.id}: score ${cell.score} != ${mean}`);
        assert.ok(Math.abs((cell.base_score as number) - base) < 1e-12);
        assert.ok(Math.abs((cell.delta as number) - (mean - base)) < 1e-12);
        assert.equal(cell.train_size, '2000');
        assert.equal((cell.runs as string).split(' ').length, 3);
      }
    }
  }
  const byRole = report.tables.study_b_by_role.json as Row[];
  const sentimentFt = byRole.filter((r) => r.method === 'ft' && r.training_task === 'sentiment');
  assert.deepEqual(sentimentFt.map((r) => [r.role, r.test_sets]), [['in-domain', 1], ['cross-domain', 2], ['cross-task', 4]]);
  assert.ok(Math.abs((sentimentFt[0].mean_delta as number) - (0.3 + 0.002)) < 1e-12);
  assert.ok(Math.abs((sentimentFt[2].mean_delta as number) - (-0.05 + 0.002)) < 1e-12);
  assert.match(report.studyBHeadline!,
    /^FT vs base, mean difference by role \(cells\): in-domain \+0\.302 \(3\), cross-domain \+0\.102 \(4\), cross-task −0\.048 \(14\)/);
});

test('study B: per-run role overrides, base runs matched by shots, and missing bases explained', async (t) => {
  const dir = tempDir(t);
  const storePath = makeStore(dir, (s) => {
    s.upsertTestSet({ id: 'mnli', spec: { task: 'nli', domain: 'in-domain' } });
    s.upsertTestSet({ id: 'snli', spec: { task: 'nli', domain: 'cross-domain' } });
    s.upsertRun({ id: 'base-k0', model: 'm', method: 'Base', attributes: { shots: 0 } });
    s.upsertRun({ id: 'base-k3', model: 'm', method: 'base', attributes: { shots: 3 } });
    // Trained on SNLI: its own roles say SNLI is in-domain for it.
    s.upsertRun(
      { id: 'ft-snli', model: 'm', method: 'ft', attributes: { training_task: 'nli', test_set_roles: { snli: 'in-domain', mnli: 'cross-domain' } } });
    s.upsertRun({ id: 'fticl-k3', model: 'm', method: 'fticl', attributes: { training_task: 'nli', shots: 3 } });
    s.upsertRun({ id: 'fticl-k5', model: 'm', method: 'fticl', attributes: { training_task: 'nli', shots: 5 } });
    s.upsertRun({ id: 'other-model-ft', model: 'n', method: 'ft', attributes: { training_task: 'nli' } });
    s.upsertRun({ id: 'ft-no-task', model: 'm', method: 'ft' });
    s.upsertRun({ id: 'lora-run', model: 'm', method: 'lora' });
    const score = (run: string, testSet: string, value: number) => ({ run, step: 1, testSet, metric: 'accuracy', value, n: 10 });
    s.writeScores([
      score('base-k0', 'mnli', 0.4), score('base-k0', 'snli', 0.3), score('base-k3', 'mnli', 0.5), score('base-k3', 'snli', 0.45),
      score('ft-snli', 'mnli', 0.6), score('ft-snli', 'snli', 0.9), score('fticl-k3', 'mnli', 0.8), score('fticl-k5', 'mnli', 0.85),
      score('other-model-ft', 'mnli', 0.7), score('ft-no-task', 'mnli', 0.1), score('lora-run', 'mnli', 0.2),
    ]);
  });
  const report = await renderReport({ storePath });
  const cells = report.tables.study_b.json as Row[];
  const find = (run: string, testSet: string) => cells.find((c) => (c.runs as string) === run && c.test_set === testSet)!;
  assert.equal(find('ft-snli', 'snli').role, 'in-domain');
  assert.equal(find('ft-snli', 'mnli').role, 'cross-domain');
  assert.ok(Math.abs((find('ft-snli', 'snli').delta as number) - (0.9 - 0.3)) < 1e-12, 'shots 0 (missing) matches the k=0 base');
  assert.equal(find('fticl-k3', 'mnli').role, 'in-domain', 'from the test set\'s tags');
  assert.ok(Math.abs((find('fticl-k3', 'mnli').delta as number) - (0.8 - 0.5)) < 1e-12, 'k=3 matches the k=3 base');
  assert.equal(find('fticl-k5', 'mnli').delta, null);
  assert.match(find('fticl-k5', 'mnli').note as string, /base runs of model "m" use k = 0, 3, none k = 5/);
  assert.equal(find('other-model-ft', 'mnli').delta, null);
  assert.match(find('other-model-ft', 'mnli').note as string, /no base run of model "n" scored on "mnli"/);
  assert.ok(!cells.some((c) => c.runs === 'lora-run' || c.runs === 'ft-no-task'));
  assert.ok(report.html.includes('ft-no-task: method &quot;ft&quot; without the run attribute &quot;training_task&quot;'));
});

test('a pair with no correlation (a constant series) is reported with its reason, never as a number', async (t) => {
  const dir = tempDir(t);
  const storePath = makeStore(dir, (s) => {
    const rows = [];
    for (let step = 0; step < 10; step++) {
      const id = 0.5 + step / 40;
      rows.push({ run: 'r', step, testSet: 'id', metric: 'accuracy', value: id, n: 100 });
      rows.push({ run: 'r', step, testSet: 'a', metric: 'accuracy', value: 0.4 + Math.sin(step * 1.7) / 10, n: 100 });
      rows.push({ run: 'r', step, testSet: 'b', metric: 'accuracy', value: 0.3 + Math.cos(step * 2.3) / 10, n: 100 });
      rows.push({ run: 'r', step, testSet: 'flat', metric: 'accuracy', value: 0.5, n: 100 });
    }
    s.writeScores(rows);
  });
  const report = await renderReport({ storePath, control: 'id', analysis: NEITHER });
  const pairs = report.tables.partial_correlations.json as Row[];
  assert.equal(pairs.length, 3);
  const flat = pairs.filter((p) => p.a === 'flat' || p.b === 'flat');
  assert.equal(flat.length, 2);
  for (const p of flat) {
    assert.equal(p.r, null);
    assert.equal(p.significant, false);
    assert.equal(typeof p.reason, 'string');
  }
  assert.match(report.tables.partial_correlations.csv, /\nr,a,flat,10,,/);
  assert.ok(report.html.includes('>n/a<'), 'the heatmap cell says n/a');
  assert.ok(report.html.includes('No r for 2 pairs'), 'the page says which pairs have no r');
  for (const p of flat) assert.ok(report.html.includes(esc(`${p.a} – ${p.b}: ${p.reason}`)), `the page gives the reason for ${p.a} – ${p.b}`);
  assert.ok(!/NaN/.test(report.html));
});
