// The inputs researchers already have, each read as it is and giving the same analysis as the
// equivalent long CSV: lm-eval 0.4 output for local checkpoints (folders named by lm-eval's own
// sanitize_model_name), real Trainer run folders, W&B- and pandas-style wide CSVs. The fixtures and
// their long CSVs come from the scripts beside them (test/analyze/fixtures/make_*.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { readScoreInput } from '../../src/analyze/read-scores.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { repoRoot, tempDir } from './helpers.ts';

const fixtures = join(repoRoot, 'test/analyze/fixtures');
const FAST = ['--format', 'json', '--calibration', '20', '--no-robustness'];

async function analyzeJson(input: string, control: string, extra: string[] = []): Promise<unknown> {
  const r = await genstudy(['analyze', input, '--control', control, ...FAST, ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

interface LongRow { run: string; step: string; test_set: string; metric: string; value: string }
function readLong(file: string): LongRow[] {
  const [header, ...lines] = readFileSync(file, 'utf8').trim().split(/\r?\n/);
  const cols = header.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])) as unknown as LongRow);
}

test('lm-eval 0.4 output for local checkpoints: "__" folders decode to the run and its checkpoint', async () => {
  const folder = join(fixtures, 'lm-eval-04');
  assert.ok(readdirSync(folder).every((d) => d.startsWith('__scratch__me__runs__')), 'the fixture is lm-eval\'s own layout');
  const reading = await readScoreInput(folder);
  assert.deepEqual([...new Set(reading.rows.map((r) => r.run))].sort(), ['/scratch/me/runs/llama-7b-mnli', '/scratch/me/runs/llama-7b-mnli-seed2']);
  assert.deepEqual([...new Set(reading.rows.map((r) => r.step))].sort((a, b) => a - b), [0, 250, 500, 750, 1000, 1250, 1500, 1750]);
  // filters kept apart, "none" dropped
  assert.deepEqual([...new Set(reading.rows.map((r) => r.metric))].sort(), ['acc', 'exact_match,flexible-extract', 'exact_match,strict-match']);
  assert.match(reading.description,
    /lm-evaluation-harness 0\.4 output, 16 file\(s\); run from the model path in the folder name, step from the checkpoint in the folder name/);

  const fromFolder = await analyzeJson(folder, 'mnli');
  const fromLong = await analyzeJson(join(fixtures, 'lm-eval-04.long.csv'), 'mnli');
  assert.deepEqual(fromFolder, fromLong);
  assert.equal((fromFolder as { runs: unknown[] }).runs.length, 2);

  const dry = await genstudy(['analyze', folder, '--control', 'mnli', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /2 run\(s\) \(\/scratch\/me\/runs\/llama-7b-mnli, \/scratch\/me\/runs\/llama-7b-mnli-seed2\); steps 0-1750 \(8 per run\)/);
  // gsm8k has no acc: said, not silently dropped
  const r = await genstudy(['analyze', folder, '--control', 'mnli', ...FAST]);
  assert.match(r.stderr,
    /1 test set\(s\) have no "acc" scores and are left out: gsm8k \(has exact_match,flexible-extract, exact_match,strict-match\)/);
});

test('Trainer run folders (final trainer_state.json or only checkpoints) give the long CSV\'s analysis', async () => {
  const folder = join(fixtures, 'trainer-runs');
  assert.ok(existsSync(join(folder, 'seed-1/trainer_state.json')) && !existsSync(join(folder, 'seed-2/trainer_state.json')));
  const reading = await readScoreInput(folder);
  assert.deepEqual([...new Set(reading.rows.map((r) => r.run))].sort(), ['seed-1', 'seed-2']);
  assert.deepEqual([...new Set(reading.rows.map((r) => r.testSet))].sort(), ['in_domain', 'ood_noisy', 'ood_shift', 'ood_short']);
  assert.deepEqual([...new Set(reading.rows.map((r) => r.metric))].sort(), ['accuracy', 'loss']);
  assert.equal(reading.rows.length, readLong(join(fixtures, 'trainer-runs.long.csv')).length);
  const fromFolder = await analyzeJson(folder, 'in_domain');
  const fromLong = await analyzeJson(join(fixtures, 'trainer-runs.long.csv'), 'in_domain');
  assert.deepEqual(fromFolder, fromLong);
  assert.equal((fromFolder as { runs: { n: number }[] }).runs[0].n, 8);
});

/** The Trainer fixture's accuracies as W&B's chart export writes them: Step, "<run> - <metric>", __MIN / __MAX. */
function wandbExport(rows: LongRow[]): string {
  const acc = rows.filter((r) => r.metric === 'accuracy');
  const columns = [...new Set(acc.map((r) => `${r.run} - eval/${r.test_set}_accuracy`))].sort();
  const steps = [...new Set(acc.map((r) => Number(r.step)))].sort((a, b) => a - b);
  const header = ['Step', ...columns.flatMap((c) => [c, `${c}__MIN`, `${c}__MAX`])];
  const lines = steps.map((s) => [s, ...columns.flatMap((c) => {
    const [run, name] = c.split(' - eval/');
    const v = acc.find((r) => r.run === run && `${r.test_set}_accuracy` === name && Number(r.step) === s)?.value ?? '';
    return [v, v, v];
  })].join(','));
  return [header.map((h) => `"${h}"`).join(','), ...lines].join('\n') + '\n';
}

test('a W&B chart export and a pandas wide CSV give the long CSV\'s analysis', async (t) => {
  const dir = tempDir(t);
  const long = readLong(join(fixtures, 'trainer-runs.long.csv'));
  writeFileSync(join(dir, 'wandb.csv'), wandbExport(long));
  const accLong = join(dir, 'long.csv');
  writeFileSync(accLong, ['run,step,test_set,metric,value',
    ...long.filter((r) => r.metric === 'accuracy').map((r) => [r.run, r.step, r.test_set, r.metric, r.value].join(','))].join('\n') + '\n');
  assert.deepEqual(await analyzeJson(join(dir, 'wandb.csv'), 'in_domain'), await analyzeJson(accLong, 'in_domain'));

  // pandas: an unnamed index column, _step, training rows with NaN / empty eval cells, one run per file
  const seed1 = long.filter((r) => r.run === 'seed-1' && r.metric === 'accuracy');
  const sets = [...new Set(seed1.map((r) => r.test_set))].sort();
  const steps = [...new Set(seed1.map((r) => Number(r.step)))].sort((a, b) => a - b);
  const lines = [',_step,train/loss,' + sets.map((s) => `eval/${s}_accuracy`).join(',')];
  let i = 0;
  for (const s of steps) {
    lines.push(`${i++},${s},0.5,${sets.map(() => 'NaN').join(',')}`);
    lines.push(`${i++},${s},,${sets.map((set) => seed1.find((r) => r.test_set === set && Number(r.step) === s)!.value).join(',')}`);
  }
  writeFileSync(join(dir, 'seed-1.csv'), lines.join('\n') + '\n');
  const seed1Long = join(dir, 'seed-1.long.csv');
  writeFileSync(seed1Long,
    ['run,step,test_set,metric,value', ...seed1.map((r) => [r.run, r.step, r.test_set, r.metric, r.value].join(','))].join('\n') + '\n');
  const r = await genstudy(['analyze', join(dir, 'seed-1.csv'), '--control', 'in_domain', ...FAST]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /columns naming no test set and metric left out: index, train\/loss/);
  assert.match(r.stderr, /32 empty or NaN cell\(s\) read as missing scores/);
  assert.deepEqual(JSON.parse(r.stdout), await analyzeJson(seed1Long, 'in_domain'));

  // names that say nothing: given with --columns
  mkdirSync(join(dir, 'plain'));
  writeFileSync(join(dir, 'plain', 'seed-1.csv'), readFileSync(join(dir, 'seed-1.csv'), 'utf8').replace(/eval\/(\w+)_accuracy/g, 'score $1'));
  const mapped = sets.map((s) => `score ${s}=${s}:accuracy`);
  const m = await genstudy(['analyze', join(dir, 'plain', 'seed-1.csv'), '--control', 'in_domain', ...FAST, '--columns', ...mapped]);
  assert.equal(m.code, 0, m.stderr);
  assert.deepEqual(JSON.parse(m.stdout), await analyzeJson(seed1Long, 'in_domain'));
});

test('genstudy report draws the report from an lm-eval folder, a Trainer folder and a wide CSV', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'wandb.csv'), wandbExport(readLong(join(fixtures, 'trainer-runs.long.csv'))));
  const inputs: [string, string][] = [[join(fixtures, 'lm-eval-04'), 'mnli'], [join(fixtures, 'trainer-runs'), 'in_domain'],
    [join(dir, 'wandb.csv'), 'in_domain']];
  for (const [k, [input, control]] of inputs.entries()) {
    const out = join(dir, `report-${k}`);
    const r = await genstudy(['report', input, '--control', control, '--out', out, '--calibration', '0', '--no-robustness']);
    assert.equal(r.code, 0, `${input}: ${r.stderr}`);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    assert.match(html, /<svg/);
    assert.match(r.stdout, /across 2 runs/i);
    const pc = readFileSync(join(out, 'partial_correlations.csv'), 'utf8').trim().split('\n');
    assert.equal(pc.length, 1 + 2 * 3, `${input}: 3 OOD sets -> 3 pairs per run`);
  }
});

