// Prompts rendered by src/tasks compared with the studies' own formatting code, run in Python by
// golden/make_prompts.py on small inline examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Example } from '../../src/types.ts';
import {
  buildFirstTokenRequests, buildGenerateRequests, demonstrationsFor, studyATask, studyBTask, STUDY_B_JOIN,
  trainingPieces, type StudyBTask,
} from '../../src/tasks/index.ts';

interface Row { [k: string]: string | number }
interface BCase {
  prompt: 1 | 2; task: StudyBTask; k: number; demos: Row[]; query: Row; text: string; training_source: string; training_target: string }
const golden = JSON.parse(readFileSync(fileURLToPath(new URL('./golden/prompts.json', import.meta.url)), 'utf8')) as {
  studyB: BCase[];
  studyA: { premise: string; hypothesis: string; label: 'Yes' | 'No'; prompt: string; with_gold: string }[];
};

function toExample(row: Row, i: number): Example {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(row)) fields[k] = String(v);
  return { id: `row-${i}`, fields, label: String(row.output), target: String(row.output) };
}

test('study B: k-shot prompts equal the released code\'s, for both prompts and all five tasks', () => {
  assert.equal(golden.studyB.length, 28);
  for (const c of golden.studyB) {
    const task = studyBTask(c.task, c.prompt);
    const pool = c.demos.map(toExample);
    const query = toExample(c.query, 99);
    const demonstrations = demonstrationsFor(task, pool, { kind: 'first-k', k: c.k });
    const text = task.kind === 'classify'
      ? buildFirstTokenRequests(task, [query], { demonstrations, join: STUDY_B_JOIN })[0].context
      : buildGenerateRequests(task, [query], { demonstrations, join: STUDY_B_JOIN })[0].prompt;
    assert.equal(text, c.text, `${task.name} k=${c.k}`);
    const pieces = trainingPieces(task, [query], { demonstrations, join: STUDY_B_JOIN })[0];
    assert.equal(pieces.context, c.training_source, `${task.name} k=${c.k} training source`);
    assert.equal(pieces.target, c.training_target);
  }
});

test('study A: pattern and verbalizer equal the paper\'s', () => {
  const task = studyATask();
  for (const [i, c] of golden.studyA.entries()) {
    const ex: Example = { id: `a${i}`, fields: { premise: c.premise, hypothesis: c.hypothesis }, label: c.label };
    const req = buildFirstTokenRequests(task, [ex])[0];
    assert.equal(req.context, c.prompt);
    assert.deepEqual(req.candidates, [' Yes', ' No']);
    assert.equal(trainingPieces(task, [ex])[0].context + trainingPieces(task, [ex])[0].target, c.with_gold);
  }
});
