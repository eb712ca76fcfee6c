// Presets against the studies' data in ../shared (skipped with a message where it is absent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Example } from '../../src/types.ts';
import {
  buildFirstTokenRequests, buildGenerateRequests, demonstrationsFor,
  STUDY_B_JOIN, STUDY_B_LABELS, STUDY_B_PROMPT_MAP, STUDY_B_TASKS, studyBKind, studyBTask, trainingPieces,
  type ClassifyTaskSpec, type GenerateTaskSpec,
} from '../../src/tasks/index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = path.resolve(repoRoot, '../shared/data/ft-generalisation');
const haveData = existsSync(dataDir);
type Row = Record<string, string | number>;
const readRows = (rel: string): Row[] => JSON.parse(readFileSync(path.join(dataDir, rel), 'utf8')) as Row[];
// As the registry loads these files: the output is the label (classification) and the target (generation).
const toExample = (r: Row, i: number): Example => ({
  id: String(r.idx ?? i),
  fields: Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'output').map(([k, v]) => [k, String(v)])),
  label: String(r.output),
  target: String(r.output),
});

test('embedded prompt map equals ../shared prompt_map.json', (t) => {
  if (!haveData) { t.skip('../shared/data/ft-generalisation is absent'); return; }
  const shared = JSON.parse(readFileSync(path.join(dataDir, 'prompt_map.json'), 'utf8')) as unknown;
  assert.deepEqual(shared, STUDY_B_PROMPT_MAP);
});

test('study B task kinds and label words', () => {
  assert.deepEqual(STUDY_B_TASKS.map(studyBKind), ['generate', 'generate', 'classify', 'classify', 'classify']);
  assert.deepEqual(STUDY_B_LABELS.sentiment, ['positive', 'negative']);
  assert.deepEqual(STUDY_B_LABELS.detection, ['yes', 'no']);
  assert.deepEqual(STUDY_B_LABELS.inference, ['entailment', 'neutral', 'contradiction']);
  for (const p of [1, 2] as const) for (const t of STUDY_B_TASKS) assert.equal(studyBTask(t, p).template, STUDY_B_PROMPT_MAP[p - 1][t]);
  assert.throws(() => studyBTask('sentiment', 3 as 1), /Prompt-3/);
});

test('real data: amazon test rows with the first 2 few-shot demonstrations, Prompt-1 and Prompt-2', (t) => {
  if (!haveData) { t.skip('../shared/data/ft-generalisation is absent'); return; }
  const test500 = readRows('sentiment/amazon_test_500.json');
  const fewShot = readRows('sentiment/few_shot/amazon_few_shot.json');
  const pool = fewShot.map(toExample);
  const queries = test500.slice(0, 3).map(toExample);
  const [d0, d1] = fewShot;
  for (const prompt of [1, 2] as const) {
    const task = studyBTask('sentiment', prompt) as ClassifyTaskSpec;
    const reqs = buildFirstTokenRequests(task, queries,
      { demonstrations: demonstrationsFor(task, pool, { kind: 'first-k', k: 2 }), join: STUDY_B_JOIN });
    for (const [i, row] of test500.slice(0, 3).entries()) {
      // Spelled out from evaluate_cross.py: format_map(d) + d["output"] + "\n\n" per demonstration, then format_map(query).
      const expected = prompt === 1
        ? `### Input:\n${d0.input}\n### Sentiment:${d0.output}\n\n### Input:\n${d1.input}\n### Sentiment:${d1.output}\n\n` +
          `### Input:\n${row.input}\n### Sentiment:`
        : `Analyze the sentiment of the following text:${d0.input}\nSentiment:${d0.output}\n\n` +
          `Analyze the sentiment of the following text:${d1.input}\nSentiment:${d1.output}\n\n` +
          `Analyze the sentiment of the following text:${row.input}\nSentiment:`;
      assert.equal(reqs[i].context, expected);
      assert.deepEqual(reqs[i].candidates, ['positive', 'negative']);
    }
    const zero = buildFirstTokenRequests(task, queries.slice(0, 1), { join: STUDY_B_JOIN })[0].context;
    assert.equal(zero, prompt === 1 ? `<s> ### Input:\n${test500[0].input}\n### Sentiment:`
      : `<s> Analyze the sentiment of the following text:${test500[0].input}\nSentiment:`);
  }
});

test('real data: NLI 3-shot, question generation 1-shot, and FTICL training strings', (t) => {
  if (!haveData) { t.skip('../shared/data/ft-generalisation is absent'); return; }
  const mnli = readRows('inference/multinli_test_500.json');
  const fs = readRows('inference/few_shot/multinli_few_shot.json');
  const task = studyBTask('inference', 1) as ClassifyTaskSpec;
  const demonstrations = demonstrationsFor(task, fs.map(toExample), { kind: 'first-k', k: 3 });
  const [req] = buildFirstTokenRequests(task, [toExample(mnli[0], 0)], { demonstrations, join: STUDY_B_JOIN });
  const fmt = (r: Row) => `### Input_1:\n${r.input_1}\n### Input_2:\n${r.input_2}\n### Inference:`;
  assert.equal(req.context, fs.slice(0, 3).map((d) => fmt(d) + d.output + '\n\n').join('') + fmt(mnli[0]));

  const sq = readRows('question/socialqa_test_500.json');
  const sqFs = readRows('question/few_shot/socialqa_few_shot.json');
  const qTask = studyBTask('question', 2) as GenerateTaskSpec;
  const qDemos = demonstrationsFor(qTask, sqFs.map(toExample), { kind: 'first-k', k: 1 });
  const [g] = buildGenerateRequests(qTask, [toExample(sq[0], 0)], { demonstrations: qDemos, join: STUDY_B_JOIN });
  const qfmt = (r: Row) => `Given the context:${r.input}\nAnd the answer:${r.answer}\nGenerate a suitable question:`;
  assert.equal(g.prompt, qfmt(sqFs[0]) + sqFs[0].output + '\n\n' + qfmt(sq[0]));
  assert.equal(g.maxNewTokens, 60);

  const train = readRows('inference/multinli_train_2000.json');
  const fticl = trainingPieces(task, [toExample(train[0], 0)], { demonstrations, join: STUDY_B_JOIN })[0];
  assert.equal(fticl.context, fs.slice(0, 3).map((d) => fmt(d) + d.output + '\n\n').join('') + fmt(train[0]));
  assert.equal(fticl.target, train[0].output);
});
