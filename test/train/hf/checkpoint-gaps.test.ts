// save_total_limit makes the Trainer delete checkpoints before they may be evaluated: the hf
// backend refuses it unless the gaps are accepted (and then reports the missing steps: test/e2e/hf-rotation.test.ts).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { studyBTask } from '../../../src/tasks/index.ts';
import { prepareHfRun } from '../../../src/train/hf/index.ts';
import type { Example } from '../../../src/types.ts';
import { repoRoot, tempDir } from '../helpers.ts';

const examples: Example[] = Array.from({ length: 6 },
  (_, i) => ({ id: `e${i}`, fields: { input: `text ${i}` }, label: i % 2 ? 'negative' : 'positive' }));

test('save_total_limit is refused unless checkpoint gaps are accepted', () => {
  const o = {
    model: path.join(repoRoot, 'test/engine/fixtures/opt'), outDir: tempDir('genstudy-hf-gaps-'), task: studyBTask('sentiment'), train: examples,
    method: 'full' as const, lr: 1e-4, batchSize: 2, gradAccum: 1, epochs: 1, seed: 1, checkpoints: { every: 1 },
    trainingArguments: { save_total_limit: 2 },
  };
  assert.throws(() => prepareHfRun(o), /save_total_limit 2: the Trainer deletes older checkpoints .*hf\.acceptCheckpointGaps: true/);
  assert.ok(prepareHfRun({ ...o, acceptCheckpointGaps: true }).saveSteps.length > 0);
});
