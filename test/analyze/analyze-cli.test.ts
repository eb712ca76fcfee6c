import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { simulateScores, DEFAULT_SIMULATED_SETS, expectedSign } from '../support/simulated-scores.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { ANALYSIS_JSON_VERSION } from '../../src/analyze/format.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv, writeJsonl } from './helpers.ts';

test('analyze recovers the simulated structure and prints the documented JSON', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'scores.csv');
  writeCsv(file, simulateScores({ seed: 7, runs: 3, steps: 60, noise: 0.005 }));
  // the line: the simulated cue is a smooth drift, which the default spline in a control that rises with training partly takes up
  const r = await genstudy(['analyze', file, '--control', 'in-domain', '--format', 'json', '--residualiser', 'linear']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(out), ['format_version', 'headline', 'runs', 'left_out', 'agreement', 'meta', 'robustness']);
  assert.equal(out.format_version, ANALYSIS_JSON_VERSION);
  assert.deepEqual(Object.keys(out.headline), ['runs', 'pairs', 'counts', 'unstable_left_out', 'runs_left_out', 'fragile', 'sentence']);
  assert.deepEqual(out.left_out, []);
  assert.ok(out.robustness.pairs.every((p: { holds: number; of: number; fragile: boolean }) => p.fragile === (2 * p.holds < p.of)));
  // 3 runs, 10 pairs corrected together, Hartung-Knapp on 2 df: even pairs significant in every run are not yet shown to generalise
  assert.equal(out.headline.counts.inconclusive + out.headline.counts.generalises + out.headline.counts['depends on the model'] +
    out.headline.counts['negligible everywhere'], 10);
  assert.equal(out.runs.length, 3);
  const run = out.runs[0];
  assert.deepEqual(Object.keys(run), ['run', 'n', 'control', 'distinct', 'calibration', 'control_noise', 'pairs']);
  assert.deepEqual(Object.keys(run.calibration),
    ['phi', 'nugget', 'control_noise_redrawn', 'simulations', 'alpha', 'false_positive_rate', 'effect', 'power', 'naive_false_positive_rate',
      'variance_ratio', 'variance_ratio_se', 'variance_ratio_pairs']);
  assert.equal(run.calibration.simulations, 200);
  assert.equal(out.robustness.pairs.length, 10);
  assert.equal(out.robustness.choices.length, 8);
  assert.equal(run.n, 60);
  assert.equal(run.control, 'in-domain');
  assert.equal(run.pairs.length, 10); // 5 OOD sets -> 10 pairs
  for (const p of run.pairs) {
    assert.deepEqual(Object.keys(p), ['a', 'b', 'r', 'n_eff', 'df', 'p', 'p_adjusted', 'ci95', 'representation', 'phi']);
    assert.ok(p.a < p.b, `pair ${p.a}/${p.b} not in alphabetical order`);
    // the default inference counts an effective sample size, never more than the checkpoints
    assert.ok(p.n_eff > 4 && p.n_eff <= 60, `n_eff ${p.n_eff}`);
    assert.ok(Math.abs(p.df - (p.n_eff - 2 - 1)) < 1e-12);
    assert.ok(p.p_adjusted >= p.p);
  }
  const bySet = new Map(DEFAULT_SIMULATED_SETS.map((s) => [s.id, s]));
  for (const g of out.agreement) {
    assert.deepEqual(Object.keys(g), ['a', 'b', 'positive', 'negative', 'null', 'runs']);
    assert.equal(g.runs, 3);
    const sign = expectedSign(bySet.get(g.a)!, bySet.get(g.b)!);
    // significant with the designed sign in at least 2 of 3 runs (after Holm over 10 pairs), never the other
    if (sign > 0) assert.ok(g.positive >= 2 && g.negative === 0, `${g.a}/${g.b} should be positive: ${g.positive}+ ${g.negative}-`);
    if (sign < 0) assert.ok(g.negative >= 2 && g.positive === 0, `${g.a}/${g.b} should be negative: ${g.positive}+ ${g.negative}-`);
    if (sign === 0) assert.ok(g.positive + g.negative <= 1, `${g.a}/${g.b} should rarely be significant`);
  }
});

