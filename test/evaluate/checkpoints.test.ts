import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { discoverCheckpoints, storedCheckpoints } from '../../src/evaluate/index.ts';
import { incompleteReason } from '../../src/engine/index.ts';
import { UserError } from '../../src/errors.ts';
import { tempDir, tinyRun } from './helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

function copyDir(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const f of fs.readdirSync(from)) fs.copyFileSync(path.join(from, f), path.join(to, f));
}

test('a folder of checkpoint-N folders is sorted by N, not by name', () => {
  const src = tinyRun([0]);
  const dir = tempDir();
  for (const n of [10, 9, 100]) copyDir(path.join(src, 'step-0'), path.join(dir, `checkpoint-${n}`));
  fs.mkdirSync(path.join(dir, 'runs'));
  fs.writeFileSync(path.join(dir, 'trainer_state.json'), '{}');
  const found = discoverCheckpoints(dir);
  assert.deepEqual(found.checkpoints.map((c) => c.step), [9, 10, 100]);
  assert.deepEqual(found.checkpoints.map((c) => path.basename(c.dir)), ['checkpoint-9', 'checkpoint-10', 'checkpoint-100']);
  assert.ok(found.checkpoints.every((c) => path.isAbsolute(c.dir)));
  assert.deepEqual(found.skipped, []);
});

test('a model folder alone is one checkpoint; its step comes from its name, else 0', () => {
  const src = tinyRun([300]);
  assert.deepEqual(discoverCheckpoints(path.join(src, 'step-300')).checkpoints.map((c) => c.step), [300]);
  const plain = path.join(tempDir(), 'my-model');
  copyDir(path.join(src, 'step-300'), plain);
  assert.deepEqual(discoverCheckpoints(plain).checkpoints, [{ step: 0, dir: plain }]);
});

test('checkpoints being written are skipped with a message; the complete ones are evaluated', () => {
  const src = tinyRun([0, 100]);
  const dir = tempDir();
  copyDir(path.join(src, 'step-0'), path.join(dir, 'step-0'));
  copyDir(path.join(src, 'step-100'), path.join(dir, 'step-100'));
  // A writer that writes in place: the weights are shorter than the header says.
  copyDir(path.join(src, 'step-100'), path.join(dir, 'step-200'));
  const w = path.join(dir, 'step-200', 'model.safetensors');
  fs.truncateSync(w, fs.statSync(w).size - 100);
  // genstudy's own writer: a temporary file beside the final names.
  copyDir(path.join(src, 'step-100'), path.join(dir, 'step-300'));
  fs.renameSync(path.join(dir, 'step-300', 'model.safetensors'), path.join(dir, 'step-300', '.model.safetensors.4242.tmp'));
  // The Trainer: a tmp-checkpoint-N folder renamed when complete; and a folder with no config yet.
  copyDir(path.join(src, 'step-100'), path.join(dir, 'tmp-checkpoint-400'));
  fs.mkdirSync(path.join(dir, 'step-500'));
  const found = discoverCheckpoints(dir);
  assert.deepEqual(found.checkpoints.map((c) => c.step), [0, 100]);
  const text = found.skipped.join('\n');
  assert.match(text, /step-200: incomplete checkpoint \(weight file model\.safetensors is shorter than its header says/);
  assert.match(text, /step-300: incomplete checkpoint \(a file is being written \(\.model\.safetensors\.4242\.tmp\)\)/);
  assert.match(text, /tmp-checkpoint-400: being written \(temporary folder\); skipped/);
  assert.match(text, /step-500: incomplete checkpoint \(no config\.json\)/);
});

test('a folder that is not a model is a clear error naming it', () => {
  const dir = path.join(tempDir(), 'not-a-model');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'README.md'), 'hello');
  assert.throws(() => discoverCheckpoints(dir), (e: Error) => e instanceof UserError &&
    e.message === `${dir}: not a model folder (no config.json), and it holds no step-N or checkpoint-N folders`);
  const noWeights = path.join(tempDir(), 'config-only');
  fs.mkdirSync(noWeights);
  fs.writeFileSync(path.join(noWeights, 'config.json'), '{"model_type": "gpt2"}');
  fs.writeFileSync(path.join(noWeights, 'pytorch_model.bin'), '');
  assert.throws(() => discoverCheckpoints(noWeights), new RegExp(
    /config-only: not a model folder \(no weights \(model\.safetensors or model\.safetensors\.index\.json\); /.source +
    /found pytorch_model\.bin, convert it to safetensors\)/.source));
  assert.throws(() => discoverCheckpoints(path.join(dir, 'missing')), /missing: no such folder/);
  assert.equal(incompleteReason(noWeights)?.startsWith('no weights'), true);
});

