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
const data = path.join(shared, 'data');

// Study B's shape on real data with the tiny golden GPT-2: base k-shot ICL, FT and FTICL trained on
// sentiment, evaluated in-domain (Amazon), cross-domain (SST-2) and cross-task (PAWS).
test('a study-B-shaped study fills the store the way the report reads it',
  { skip: !fs.existsSync(model) || !fs.existsSync(data) ? `needs ${shared} (golden model and data)` : false }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-study-b-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const text = `name: mini-b
dataDir: ${data}
models:
  - { id: gpt2-tiny, path: ${model} }
training:
  - { id: sentiment, data: "study-b/sentiment/amazon:train-2000", task: study-b/sentiment, size: 8, inDomain: ["study-b/sentiment/amazon:test"] }
methods:
  - { name: base, kind: base, shots: [0, 2] }
  - { name: ft, kind: ft, lr: 0.001, steps: 2, batchSize: 4 }
  - { name: fticl, kind: fticl, lr: 0.001, steps: 2, batchSize: 4, demonstrations: 2 }
checkpoints: { atStart: false, atEnd: true }
evaluation:
  limit: 4
  testSets: ["study-b/sentiment/amazon:test", "study-b/sentiment/sst2:test", "study-b/detection/paws:test"]
`;
  const file = path.join(dir, 'mini-b.yaml');
  fs.writeFileSync(file, text);
  const study = parseStudy(text, file);
  const result = await runStudy(study, file, { log: () => undefined, trainProgress: silentProgress, evalProgress: NO_PROGRESS });
  assert.equal(result.analysis, null);

  const store = ResultStore.open(result.paths.store, { readonly: true });
  const runs = Object.fromEntries(store.runs().map((r) => [r.id, r]));
  assert.deepEqual(Object.keys(runs).sort(),
    ['gpt2-tiny--sentiment--base', 'gpt2-tiny--sentiment--base-k2', 'gpt2-tiny--sentiment--ft', 'gpt2-tiny--sentiment--fticl']);
  assert.equal(runs['gpt2-tiny--sentiment--base-k2'].method, 'base');
  assert.equal(runs['gpt2-tiny--sentiment--base-k2'].attributes?.prompt_variant, '2-shot');
  assert.equal(runs['gpt2-tiny--sentiment--fticl'].attributes?.shots, 2);
  assert.equal(runs['gpt2-tiny--sentiment--ft'].attributes?.training_task, 'sentiment');
  assert.deepEqual(store.testSet('study-b/sentiment/amazon:test')?.spec?.domain, 'in-domain');
  assert.deepEqual(store.testSet('study-b/sentiment/sst2:test')?.spec?.domain, 'cross-domain');
  assert.deepEqual(store.testSet('study-b/detection/paws:test')?.spec?.task, 'detection');
  assert.equal(store.scores({ run: 'gpt2-tiny--sentiment--base-k2', promptVariant: '2-shot', metric: 'accuracy' }).length, 3);
  store.close();

  const written = await writeStudyOutputs(study, result);
  const matrix = JSON.parse(fs.readFileSync(path.join(path.dirname(written.report!), 'study_b.json'), 'utf8')) as Record<string, unknown>[];
  // Base rows belong to no training task, so they have no role; trained rows have all three.
  const roles = new Set(matrix.filter((row) => row.method !== 'base').map((row) => row.role));
  assert.deepEqual([...roles].sort(), ['cross-domain', 'cross-task', 'in-domain']);
  const methods = new Set(matrix.map((row) => row.method));
  assert.deepEqual([...methods].sort(), ['base', 'ft', 'fticl']);
  // FTICL (k = 2) is compared with the base model's 2-shot ICL, FT with its 0-shot prompt.
  const fticl = matrix.find((row) => row.method === 'fticl' && row.test_set === 'study-b/sentiment/sst2:test')!;
  const base2 = matrix.find((row) => row.method === 'base' && row.shots === 2 && row.test_set === 'study-b/sentiment/sst2:test')!;
  assert.equal(fticl.base_score, base2.score);
});