test('CSV, JSONL and the store give the same analysis; the table names runs and the verdict', async (t) => {
  const dir = tempDir(t);
  // each score's n in every form, as the store keeps it
  const rows = simulateScores({ seed: 3, runs: 2, steps: 30 }).map((r) => ({ ...r, n: 500 }));
  writeCsv(join(dir, 's.csv'), rows);
  writeJsonl(join(dir, 's.jsonl'), rows);
  const store = ResultStore.open(join(dir, 'results.sqlite'));
  store.writeScores(rows.map((r) => ({ run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value, n: 500 })));
  store.close();
  // the readers agree on the series, so on everything drawn from them: compared without the calibration and the robustness table
  const cheap = ['--calibration', '0', '--no-robustness'];
  const outputs = [];
  for (const f of ['s.csv', 's.jsonl', 'results.sqlite']) {
    const r = await genstudy(['analyze', join(dir, f), '--control', 'in-domain', '--format', 'json', '--method', 'spearman', ...cheap]);
    assert.equal(r.code, 0, r.stderr);
    outputs.push(JSON.parse(r.stdout));
  }
  assert.deepEqual(outputs[1], outputs[0]);
  assert.deepEqual(outputs[2], outputs[0]);

  // the table and the JSON it is compared with: a small calibration (its line is the point, not its precision) and the robustness table
  const shown = ['--control', 'in-domain', '--calibration', '20'];
  const json = await genstudy(['analyze', join(dir, 's.csv'), ...shown, '--format', 'json']);
  assert.equal(json.code, 0, json.stderr);
  const table = await genstudy(['analyze', join(dir, 's.csv'), ...shown]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /run model-a: 30 checkpoints/);
  assert.match(table.stdout, /verdict/);
  assert.match(table.stdout, new RegExp(/The papers' view \(significant signs counted per run, adjusted p < 0.05\): /.source +
    /across 2 runs, \d+ of 10 pairs keep the same significant sign in every run/.source));
  // the last line is the headline, as in the JSON
  assert.equal(table.stdout.trimEnd().split('\n').at(-1), JSON.parse(json.stdout).headline.sentence);
  assert.match(table.stdout, /calibration \(20 simulated pairs, drift phi [-0-9.]+ \+ \d+% white noise at the run's steps[^)]*\): false positives/);
  assert.match(table.stdout, /holds under/);
});

test('csv output with --out writes the pairs and the agreement tables', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 's.csv'), simulateScores({ seed: 5, runs: 2, steps: 25 }));
  const r = await genstudy(
    ['analyze', join(dir, 's.csv'), '--control', 'in-domain', '--format', 'csv', '--out-file', join(dir, 'out.csv'), '--bootstrap', '50',
    '--calibration', '0', '--no-robustness']);
  assert.equal(r.code, 0, r.stderr);
  const pairs = readFileSync(join(dir, 'out.csv'), 'utf8').trim().split('\n');
  assert.equal(pairs[0],
    'run,a,b,n,r,n_eff,df,p,p_adjusted,ci95_low,ci95_high,significant,representation,reason,unstable,bootstrap_ci95_low,bootstrap_ci95_high');
  assert.equal(pairs.length, 1 + 2 * 10);
  const agreement = readFileSync(join(dir, 'out.agreement.csv'), 'utf8').trim().split('\n');
  assert.equal(agreement[0], 'a,b,positive,negative,null,runs,signs');
  assert.equal(agreement.length, 11);
  const written = ['out.csv', 'out.agreement.csv', 'out.meta.csv'].map((f) => join(dir, f));
  assert.match(r.stderr, new RegExp(`wrote ${written.map((f) => f.replace(/[.\\/]/g, '\\$&')).join(', ')}\n`), 'the "wrote" line names every file');
  assert.match(r.stderr, /\n?genstudy: wrote [^\n]*\n?$/);
});

test('csv on standard output is one table carrying the verdicts first, then the sign counts and the per-run pairs', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 's.csv'), simulateScores({ seed: 5, runs: 3, steps: 25 }));
  const r = await genstudy(['analyze', join(dir, 's.csv'), '--control', 'in-domain', '--format', 'csv', '--calibration', '0', '--no-robustness']);
  assert.equal(r.code, 0, r.stderr);
  const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
  const count = (t: string) => rows.filter((x) => x.table === t).length;
  assert.deepEqual([count('verdicts'), count('agreement'), count('pairs')], [10, 10, 30]);
  assert.equal(rows[0].table, 'verdicts', 'the answer comes first');
  for (const v of rows.filter((x) => x.table === 'verdicts'))
    assert.match(v.verdict, /^(generalises|depends on the model|negligible everywhere|inconclusive)$/);
  for (const p of rows.filter((x) => x.table === 'pairs')) assert.match(p.run, /^model-[abc]$/);
  assert.equal(rows.filter((x) => x.table === 'verdicts' && x.run !== '').length, 0, "a verdict row has no run: that column is the pairs'");
});

