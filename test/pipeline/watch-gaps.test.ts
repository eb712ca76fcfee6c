// The watcher when checkpoints go wrong: a checkpoint whose evaluation fails (here: a server on other
// weights, genstudy serve's vLLM profile, which says nothing about weights) is logged and retried
// while the others are evaluated; checkpoints the Trainer deleted before they were evaluated
// (save_total_limit) are reported as missing steps; a half-copied tokenizer.json is waited for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promptVariants, resolveTestSets } from '../../src/evaluate/index.ts';
import { builtinLoader } from '../../src/engine/index.ts';
import { remoteLoader } from '../../src/engine/remote/index.ts';
import { scanRunFolder, watchRun } from '../../src/pipeline/watch.ts';
import { savedStepsFromTrainerState } from '../../src/pipeline/checkpoint-reconcile.ts';
import { startServer } from '../../src/serve/index.ts';
import { suiteVocabulary } from '../../src/synth/index.ts';
import { syntheticTask } from '../../src/tasks/index.ts';
import { writeTinyRun } from '../evaluate/tiny-model.ts';
import { SUITE_ARG, tempDir } from '../evaluate/helpers.ts';

const VOCAB = suiteVocabulary(syntheticTask());

/** checkpoint-<step> with the trainer_state.json the Trainer writes (save_steps, global_step). */
function writeCheckpoint(runDir: string, step: number, saveSteps = 10): string {
  const staging = tempDir('genstudy-watch-staging-');
  writeTinyRun(staging, { vocabulary: VOCAB, seed: 9 }, [step]);
  const dir = path.join(runDir, `checkpoint-${step}`);
  fs.renameSync(path.join(staging, `step-${step}`), dir);
  fs.writeFileSync(path.join(dir, 'trainer_state.json'), JSON.stringify({ global_step: step, save_steps: saveSteps, log_history: [] }));
  return dir;
}

test('a checkpoint that fails is logged and retried next round; the others are evaluated (vLLM profile server on one of them)', async () => {
  const runDir = path.join(tempDir(), 'trainer-out');
  fs.mkdirSync(runDir);
  const served = writeCheckpoint(runDir, 10);
  writeCheckpoint(runDir, 20);
  const server = await startServer({ modelDir: served, profile: 'vllm' });
  try {
    const testSets = (await resolveTestSets([SUITE_ARG], { synthSeed: 2, synthSize: 4 })).slice(0, 1);
    const lines: string[] = [];
    const result = await watchRun({
      storePath: path.join(tempDir(), 'r.sqlite'), run: 'w', testSets, variants: promptVariants(), loader: remoteLoader({ urls: [server.url] }),
      runDir, once: true, log: (l) => lines.push(l),
    });
    assert.deepEqual(result.evaluatedSteps, [10]);
    assert.deepEqual(result.failing.map((f) => f.step), [20]);
    assert.match(result.failing[0].reason, /does not report which weights it holds/);
    assert.ok(lines.some((l) => /step 20 .* failed, tried again next round/.test(l)), lines.join('\n'));
  } finally {
    await server.close();
  }
});

test('steps the Trainer saved and deleted before evaluation (save_total_limit) are reported, not dropped silently', async () => {
  const runDir = path.join(tempDir(), 'rotated');
  fs.mkdirSync(runDir);
  const storePath = path.join(tempDir(), 'r.sqlite');
  const testSets = (await resolveTestSets([SUITE_ARG], { synthSeed: 2, synthSize: 4 })).slice(0, 1);
  const base = { storePath, run: 'rot', testSets, variants: promptVariants(), loader: builtinLoader(), runDir, once: true };
  writeCheckpoint(runDir, 10);
  assert.deepEqual((await watchRun(base)).missingSteps, []);
  // Saved at 20, 30 and 40 with save_total_limit 1: only checkpoint-40 is left when the watcher looks again.
  fs.rmSync(path.join(runDir, 'checkpoint-10'), { recursive: true });
  writeCheckpoint(runDir, 40);
  const lines: string[] = [];
  const result = await watchRun({ ...base, log: (l) => lines.push(l) });
  assert.deepEqual(result.evaluatedSteps, [40]);
  assert.deepEqual(result.missingSteps, [20, 30]);
  assert.ok(lines.some((l) => /steps 20, 30 were saved by the trainer but deleted before being evaluated/.test(l)), lines.join('\n'));
  // The plan, when genstudy launched the Trainer, wins over trainer_state.json.
  assert.deepEqual((await watchRun({ ...base, savedSteps: [10, 25, 40] })).missingSteps, [25]);
});

test('a checkpoint whose tokenizer.json is still being copied waits', () => {
  const runDir = path.join(tempDir(), 'half');
  fs.mkdirSync(runDir);
  const dir = writeCheckpoint(runDir, 10);
  const whole = fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8');
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), whole.slice(0, Math.floor(whole.length / 2)));
  const half = scanRunFolder(runDir);
  assert.equal(half.complete.length, 0);
  assert.match(half.waiting[0], /tokenizer\.json is not complete JSON/);
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), whole);
  assert.equal(scanRunFolder(runDir).complete.length, 1);
});

test('the saved-step schedule is read from a trainer_state.json holding Python\'s NaN (an fp16 run\'s grad_norm), not an older one', (t) => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-nan-state-'));
  t.after(() => fs.rmSync(runDir, { recursive: true, force: true }));
  for (const [step, text] of [[10, '{"global_step": 10, "save_steps": 10, "log_history": []}'],
    [20, '{"global_step": 20, "save_steps": 10, "log_history": [{"step": 20, "loss": 0.5, "grad_norm": NaN}]}']] as const) {
    fs.mkdirSync(path.join(runDir, `checkpoint-${step}`));
    fs.writeFileSync(path.join(runDir, `checkpoint-${step}`, 'trainer_state.json'), text);
  }
  assert.deepEqual(savedStepsFromTrainerState(runDir), [10, 20]);
});
