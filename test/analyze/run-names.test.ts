// Run names as a reader makes them can be long (lm-eval 0.4 records the model's absolute path) and
// cannot be changed at the source: --strip-prefix, --run-name old=new and --run-names file.csv rename
// them for every reader, analyze and report alike; a renamed run keeps its name as read in its
// attribute source_run, and a mapping that would merge two runs is an error naming both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { readScoreInput } from '../../src/analyze/read-scores.ts';
import { simulateScores } from '../support/simulated-scores.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { repoRoot, tempDir, writeCsv } from './helpers.ts';
import { studyAStore } from '../report/helpers.ts';

const lmEval04 = join(repoRoot, 'test/analyze/fixtures/lm-eval-04');
const LONG = ['/scratch/me/runs/llama-7b-mnli', '/scratch/me/runs/llama-7b-mnli-seed2'];
const FAST = ['--format', 'json', '--calibration', '0', '--no-robustness'];

test('--strip-prefix shortens lm-eval 0.4\'s absolute run names; without it a note says which prefix would', async () => {
  const plain = await genstudy(['analyze', lmEval04, '--control', 'mnli', '--dry-run']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout,
    /^note: run names are absolute paths \(as lm-eval records the model\): --strip-prefix \/scratch\/me\/runs\/ would shorten them/m);

  const r = await genstudy(['analyze', lmEval04, '--control', 'mnli', '--strip-prefix', '/scratch/me/runs/', ...FAST]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).runs.map((x: { run: string }) => x.run), ['llama-7b-mnli', 'llama-7b-mnli-seed2']);
  assert.match(r.stderr, /2 run\(s\) \(llama-7b-mnli, llama-7b-mnli-seed2\)/);
  assert.match(r.stderr, /note: 2 run\(s\) renamed \(--strip-prefix: 2\); each keeps the name it was read with in attribute source_run/);
  assert.doesNotMatch(r.stderr, /would shorten them/, 'no hint once renamed');

  const reading = await readScoreInput(lmEval04, { runNames: { stripPrefix: '/scratch/me/runs/' } });
  const first = reading.rows.find((x) => x.run === 'llama-7b-mnli-seed2')!;
  assert.equal(first.attributes.source_run, LONG[1]);
});

test('--run-name old=new (repeated) and a --run-names CSV name runs; a given name wins over --strip-prefix', async (t) => {
  const dir = tempDir(t);
  const names = join(dir, 'names.csv');
  writeFileSync(names, `old,new\n${LONG[1]},seed 2\n`);
  const r = await genstudy(['analyze', lmEval04, '--control', 'mnli', '--run-name', `${LONG[0]}=seed 1`, '--run-names', names,
    '--strip-prefix', '/scratch/', '--dry-run']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /2 run\(s\) \(seed 1, seed 2\)/);
  assert.match(r.stdout, /note: 2 run\(s\) renamed \(--run-name: 2\)/);
  // every run it starts is named: said, not silently ignored
  assert.match(r.stdout, /note: --strip-prefix \/scratch\/: every run that starts with it is named by --run-name, so it renamed none/);

  const reading = await readScoreInput(lmEval04, { runNames: { names: { [LONG[0]]: 'a', [LONG[1]]: 'b' } } });
  assert.deepEqual([...new Set(reading.rows.map((x) => `${x.run}<-${x.attributes.source_run}`))].sort(), [`a<-${LONG[0]}`, `b<-${LONG[1]}`]);
});

