import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Example } from '../../src/types.ts';
import { buildContext, demonstrationsFor, studyATask, studyBTask, trainingPieces, type ClassifyTaskSpec } from '../../src/tasks/index.ts';

const task = studyBTask('inference', 1) as ClassifyTaskSpec;
const pool: Example[] = Array.from({ length: 12 }, (_, i) => ({
  id: `p${i}`,
  fields: { input_1: `premise ${i}`, input_2: `hyp ${i}` },
  label: i < 8 ? 'entailment' : i < 11 ? 'neutral' : 'contradiction',
}));
const q: Example = { id: 'q', fields: { input_1: 'P', input_2: 'H' }, label: 'neutral' };

test('first-k: the same first k rows for every query', () => {
  const pick = demonstrationsFor(task, pool, { kind: 'first-k', k: 3 });
  assert.deepEqual(pick(q).map((d) => d.id), ['p0', 'p1', 'p2']);
  assert.deepEqual(pick(pool[5]).map((d) => d.id), ['p0', 'p1', 'p2']);
  assert.deepEqual(demonstrationsFor(task, pool, { kind: 'first-k', k: 0 })(q), []);
});

test('k larger than the pool, or negative, is a user error naming the pool', () => {
  assert.throws(() => demonstrationsFor(task, pool, { kind: 'first-k', k: 13 }, 'mnli_few_shot.json'),
    /mnli_few_shot\.json: k = 13 but the demonstration pool has only 12/);
  assert.throws(() => demonstrationsFor(task, pool, { kind: 'sampled', k: -1, seed: 1 }), /k must be a whole number/);
});

test('sampled: deterministic per (seed, query id), independent of other queries, never the query itself', () => {
  const a = demonstrationsFor(task, pool, { kind: 'sampled', k: 4, seed: 7 });
  const b = demonstrationsFor(task, [...pool], { kind: 'sampled', k: 4, seed: 7 });
  const ids = (x: readonly Example[]) => x.map((d) => d.id);
  assert.deepEqual(ids(a(q)), ids(b(q)));
  b(pool[3]);
  assert.deepEqual(ids(a(q)), ids(b(q)));
  assert.notDeepEqual(ids(a(q)), ids(demonstrationsFor(task, pool, { kind: 'sampled', k: 4, seed: 8 })(q)));
  for (const p of pool) {
    const got = ids(a(p));
    assert.equal(got.length, 4);
    assert.equal(new Set(got).size, 4);
    assert.ok(!got.includes(p.id));
  }
});

test('sampled with coverClasses: every class present in each query\'s demonstrations', () => {
  const pick = demonstrationsFor(task, pool, { kind: 'sampled', k: 3, seed: 1, coverClasses: true });
  for (let i = 0; i < 30; i++) {
    const labels = pick({ ...q, id: `q${i}` }).map((d) => d.label).sort();
    assert.deepEqual(labels, ['contradiction', 'entailment', 'neutral']);
  }
  // Without covering, k = 3 from a pool with one contradiction often misses it.
  const plain = demonstrationsFor(task, pool, { kind: 'sampled', k: 3, seed: 1 });
  const missing = Array.from({ length: 30 },
    (_, i) => plain({ ...q, id: `q${i}` })).filter((ds) => !ds.some((d) => d.label === 'contradiction')).length;
  assert.ok(missing > 0);
  assert.throws(() => demonstrationsFor(task, pool, { kind: 'sampled', k: 2, seed: 1, coverClasses: true }), /coverClasses needs k >= 3/);
});

test('ICL context joins demonstrations as prompt + label word + "\\n\\n" (study A: label word with its space)', () => {
  const a = studyATask();
  const demos: Example[] = [
    { id: 'd1', fields: { premise: 'A.', hypothesis: 'B.' }, label: 'Yes' },
    { id: 'd2', fields: { premise: 'C.', hypothesis: 'D.' }, label: 'No' },
  ];
  const query: Example = { id: 'x', fields: { premise: 'E.', hypothesis: 'F.' } };
  assert.equal(
    buildContext(a, query, demos),
    'A.Question: B. Yes or No? Yes\n\nC.Question: D. Yes or No? No\n\nE.Question: F. Yes or No?',
  );
});

test('FTICL training pieces: context = demonstrations + prompt, target = output; no zero-shot prefix', () => {
  const demonstrations = demonstrationsFor(task, pool, { kind: 'first-k', k: 1 });
  const [p] = trainingPieces(task, [q], { demonstrations, join: { separator: '\n\n', zeroShotPrefix: '<s> ' } });
  assert.equal(p.context,
    '### Input_1:\npremise 0\n### Input_2:\nhyp 0\n### Inference:entailment\n\n### Input_1:\nP\n### Input_2:\nH\n### Inference:');
  assert.equal(p.target, 'neutral');
  const [z] = trainingPieces(task, [q], { join: { separator: '\n\n', zeroShotPrefix: '<s> ' } });
  assert.equal(z.context, '### Input_1:\nP\n### Input_2:\nH\n### Inference:');
});