test('all checkpoint folders incomplete is an error listing why', () => {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'step-1'));
  assert.throws(() => discoverCheckpoints(dir),
    /none of its 1 checkpoint folders is complete:\n {2}.*step-1: incomplete checkpoint \(no config\.json\)/);
});

test('a run in the store: checkpoints from their recorded folders; missing folders skipped', () => {
  const src = tinyRun([0, 100]);
  const found = storedCheckpoints('r', [
    { step: 0, path: path.join(src, 'step-0') }, { step: 100, path: path.join(src, 'gone') }, { step: 200, path: null },
  ], 'results.sqlite');
  assert.deepEqual(found.checkpoints.map((c) => c.step), [0]);
  assert.match(found.skipped.join('\n'), /step 100: .*gone: the folder no longer exists; skipped\n.*step 200: no folder recorded/);
  assert.throws(() => storedCheckpoints('r', [], 'results.sqlite'), /run "r" has no checkpoints in the store; pass --model DIR/);
});

test('checkpoints saved without a tokenizer wait for one, and evaluate with --tokenizer as with their own', async () => {
  const { SUITE_ARG, dumpStore } = await import('./helpers.ts');
  const { scanRunFolder } = await import('../../src/pipeline/watch.ts');
  const src = tinyRun([0, 100]);
  const bare = path.join(tempDir(), 'bare-run');
  for (const step of ['step-0', 'step-100']) {
    copyDir(path.join(src, step), path.join(bare, step));
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) fs.rmSync(path.join(bare, step, f), { force: true });
  }
  const tokenizer = path.join(src, 'step-0');
  assert.match(incompleteReason(path.join(bare, 'step-0')) ?? '', /no tokenizer\.json .*--tokenizer DIR/);
  assert.equal(incompleteReason(path.join(bare, 'step-0'), tokenizer), undefined);
  assert.deepEqual(scanRunFolder(bare).complete, []);
  assert.deepEqual(scanRunFolder(bare, undefined, tokenizer).complete.map((c) => [c.step, c.tokenizer]), [[0, tokenizer], [100, tokenizer]]);

  const dir = tempDir();
  const args = (model: string, store: string) => ['evaluate', '--model', model, '--test-set', SUITE_ARG, '--synthetic-seed', '2', '--synthetic-size',
    '6', '--run', 'r', '--store', path.join(dir, store)];
  const refused = await genstudy(args(bare, 'refused.sqlite'));
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /none of its 2 checkpoint folders is complete.*no tokenizer\.json/s);
  const own = await genstudy(args(src, 'own.sqlite'));
  assert.equal(own.code, 0, own.stderr);
  assert.match(own.stderr, / over 2 checkpoints: .*\(2 models loaded, /);
  const single = await genstudy(args(path.join(src, 'step-0'), 'single.sqlite'));
  assert.equal(single.code, 0, single.stderr);
  assert.match(single.stderr, / over 1 checkpoint: .*\(1 model loaded, /, 'counts of one are singular');
  const borrowed = await genstudy([...args(bare, 'borrowed.sqlite'), '--tokenizer', tokenizer]);
  assert.equal(borrowed.code, 0, borrowed.stderr);
  const a = dumpStore(path.join(dir, 'own.sqlite'));
  const b = dumpStore(path.join(dir, 'borrowed.sqlite'));
  assert.deepEqual(b.scores, a.scores);
  assert.deepEqual(b.predictions, a.predictions);
});

test('evaluate --run names a complete checkpoint folder on disk that the store lacks (a trainer killed before recording it)', async () => {
  const { SUITE_ARG } = await import('./helpers.ts');
  const { ResultStore } = await import('../../src/store/result-store.ts');
  const src = tinyRun([0, 100, 200]);
  const storeFile = path.join(tempDir(), 'results.sqlite');
  const store = ResultStore.open(storeFile);
  for (const step of [0, 200]) store.upsertCheckpoint({ run: 'r', step, path: path.join(src, `step-${step}`) });
  store.close();
  const r = await genstudy(['evaluate', '--run', 'r', '--store', storeFile, '--test-set', SUITE_ARG,
    '--synthetic-seed', '2', '--synthetic-size', '6']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr,
    new RegExp(`run "r" step 100: ${path.join(src, 'step-100').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is on disk but not in the store`));
  const found = storedCheckpoints('r', [{ step: 0, path: path.join(src, 'step-0') }, { step: 100, path: path.join(src, 'step-100') },
    { step: 200, path: path.join(src, 'step-200') }], 'results.sqlite');
  assert.deepEqual(found.skipped, [], 'nothing to report when the store has every folder');
});
