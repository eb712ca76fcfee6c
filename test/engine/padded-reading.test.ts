// Study A's predecessor's reading position (FirstTokenOptions.padTo): rows cut to their first padTo
// tokens, right-padded, read at the last padded position, against transformers itself on the OPT
// (positions from the attention mask: padding at -1) and OLMo2 (positions count every index)
// fixtures (test/engine/fixtures/make_padded_reading.py wrote padded_reading.json). And the
// training side: the label-token objective reads the same padded position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadModel } from '../../src/engine/index.ts';
import { encodeForTraining } from '../../src/train/sequences.ts';
import { microBatchLoss } from '../../src/train/loss.ts';
import * as tf from '@tensorflow/tfjs-core';
import { fixturesDir } from './helpers.ts';

interface Row { context: string; ids: number[]; candidates: number[]; logprobs: number[]; truncated: boolean }
const golden = JSON.parse(readFileSync(path.join(fixturesDir, 'padded_reading.json'), 'utf8')) as {
  padTo: number; fixtures: Record<string, { padId: number; rows: Row[] }>;
};

for (const name of ['opt', 'olmo2']) {
  test(`${name}: log-probs read at the last of ${golden.padTo} right-padded positions equal transformers'`, async () => {
    const { rows } = golden.fixtures[name];
    assert.ok(rows.some((r) => r.truncated) && rows.filter((r) => !r.truncated).length >= 5);
    const model = await loadModel(path.join(fixturesDir, name));
    try {
      const got = await model.firstTokenLogprobs(rows.map((r) => r.context), ['Yes', 'No'], { padTo: golden.padTo });
      const last = await model.firstTokenLogprobs(rows.map((r) => r.context), ['Yes', 'No']);
      rows.forEach((r, i) => {
        r.logprobs.forEach((want, j) => assert.ok(Math.abs(got[i][j] - want) < 2e-4, `${name} row ${i} cand ${j}: ${got[i][j]} vs ${want}`));
        // A context shorter than padTo is read at a padding token: not where the last real token reads.
        if (!r.truncated) assert.ok(Math.abs(last[i][0] - got[i][0]) > 1e-3, `${name} row ${i}: padded and last-token readings coincide`);
      });
    } finally {
      model.dispose();
    }
  });
}

test('the label-token objective under padTo: the loss is the padded reading\'s cross-entropy', async () => {
  const model = await loadModel(path.join(fixturesDir, 'opt'));
  try {
    const { rows } = golden.fixtures.opt;
    const pieces = rows.slice(0, 4).map((r, i) => ({ exampleId: String(i), context: r.context, target: i % 2 ? 'No' : 'Yes' }));
    const seqs = encodeForTraining(model.tokenizer, pieces, 'label-token', model.maxLength, 'in-context', golden.padTo);
    seqs.forEach((s, i) => {
      assert.equal(s.ids.length, golden.padTo);
      assert.equal(s.realLength, rows[i].ids.length);
      assert.deepEqual(s.lossPositions, [golden.padTo - 1]);
      assert.deepEqual(s.targets, [rows[i].candidates[i % 2]]);
    });
    const loss = tf.tidy(() => microBatchLoss(model, seqs, seqs.length).dataSync()[0]);
    const want = -rows.slice(0, 4).reduce((a, r, i) => a + r.logprobs[i % 2], 0) / 4;
    assert.ok(Math.abs(loss - want) < 2e-4, `${loss} vs ${want}`);
  } finally {
    model.dispose();
  }
});
