// genstudy score given what a LoRA run leaves: a PEFT adapter folder is scored on its base model
// with the adapter merged in (the base from adapter_config.json), and a run folder of checkpoints
// is an error that names them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadModel } from '../../src/engine/index.ts';
import { LoraAdapters } from '../../src/engine/builtin/lora.ts';
import { seededRandom } from '../../src/seeded-random.ts';
import { tempDir, tinyRun } from '../evaluate/helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

test('score takes a PEFT adapter folder (base from adapter_config.json) and names the checkpoints of a run folder', async () => {
  const baseDir = path.join(tinyRun([0], 31), 'step-0');
  const runDir = path.join(tempDir(), 'lora-run');
  const adapterDir = path.join(runDir, 'checkpoint-10');
  const base = await loadModel(baseDir);
  const adapters = LoraAdapters.create(base, { r: 2, alpha: 4, dropout: 0, targetModules: ['c_attn'] }, 3);
  const rng = seededRandom(3, 'score-adapter-b');
  for (const p of adapters.pairs) p.b.assign(tf.tensor(Float32Array.from({ length: p.b.size }, () => rng.next() - 0.5), p.b.shape));
  await adapters.save(adapterDir, baseDir);
  const merged = adapters.merged();
  const pairs = [{ context: 'the cat', continuation: ' sat' }, { context: 'a dog', continuation: ' ran' }];
  const expected = await merged.score(pairs);
  const plain = await base.score(pairs);
  merged.dispose();
  adapters.dispose();
  base.dispose();
  fs.cpSync(adapterDir, path.join(runDir, 'checkpoint-20'), { recursive: true });

  const input = path.join(tempDir(), 'pairs.jsonl');
  fs.writeFileSync(input, pairs.map((p, i) => JSON.stringify({ id: i, ...p })).join('\n') + '\n');
  const r = await genstudy(['score', '--model', adapterDir, '--input', input]);
  assert.equal(r.code, 0, r.stderr);
  const got = JSON.parse(r.stdout).results as { logprob: number }[];
  for (const [i, e] of expected.entries()) {
    assert.ok(Math.abs(got[i].logprob - e.logprob) < 1e-4, `pair ${i}: ${got[i].logprob} vs merged ${e.logprob}`);
  }
  assert.ok(got.some((g, i) => Math.abs(g.logprob - plain[i].logprob) > 1e-3), 'the adapter changes the scores (it was applied)');

  const folder = await genstudy(['score', '--model', runDir, '--input', input]);
  assert.equal(folder.code, 2);
  assert.match(folder.stderr,
    /lora-run: a run folder with 2 checkpoints \(checkpoint-10, checkpoint-20\); score one of them, e\.g\. --model .*checkpoint-20/);

  // One level up (a study's out folder, a folder of runs): the run folders are named.
  const above = await genstudy(['score', '--model', path.dirname(runDir), '--input', input]);
  assert.equal(above.code, 2);
  assert.match(above.stderr, /it holds run folders \(lora-run\): pass one of them, e\.g\. --model .*lora-run/);
});