test('lm-evaluation-harness result folders are read with the step from the path', async (t) => {
  const dir = tempDir(t);
  const rows = simulateScores({ seed: 11, runs: 1, steps: 12 });
  const byStep = new Map<number, Record<string, Record<string, unknown>>>();
  for (const r of rows) {
    const results = byStep.get(r.step) ?? {};
    results[r.test_set] = { alias: r.test_set, 'acc,none': r.value, 'acc_stderr,none': 0.01 };
    byStep.set(r.step, results);
  }
  for (const [step, results] of byStep) {
    const folder = join(dir, 'opt-1.3b-mnli', `checkpoint-${step}`, 'opt-1.3b');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'results_2026-11-30T00-00-00.json'), JSON.stringify({ results, config: { model_args: 'pretrained=x' } }));
  }
  // about reading the folders: no calibration or robustness table
  const cheap = ['--calibration', '0', '--no-robustness'];
  const r = await genstudy(['analyze', dir, '--control', 'in-domain', '--format', 'json', ...cheap]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.runs[0].run, 'opt-1.3b-mnli/opt-1.3b');
  assert.equal(out.runs[0].n, 12);

  const csv = join(dir, 'same.csv');
  writeCsv(csv, rows.map((x) => ({ ...x, run: 'opt-1.3b-mnli/opt-1.3b', metric: 'acc', stderr: 0.01 })));
  const direct = await genstudy(['analyze', csv, '--control', 'in-domain', '--format', 'json', ...cheap]);
  assert.deepEqual(JSON.parse(direct.stdout).runs[0].pairs, out.runs[0].pairs);
});

test('a constant series is reported as undefined with a reason, never as NaN or 0', async (t) => {
  const dir = tempDir(t);
  const rows = simulateScores({ seed: 2, runs: 1, steps: 20 }).map((r) => (r.test_set === 'vocabulary-shift' ? { ...r, value: 0.5 } : r));
  writeCsv(join(dir, 's.csv'), rows);
  const r = await genstudy(['analyze', join(dir, 's.csv'), '--control', 'in-domain', '--format', 'json', '--calibration', '0', '--no-robustness']);
  assert.equal(r.code, 0, r.stderr);
  const pairs = JSON.parse(r.stdout).runs[0].pairs.filter((p: { a: string; b: string }) => p.a === 'vocabulary-shift' || p.b === 'vocabulary-shift');
  assert.equal(pairs.length, 4);
  for (const p of pairs) {
    assert.equal(p.r, null);
    assert.equal(p.p, null);
    assert.equal(p.p_adjusted, null);
    assert.match(p.reason, /constant/);
  }
});

test('bad input gets one clear line naming the file, line and column', async (t) => {
  const dir = tempDir(t);
  const cases: [string, string, RegExp][] = [
    ['missing.csv', 'run,step,test_set,metric\na,1,x,accuracy\n', /missing\.csv:2: column "value" is missing/],
    ['nan.csv', 'run,step,test_set,metric,value\na,1,x,accuracy,0.5\na,2,x,accuracy,high\n',
      /nan\.csv:3: column "value": expected a finite number, got "high"/],
    ['step.csv', 'run,step,test_set,metric,value\na,1.5,x,accuracy,0.5\n', /step\.csv:2: column "step": expected a whole number/],
    ['dup.csv', 'run,step,test_set,metric,value\na,1,x,accuracy,0.5\na,1,x,accuracy,0.6\n',
      /dup\.csv:3: duplicate score for run "a", step 1, test set "x".*first given at .*dup\.csv:2/],
  ];
  for (const [name, text, expected] of cases) {
    writeFileSync(join(dir, name), text);
    const r = await genstudy(['analyze', join(dir, name), '--control', 'x']);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, expected);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('too few checkpoints, a missing control and a missing metric are clear errors', async (t) => {
  const dir = tempDir(t);
  writeCsv(join(dir, 'short.csv'), simulateScores({ seed: 1, runs: 1, steps: 4 }));
  let r = await genstudy(['analyze', join(dir, 'short.csv'), '--control', 'in-domain']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /run "model-a": 4 checkpoints .* needs at least 5/);
  r = await genstudy(['analyze', join(dir, 'short.csv'), '--control', 'mnli']);
  assert.match(r.stderr, /no scores for the control test set "mnli" \(it has: in-domain, /);
  r = await genstudy(['analyze', join(dir, 'short.csv'), '--control', 'in-domain', '--metric', 'f1']);
  assert.match(r.stderr, /no scores for metric "f1" \(it has: accuracy\)/);
  r = await genstudy(['analyze', join(dir, 'nope.csv'), '--control', 'in-domain']);
  assert.match(r.stderr, /nope\.csv: no such file or folder/);
});
