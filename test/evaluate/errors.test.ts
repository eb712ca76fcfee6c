import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  cellOutcome, discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets, type GridOptions,
} from '../../src/evaluate/index.ts';
import { UserError } from '../../src/errors.ts';
import { builtinLoader } from '../../src/engine/index.ts';
import type { LanguageModel } from '../../src/types.ts';
import { RougeScorer } from '../../src/metrics/index.ts';
import { SUITE_DEFAULTS } from '../../src/synth/index.ts';
import type { GenerateTaskSpec } from '../../src/tasks/index.ts';
import { countingLoader, dumpStore, SUITE_ARG, tempDir, tinyRun } from './helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

const SIZE = 8;
const runDir = tinyRun([0, 100]);
const { checkpoints } = discoverCheckpoints(runDir);
const testSets = await resolveTestSets([SUITE_ARG], { synthSeed: 4, synthSize: SIZE });

/** A store holding one good evaluation, and its dump. */
async function filledStore(): Promise<{ storePath: string; before: Record<string, unknown[]> }> {
  const storePath = path.join(tempDir(), 'results.sqlite');
  await evaluateGrid({ storePath, run: 'good', checkpoints, testSets, variants: promptVariants() });
  return { storePath, before: dumpStore(storePath) };
}

function specFile(rows: Record<string, string>[], name = 'custom-nli'): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'data.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(file, `name: ${name}\npath: data.jsonl\nid: id\nlabel: label\nfields:\n  premise: premise\n  hypothesis: hypothesis\n`);
  return file;
}

const rows = testSets[0].examples.map((e) => ({ id: e.id, premise: e.fields.premise, hypothesis: e.fields.hypothesis, label: e.label! }));

test('an unknown label is a clear error naming the test set, the example and the label; nothing stored changes', async () => {
  const { storePath, before } = await filledStore();
  const bad = rows.map((r, i) => (i === 3 ? { ...r, label: 'Maybe' } : r));
  const sets = await resolveTestSets([specFile(bad)]);
  const { loader, counts } = countingLoader();
  const opts: GridOptions = { storePath, run: 'good', checkpoints, testSets: [...testSets, ...sets], variants: promptVariants(),
    task: 'synthetic', loader };
  await assert.rejects(evaluateGrid(opts), (e: Error) => {
    assert.ok(e instanceof UserError);
    assert.match(e.message, new RegExp(`^test set "custom-nli" \\(.*data\\.jsonl\\): task "synthetic": label "Maybe" \\(example "${rows[3].id}"\\) ` +
      'is not in the verbalizer; expected one of "Yes", "No"$'));
    return true;
  });
  assert.equal(counts.loads, 0);
  assert.deepEqual(dumpStore(storePath), before);
});

test('a missing field, too many shots, and a bad positive label fail before any work; nothing stored changes', async () => {
  const { storePath, before } = await filledStore();
  const noHypothesis = rows.map((r, i) => (i === 2 ? { id: r.id, premise: r.premise, label: r.label } : r));
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'data.jsonl'), noHypothesis.map((r) => JSON.stringify(r)).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'holes.yaml'), 'name: holes\npath: data.jsonl\nid: id\nlabel: label\n');
  const holes = await resolveTestSets([path.join(dir, 'holes.yaml')]);
  const base = { storePath, run: 'good', checkpoints, variants: promptVariants(), task: 'synthetic' };
  await assert.rejects(evaluateGrid({ ...base, testSets: holes }),
    /test set "holes" \(.*\): template "synthetic": example "\S+" has no field "hypothesis" \(it has: premise\)/);
  const tooMany = SUITE_DEFAULTS.trainSize + 1;
  await assert.rejects(evaluateGrid({ ...base, testSets: testSets.slice(0, 1), variants: promptVariants(undefined, [tooMany]) }),
    new RegExp(`test set "in-domain" \\(.*, prompt variant "${tooMany}-shot"\\): task "synthetic", .*training set: ` +
      `k = ${tooMany} but the demonstration pool has only ${SUITE_DEFAULTS.trainSize} examples`));
  await assert.rejects(evaluateGrid({ ...base, testSets, positiveLabel: 'yes' }),
    /--positive-label yes: not a label of task "synthetic" used for test set "in-domain" \("Yes", "No"\)/);
  assert.throws(() => promptVariants([3]), /--prompt 3: expected 1 or 2/);
  assert.deepEqual(dumpStore(storePath), before);
});

test('the positive label of binary F1 is configurable', async () => {
  const storePath = path.join(tempDir(), 'results.sqlite');
  const s = await evaluateGrid(
    { storePath, run: 'r', checkpoints: checkpoints.slice(0, 1), testSets: testSets.slice(0, 1), variants: promptVariants(), positiveLabel: 'No' });
  const { binaryF1 } = await import('../../src/metrics/index.ts');
  const { ResultStore } = await import('../../src/store/result-store.ts');
  const store = ResultStore.open(storePath, { readonly: true });
  const preds = store.predictions('r', 0, 'in-domain');
  store.close();
  const f1 = s.scores.find((x) => x.metric === 'f1')!.value;
  assert.equal(f1, binaryF1(preds.map((p) => p.prediction!), preds.map((p) => p.gold!), 'No'));
});