test('a mapping that merges two runs is exit 2, one line naming both; so is a name the input lacks', async (t) => {
  const dir = tempDir(t);
  const merged = await genstudy(['analyze', lmEval04, '--control', 'mnli', '--run-name', `${LONG[0]}=x`, '--run-name', `${LONG[1]}=x`]);
  assert.equal(merged.code, 2, merged.stderr);
  assert.equal(merged.stderr.trim().split('\n').length, 1, merged.stderr);
  assert.match(merged.stderr,
    /--run-name: runs "\/scratch\/me\/runs\/llama-7b-mnli" and "\/scratch\/me\/runs\/llama-7b-mnli-seed2" would both be named "x"/);

  // stripping can merge too: "exp/seed-1" stripped of "exp/" meets the run "seed-1"
  const csv = join(dir, 's.csv');
  writeCsv(csv, simulateScores({ seed: 3, runs: 2, steps: 8 }).map((x) => ({ ...x, run: x.run === 'model-a' ? 'exp/seed-1' : 'seed-1' })));
  const stripped = await genstudy(['analyze', csv, '--control', 'in-domain', '--strip-prefix', 'exp/']);
  assert.equal(stripped.code, 2, stripped.stderr);
  assert.match(stripped.stderr, /^genstudy: --strip-prefix: runs "exp\/seed-1" and "seed-1" would both be named "seed-1"/);

  const unknown = await genstudy(['analyze', lmEval04, '--control', 'mnli', '--run-name', '/scratch/me/runs/llama-7b-mnlii=x']);
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr,
    /--run-name \/scratch\/me\/runs\/llama-7b-mnlii: the input has no run of that name \(did you mean "\/scratch\/me\/runs\/llama-7b-mnli"\?/);

  const nowhere = await genstudy(['analyze', lmEval04, '--control', 'mnli', '--strip-prefix', '/data/']);
  assert.equal(nowhere.code, 2, nowhere.stderr);
  assert.match(nowhere.stderr, /--strip-prefix \/data\/: no run name starts with it/);

  const bad = await genstudy(['analyze', lmEval04, '--control', 'mnli', '--run-name', 'no-equals-sign']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--run-name no-equals-sign: expected old=new/);
});

test('runs a prefix misses are named; the report renames a table\'s runs as analyze does', async (t) => {
  const dir = tempDir(t);
  const csv = join(dir, 's.csv');
  writeCsv(csv, simulateScores({ seed: 4, runs: 3, steps: 14 }).map((x) => ({ ...x, run: x.run === 'model-c' ? 'other-c' : `sweep/${x.run}` })));
  const r = await genstudy(['analyze', csv, '--control', 'in-domain', '--strip-prefix', 'sweep/', ...FAST]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).runs.map((x: { run: string }) => x.run), ['model-a', 'model-b', 'other-c']);
  assert.match(r.stderr, /note: --strip-prefix sweep\/: 1 run\(s\) do not start with it, names kept: other-c/);

  const out = join(dir, 'report');
  const report = await genstudy(['report', csv, '--control', 'in-domain', '--out', out, '--strip-prefix', 'sweep/', '--run-name', 'other-c=c',
    '--calibration', '0', '--no-robustness']);
  assert.equal(report.code, 0, report.stderr);
  assert.deepEqual(readJson(join(out, 'runs.json')).map((x) => x.run), ['c', 'model-a', 'model-b']);
  assert.deepEqual([...new Set(readJson(join(out, 'partial_correlations.json')).map((x) => x.run))], ['c', 'model-a', 'model-b']);
});

test('a store\'s runs are renamed in the report: its runs, scores and training log, each run keeping source_run', async (t) => {
  const storePath = studyAStore(t, { runs: 2, steps: 12 });
  const out = join(dirname(storePath), 'report');
  const r = await genstudy(['report', storePath, '--out', out, '--run-name', 'model-b=second', '--calibration', '0', '--no-robustness']);
  assert.equal(r.code, 0, r.stderr);
  const runs = readJson(join(out, 'runs.json'));
  assert.deepEqual(runs.map((x) => x.run), ['model-a', 'second']);
  assert.equal(JSON.parse(String(runs[1].attributes)).source_run, 'model-b');
  for (const table of ['scores', 'training_log']) {
    assert.deepEqual([...new Set(readJson(join(out, `${table}.json`)).map((x) => x.run))].sort(), ['model-a', 'second'], table);
  }
});

function readJson(file: string): Record<string, unknown>[] {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];
}
