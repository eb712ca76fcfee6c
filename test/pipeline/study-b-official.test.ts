// protocol: official end to end on study B's real files with the tiny golden GPT-2: the every-k-and-
// prompt grid, "-" rows kept and counted wrong, study B's BOS rule, FTICL from the few-shot file with
// a per-task k, the supervised objective, a global batch, the bootstrap-median ROUGE-L as the
// generation sets' metric, and a report that reads it all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseStudy } from '../../src/config/load.ts';
import { runStudy } from '../../src/pipeline/run-study.ts';
import { writeStudyOutputs } from '../../src/pipeline/outputs.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { silentProgress } from '../../src/train/index.ts';
import { NO_PROGRESS } from '../../src/evaluate/index.ts';

const shared = path.resolve(import.meta.dirname, '../../../shared');
const model = path.join(shared, 'golden/engine/gpt2');
const data = process.env.GENSTUDY_DATA ? path.resolve(process.env.GENSTUDY_DATA) : path.join(shared, 'data');

test('protocol: official runs study B the way its released code did',
  { skip: !fs.existsSync(model) || !fs.existsSync(path.join(data, 'ft-generalisation')) ? `needs ${shared} (golden model and data)` : false },
  async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-study-b-official-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const text = `name: mini-b-official
protocol: official
dataDir: ${data}
models:
  - { id: gpt2-tiny, path: ${model} }
training:
  - { id: sentiment-2000, data: "study-b/sentiment/amazon:train-2000", task: study-b/sentiment, size: 8, inDomain: ["study-b/sentiment/sst2:test"] }
methods:
  - { name: base, kind: base, shots: { sentiment: [0, 2] } }
  - { name: ft, kind: ft, lr: 0.001, steps: 2, batchSize: 2, globalBatch: 4 }
  - { name: fticl, kind: fticl, lr: 0.001, steps: 2, batchSize: 2, globalBatch: 4, demonstrations: { sentiment: [2] } }
checkpoints: { atStart: false, atEnd: true }
evaluation:
  limit: 30
  # GPT-2 has no Llama-2 ids to read (official's studyBLabelTokens: llama2-ids refuses it).
  labelTokens: in-context
  shots: { summary: [0, 1], sentiment: [0, 2], inference: [0, 3] }
  testSets: ["study-b/sentiment/sst2:test", "study-b/inference/multinli:test", "study-b/summary/xsum:test"]
`;
  const file = path.join(dir, 'mini.yaml');
  fs.writeFileSync(file, text);
  const study = parseStudy(text, file);
  const lines: string[] = [];
  const result = await runStudy(study, file, { log: (l) => lines.push(l), trainProgress: silentProgress, evalProgress: NO_PROGRESS });
  assert.ok(
    lines.some((l) => /multinli:test": 1 of its 30 rows have no gold label \("-"\); they are kept and count as wrong/.test(l)), lines.join('\n'));

  const store = ResultStore.open(result.paths.store, { readonly: true });
  try {
    const runs = Object.fromEntries(store.runs().map((r) => [r.id, r]));
    assert.deepEqual(Object.keys(runs).sort(), ['gpt2-tiny--sentiment-2000--base', 'gpt2-tiny--sentiment-2000--base-k2',
      'gpt2-tiny--sentiment-2000--ft', 'gpt2-tiny--sentiment-2000--fticl-k2']);
    const ft = runs['gpt2-tiny--sentiment-2000--ft'].attributes!;
    assert.equal(ft.objective, 'supervised', 'study B\'s supervised objective (label word + EOS), under the study file\'s name');
    assert.equal(ft.gradAccum, 2, 'globalBatch 4 / batchSize 2');
    assert.equal(ft.prompt_variant, 'prompt-1/0-shot');
    assert.equal(runs['gpt2-tiny--sentiment-2000--fticl-k2'].attributes!.prompt_variant, 'prompt-1/2-shot');
    assert.equal(runs['gpt2-tiny--sentiment-2000--base-k2'].attributes!.prompt_variant, 'prompt-1/2-shot');

    // Every run at every k of each set's task, with both prompts.
    const variants = (run: string, set: string) =>
      [...new Set(store.scores({ run }).filter((s) => s.testSet === set).map((s) => s.promptVariant))].sort();
    assert.deepEqual(variants('gpt2-tiny--sentiment-2000--ft', 'study-b/inference/multinli:test'),
      ['prompt-1/0-shot', 'prompt-1/3-shot', 'prompt-2/0-shot', 'prompt-2/3-shot']);
    // FTICL's own k is not added to another task's list (gridRunShots: task-k-only): evaluate_cross.py computed no such cell.
    assert.deepEqual(variants('gpt2-tiny--sentiment-2000--fticl-k2', 'study-b/inference/multinli:test'),
      ['prompt-1/0-shot', 'prompt-1/3-shot', 'prompt-2/0-shot', 'prompt-2/3-shot']);
    assert.deepEqual(variants('gpt2-tiny--sentiment-2000--fticl-k2', 'study-b/sentiment/sst2:test'),
      ['prompt-1/0-shot', 'prompt-1/2-shot', 'prompt-2/0-shot', 'prompt-2/2-shot']);

    // The "-" row is scored, stored with gold "-", and wrong; the denominator is 30.
    const preds = store.predictions('gpt2-tiny--sentiment-2000--ft', 2, 'study-b/inference/multinli:test', 'prompt-1/0-shot');
    assert.equal(preds.length, 30);
    assert.equal(preds.filter((p) => p.gold === '-').length, 1);
    const acc = store.scores({ run: 'gpt2-tiny--sentiment-2000--ft', promptVariant: 'prompt-1/0-shot', metric: 'accuracy' }).find((s) =>
      s.testSet === 'study-b/inference/multinli:test')!;
    assert.equal(acc.n, 30);
    assert.equal(acc.value, preds.filter((p) => p.prediction === p.gold).length / 30);

    // Generation sets: the report reads the bootstrap median; BLEU and the mean are stored beside it.
    assert.equal(store.testSet('study-b/summary/xsum:test')!.spec!.metric, 'rougeL_mid_f');
    const xsum = new Set(
      store.scores({ run: 'gpt2-tiny--sentiment-2000--base' }).filter((s) => s.testSet === 'study-b/summary/xsum:test').map((s) => s.metric));
    for (const m of ['rougeL_mid_f', 'rougeL_f', 'bleu']) assert.ok(xsum.has(m), m);
  } finally {
    store.close();
  }
  const written = await writeStudyOutputs(study, result);
  const matrix = JSON.parse(fs.readFileSync(path.join(path.dirname(written.report!), 'study_b.json'), 'utf8')) as Record<string, unknown>[];
  const fticl = matrix.find((row) => row.method === 'fticl' && row.test_set === 'study-b/sentiment/sst2:test')!;
  const base2 = matrix.find((row) => row.method === 'base' && row.shots === 2 && row.test_set === 'study-b/sentiment/sst2:test')!;
  assert.equal(fticl.base_score, base2.score);
  const xsumRow = matrix.find((row) => row.method === 'ft' && row.test_set === 'study-b/summary/xsum:test')!;
  assert.equal(xsumRow.metric, 'rougeL_mid_f');
});
