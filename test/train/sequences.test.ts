// What the model is trained on: FTICL strings as study B builds them, and the loss positions of
// study A's label-token objective and study B's supervised objective.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModel } from '../../src/engine/index.ts';
import { studyBTask } from '../../src/tasks/index.ts';
import { encodeForTraining, runPieces } from '../../src/train/index.ts';
import type { Example } from '../../src/types.ts';
import { smallSuite, tinyModelDir } from './helpers.ts';

const shots: Example[] = [
  { id: 'f0', fields: { input: 'Great blender, works well.' }, label: 'positive' },
  { id: 'f1', fields: { input: 'Broke after a week.' }, label: 'negative' },
  { id: 'f2', fields: { input: 'Fine.' }, label: 'positive' },
];
const train: Example[] = [
  { id: 't0', fields: { input: 'Love it!' }, label: 'positive' },
  { id: 't1', fields: { input: 'Waste of money.' }, label: 'negative' },
];

test('FTICL (study B, released code): the same first k demonstrations, each prompt + output + "\\n\\n", before every example', () => {
  const task = studyBTask('sentiment');
  const pieces = runPieces({ task, train, demonstrations: { pool: shots, selection: { kind: 'first-k', k: 2 } } });
  const demos = '### Input:\nGreat blender, works well.\n### Sentiment:positive\n\n### Input:\nBroke after a week.\n### Sentiment:negative\n\n';
  assert.deepEqual(pieces, [
    { exampleId: 't0', context: `${demos}### Input:\nLove it!\n### Sentiment:`, target: 'positive' },
    { exampleId: 't1', context: `${demos}### Input:\nWaste of money.\n### Sentiment:`, target: 'negative' },
  ]);
  // Plain fine-tuning: the prompt alone, no zero-shot prefix.
  assert.deepEqual(runPieces({ task, train: train.slice(0, 1) }),
    [{ exampleId: 't0', context: '### Input:\nLove it!\n### Sentiment:', target: 'positive' }]);
  // Generation tasks: the target is the output field.
  const gen = runPieces({ task: studyBTask('summary'), train: [{ id: 's', fields: { input: 'A long text.' }, target: 'Short.' }] });
  assert.deepEqual(gen, [{ exampleId: 's', context: '### Input:\nA long text.\n### Summary:', target: 'Short.' }]);
});

test('FTICL sampled per example: seeded, reproducible, never the example itself', () => {
  const task = studyBTask('sentiment');
  const pool = [...shots, ...train];
  const opts = { task, train, demonstrations: { pool, selection: { kind: 'sampled' as const, k: 3, seed: 11 } } };
  const a = runPieces(opts);
  assert.deepEqual(runPieces(opts), a);
  for (const p of a) {
    const own = train.find((e) => e.id === p.exampleId)!.fields.input;
    assert.equal(p.context.split(own).length, 2, 'the example appears once, as the query');
    assert.equal(p.context.split('### Input:').length - 1, 4, '3 demonstrations + the query');
  }
  assert.notDeepEqual(runPieces({ ...opts, demonstrations: { pool, selection: { kind: 'sampled', k: 3, seed: 12 } } }), a);
});

test('training subsets: the first N, or N sampled with a seed', () => {
  const task = studyBTask('sentiment');
  const all = [...shots, ...train];
  assert.deepEqual(runPieces({ task, train: all, trainSize: 2 }).map((p) => p.exampleId), ['f0', 'f1']);
  const sampled = runPieces({ task, train: all, trainSize: 3, subsetSeed: 1 }).map((p) => p.exampleId);
  assert.equal(new Set(sampled).size, 3);
  assert.deepEqual(runPieces({ task, train: all, trainSize: 3, subsetSeed: 1 }).map((p) => p.exampleId), sampled);
});

test('objectives: label-token scores the label\'s first token at the last prompt position; supervised scores output + EOS only', async () => {
  const { suite } = await smallSuite();
  const m = await loadModel(await tinyModelDir('gpt2'));
  const tok = m.tokenizer;
  const pieces = runPieces({ task: suite.task, train: suite.train.slice(0, 3) });
  const cls = encodeForTraining(tok, pieces, 'label-token', 128);
  const gen = encodeForTraining(tok, pieces, 'supervised', 128);
  for (let i = 0; i < pieces.length; i++) {
    const ctx = tok.encode(pieces[i].context);
    const label = tok.encode(pieces[i].target, { addSpecialTokens: false });
    assert.deepEqual(cls[i].ids, ctx);
    assert.deepEqual(cls[i].lossPositions, [ctx.length - 1]);
    assert.deepEqual(cls[i].targets, [label[0]]);
    const whole = [...tok.encode(pieces[i].context + pieces[i].target), tok.eosTokenId!];
    assert.deepEqual(gen[i].ids, whole.slice(0, -1));
    assert.deepEqual(gen[i].targets, whole.slice(ctx.length));
    assert.deepEqual(gen[i].lossPositions, whole.slice(ctx.length).map((_, j) => ctx.length - 1 + j));
  }
  // Too long: the oldest tokens go, the targets stay.
  const short = encodeForTraining(tok, pieces.slice(0, 1), 'supervised', 5)[0];
  assert.equal(short.ids.length, 5);
  assert.deepEqual(short.targets, gen[0].targets);
  assert.deepEqual(short.lossPositions.map((p) => short.ids[p]), gen[0].lossPositions.map((p) => gen[0].ids[p]));
  m.dispose();
});
