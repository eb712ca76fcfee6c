// --example-results FILE (analyze/example-results-table.ts): per-example results given beside scores
// from one's own evaluation, read as a store's answers are (error-covariance.ts), by analyze and report.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS } from '../../src/analyze/analysis.ts';
import { attachErrorCovariance } from '../../src/analyze/error-covariance.ts';
import { readExampleResultsTable } from '../../src/analyze/example-results-table.ts';
import { formatJson } from '../../src/analyze/format.ts';
import { readScoreInput } from '../../src/analyze/read-scores.ts';
import { buildRunSeries } from '../../src/analyze/run-series.ts';
import { shareCovariance } from '../../src/stats/example-covariance.ts';
import { createRandom } from '../../src/stats/random.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv, writeJsonl } from './helpers.ts';

const STEPS = Array.from({ length: 14 }, (_, i) => 50 * (i + 1));
const N = 60;

/** Scores (a long CSV) and the control's per-example results (CSV and JSONL) of three runs on one fixed in-domain set. */
function makeFiles(dir: string): { scores: string; csv: string; jsonl: string; right: Map<string, Uint8Array[]> } {
  const random = createRandom(21);
  const scores: object[] = [], examples: object[] = [];
  const right = new Map<string, Uint8Array[]>();
  for (const run of ['r1', 'r2', 'r3']) {
    let current = Uint8Array.from({ length: N }, () => (random.uniform() < 0.5 ? 1 : 0));
    const series: Uint8Array[] = [];
    STEPS.forEach((step, k) => {
      current = Uint8Array.from(current, (x) => (random.uniform() < 0.12 ? (random.uniform() < 0.5 + 0.02 * k ? 1 : 0) : x));
      series.push(current);
      scores.push({ run, step, test_set: 'id', metric: 'accuracy', value: current.reduce((t, x) => t + x, 0) / N, n: N });
      for (const set of ['a', 'b', 'c']) {
        scores.push({ run, step, test_set: set, metric: 'accuracy', value: 0.4 + 0.01 * k + 0.02 * random.normal(), n: 400 });
      }
      current.forEach((x, i) => examples.push({ run, step, test_set: 'id', example: `q${i}`, correct: x }));
    });
    right.set(run, series);
  }
  const files = { scores: join(dir, 'scores.csv'), csv: join(dir, 'examples.csv'), jsonl: join(dir, 'examples.jsonl') };
  writeCsv(files.scores, scores);
  writeCsv(files.csv, examples);
  writeJsonl(files.jsonl, examples.map((e) => ({ ...e, correct: (e as { correct: number }).correct === 1 })));
  return { ...files, right };
}

test('the table\'s results give each run\'s control the covariance of its examples, from CSV and JSON Lines alike', async (t) => {
  const f = makeFiles(tempDir(t));
  for (const file of [f.csv, f.jsonl]) {
    const series = buildRunSeries((await readScoreInput(f.scores)).scores, 'accuracy');
    assert.deepEqual(attachErrorCovariance(series, readExampleResultsTable(file), { metric: 'accuracy', testSets: ['id'] }), []);
    for (const s of series) assert.deepEqual([...s.samplingCovariance!.get('id')!], [...shareCovariance(f.right.get(s.run)!)], s.run);
  }
});

test('genstudy analyze --example-results uses them: the same analysis as the library given them', async (t) => {
  const f = makeFiles(tempDir(t));
  const args = [f.scores, '--control', 'id', '--format', 'json', '--calibration', '0', '--no-robustness'];
  const out = await genstudy(['analyze', ...args, '--example-results', f.csv]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stderr, /genstudy: note: per-example results from .*examples\.csv: the control's errors' covariance across checkpoints/);
  const json = JSON.parse(out.stdout);
  for (const run of json.runs) assert.equal(run.control_noise.error_covariance, true, run.run);
  const series = buildRunSeries((await readScoreInput(f.scores)).scores, 'accuracy');
  attachErrorCovariance(series, readExampleResultsTable(f.csv), { metric: 'accuracy', testSets: ['id'] });
  assert.deepEqual(json, JSON.parse(formatJson(analyzeRuns(series, { ...DEFAULT_OPTIONS, control: 'id', calibration: 0, robustness: false }))));
  const without = JSON.parse((await genstudy(['analyze', ...args])).stdout);
  for (const run of without.runs) assert.equal(run.control_noise.error_covariance, undefined, run.run);
});

test('genstudy report --example-results draws the analysis that uses them', async (t) => {
  const dir = tempDir(t);
  const f = makeFiles(dir);
  const flags = ['--control', 'id', '--calibration', '0', '--no-robustness', '--example-results', f.csv];
  const report = await genstudy(['report', f.scores, ...flags, '--out', join(dir, 'report')]);
  assert.equal(report.code, 0, report.stderr);
  const analysed = JSON.parse((await genstudy(['analyze', f.scores, ...flags, '--format', 'json'])).stdout) as
    { runs: { run: string; pairs: { a: string; b: string; r: number | null }[] }[] };
  const drawn = JSON.parse(readFileSync(join(dir, 'report', 'partial_correlations.json'), 'utf8')) as
    { run: string; a: string; b: string; r: number | null }[];
  const r = new Map(analysed.runs.flatMap((run) => run.pairs.map((p) => [`${run.run} ${p.a} ${p.b}`, p.r] as const)));
  assert.equal(drawn.length, r.size);
  for (const row of drawn) assert.equal(row.r === null ? null : Number(row.r), r.get(`${row.run} ${row.a} ${row.b}`));
});

test('a bad table is exit 2 naming what is wrong; an input that holds per-example results already refuses the flag', async (t) => {
  const dir = tempDir(t);
  const f = makeFiles(dir);
  const run = (file: string) =>
    genstudy(['analyze', f.scores, '--control', 'id', '--calibration', '0', '--no-robustness', '--example-results', file]);
  const cases: [string, string, RegExp][] = [
    ['no-correct.csv', 'run,step,test_set,example\nr1,50,id,q0\n', /no-correct\.csv, line 2: no column correct/],
    ['half.csv', 'run,step,test_set,example,correct\nr1,50,id,q0,0.5\n',
      /half\.csv, line 2: column correct: expected 1 \/ 0 or true \/ false, got 0\.5/],
    ['twice.csv', 'run,step,test_set,example,correct\nr1,50,id,q0,1\nr1,50,id,q0,0\n',
      /twice\.csv, line 3: a second row for run r1, step 50, id, example q0/],
    ['step.csv', 'run,step,test_set,example,correct\nr1,x,id,q0,1\n', /step\.csv, line 2: column step: expected a whole number, got x/],
    ['results.txt', 'run,step\n', /results\.txt: --example-results reads \.csv, \.tsv or \.jsonl, not "\.txt"/],
  ];
  for (const [name, text, message] of cases) {
    writeFileSync(join(dir, name), text);
    const out = await run(join(dir, name));
    assert.equal(out.code, 2, `${name}: ${out.stderr}`);
    assert.match(out.stderr, message);
  }
  const samples = join(import.meta.dirname, 'fixtures', 'lm-eval-04-samples');
  const store = await genstudy(['analyze', samples, '--control', 'mnli', '--metric', 'acc', '--example-results', f.csv]);
  assert.equal(store.code, 2);
  assert.match(store.stderr, /--example-results .*examples\.csv: .*lm-eval-04-samples holds per-example results already/);
});