test('empty generations are scored (ROUGE 0), counted, and reported', () => {
  const task: GenerateTaskSpec = {
    kind: 'generate', name: 'gen', template: '{premise}', maxNewTokens: 5, stop: [], postprocess: { strip: 'python', cutAt: ['\n\n'] },
  };
  const examples = [
    { id: 'a', fields: { premise: 'p' }, target: 'the cat sat' },
    { id: 'b', fields: { premise: 'p' }, target: 'a dog ran' },
    { id: 'c', fields: { premise: 'p' }, target: 'the cat sat' },
  ];
  const cell = {
    index: 0, set: { id: 's', examples, contentHash: 'h', source: 'test', spec: {} }, variant: promptVariants()[0], task, mode: 'generate' as const,
    examples, golds: examples.map((e) => e.target), payloads: [], digests: [], digest: '',
  };
  const out = cellOutcome(cell, ['  \n', '', ' the cat sat\n\nmore'], { rouge: new RougeScorer(), rougeStemmer: false });
  assert.deepEqual(out.predictions.map((p) => p.prediction), ['', '', 'the cat sat']);
  assert.deepEqual(out.predictions.map((p) => p.detail.raw), ['  \n', '', ' the cat sat\n\nmore']);
  assert.equal(out.metrics.empty_rate, 2 / 3);
  assert.equal(out.metrics.exact_match, 1 / 3);
  assert.equal(out.metrics.rougeL_f, 1 / 3);
  assert.equal(out.metrics.rouge1_p, 1 / 3);
  assert.deepEqual(out.notes, ['2 of 3 generations are empty after postprocessing; they score 0']);
});

test('genstudy evaluate: a folder that is not a model exits 2 with one line naming it; the store is untouched', async () => {
  const { storePath, before } = await filledStore();
  const notModel = path.join(tempDir(), 'just-notes');
  fs.mkdirSync(notModel);
  fs.writeFileSync(path.join(notModel, 'notes.txt'), 'x');
  const r = await genstudy(['evaluate', '--model', notModel, '--test-set', SUITE_ARG, '--store', storePath]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `genstudy: ${notModel}: not a model folder (no config.json), and it holds no step-N or checkpoint-N folders\n`);
  assert.deepEqual(dumpStore(storePath), before);
});

test('genstudy evaluate: a model that cannot load (unknown model_type, shape mismatch, bad weights header) fails before ' +
  'anything is stored', async () => {
  const { storePath, before } = await filledStore();
  const broken: [string, (dir: string) => void, RegExp][] = [
    ['model_type', (dir) => editJson(path.join(dir, 'config.json'), (c) => { c.model_type = 'mamba'; }), /config\.json.*"mamba"/],
    ['shape', (dir) => editJson(path.join(dir, 'config.json'), (c) => { c.n_inner = 12; }),
      /model\.safetensors: tensor ".*" has shape \[.*\]; .*config\.json implies/],
    ['header', (dir) => fs.writeFileSync(path.join(dir, 'model.safetensors'), Buffer.from([8, 0, 0, 0, 0, 0, 0, 0, ...Buffer.from('{"w":{}}')])),
      /model\.safetensors: tensor "w".*dtype/],
  ];
  for (const [what, breakIt, message] of broken) {
    const dir = path.join(tinyRun([0], 9, `broken-${what}`), 'step-0');
    breakIt(dir);
    const r = await genstudy(['evaluate', '--model', dir, '--run', `broken-${what}`, '--test-set', SUITE_ARG, '--synthetic-seed', '4',
      '--synthetic-size', String(SIZE), '--store', storePath]);
    assert.equal(r.code, 2, `${what}: ${r.stderr}`);
    assert.match(r.stderr, message, what);
    assert.deepEqual(dumpStore(storePath), before, `${what}: no runs, checkpoints or test_sets rows were written`);
  }
});

function editJson(file: string, edit: (c: Record<string, unknown>) => void): void {
  const c = JSON.parse(fs.readFileSync(file, 'utf8'));
  edit(c);
  fs.writeFileSync(file, JSON.stringify(c));
}

test('an engine answer that is not a log-probability is refused before the cache keeps it, whatever the engine', async () => {
  const storePath = path.join(tempDir(), 'results.sqlite');
  const inner = builtinLoader();
  const loader = async (cp: Parameters<typeof inner>[0]) => {
    const handle = await inner(cp);
    const m = handle.model;
    const model: LanguageModel = {
      id: m.id, tokenizer: m.tokenizer, score: (r) => m.score(r), generate: (r) => m.generate(r),
      firstTokenLogprobs: async (c, k) => (await m.firstTokenLogprobs(c, k)).map((row) => row.map((v) => -v)),
    };
    return { ...handle, model };
  };
  await assert.rejects(
    evaluateGrid({ storePath, run: 'r', checkpoints: checkpoints.slice(0, 1), testSets: testSets.slice(0, 1), variants: promptVariants(), loader }),
    /answered \[.*\] where log-probabilities \(numbers <= 0\) were expected; nothing of this batch was cached/);
  assert.equal(dumpStore(storePath).cache.length, 0);
});