test('lm-eval folders: a group read with its own subtasks gets a note; an unreadable file or step is named', async (t) => {
  const dir = tempDir(t);
  const folder = join(dir, 'evals');
  for (const step of [100, 200]) {
    const sub = join(folder, `__ckpt__run-a__checkpoint-${step}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'results_2026-01-01T00-00-00.json'), JSON.stringify({
      results: {
        mmlu: { alias: 'mmlu', 'acc,none': 0.3, 'acc_stderr,none': 0.01 },
        mmlu_anatomy: { alias: ' - anatomy', 'acc,none': 0.25, 'acc_stderr,none': 'N/A' },
        mmlu_virology: { alias: ' - virology', 'acc,none': 0.35 },
      },
      group_subtasks: { mmlu: ['mmlu_anatomy', 'mmlu_virology'], mmlu_anatomy: [], mmlu_virology: [] },
      config: { model: 'hf', model_args: `pretrained=/ckpt/run-a/checkpoint-${step}` },
    }));
  }
  const reading = await readScoreInput(folder);
  assert.deepEqual([...new Set(reading.rows.map((r) => `${r.run}@${r.step}`))].sort(), ['/ckpt/run-a@100', '/ckpt/run-a@200']);
  assert.equal(reading.rows.length, 6, 'a stderr of "N/A" is not a score');
  assert.match(reading.notes.join('\n'), /"mmlu" is lm-eval's aggregate of 2 subtasks also read \(mmlu_anatomy, mmlu_virology\)/);

  writeFileSync(join(folder, '__ckpt__run-a__checkpoint-100', 'results_2026-01-02T00-00-00.json'), '{"results": ');
  let r = await genstudy(['analyze', folder, '--control', 'mmlu']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /results_2026-01-02T00-00-00\.json:1: invalid JSON: the file ends inside field "results" \(cut short\?\)/);

  const nostep = join(dir, 'nostep', 'my-model');
  mkdirSync(nostep, { recursive: true });
  writeFileSync(join(nostep, 'results_x.json'),
    JSON.stringify({ results: { a: { 'acc,none': 0.5 } }, config: { model_args: 'pretrained=my-model' } }));
  r = await genstudy(['analyze', join(dir, 'nostep'), '--control', 'a']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /results_x\.json: cannot tell the training step: no folder named like checkpoint-N/);

  mkdirSync(join(dir, 'empty'));
  r = await genstudy(['analyze', join(dir, 'empty'), '--control', 'a']);
  assert.equal(r.code, 2);
  assert.match(r.stderr,
    /empty: no lm-evaluation-harness output \(results_\*\.json, or \*\.json with a "results" object\) and no trainer_state\.json found/);
});
