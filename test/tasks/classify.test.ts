import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Example } from '../../src/types.ts';
import { UserError } from '../../src/errors.ts';
import {
  argmax, buildFirstTokenRequests, buildFullWordRequests, firstTokenRecords, fullWordRecords,
  moveTrailingWhitespace, studyATask, studyBTask, type ClassifyTaskSpec,
} from '../../src/tasks/index.ts';

const nli: Example[] = [
  { id: 'e1', fields: { premise: 'A dog runs.', hypothesis: 'An animal runs.' }, label: 'Yes' },
  { id: 'e2', fields: { premise: 'A cat sleeps.', hypothesis: 'A cat runs.' }, label: 'No' },
];

test('study A: the leading space lives on the label word, none after the premise', () => {
  const [r] = buildFirstTokenRequests(studyATask(), nli);
  assert.equal(r.context, 'A dog runs.Question: An animal runs. Yes or No?');
  assert.deepEqual(r.candidates, [' Yes', ' No']);
  assert.equal(r.context + r.candidates[0], 'A dog runs.Question: An animal runs. Yes or No? Yes');
});

test('study B: label words follow the prompt with no space', () => {
  const task = studyBTask('sentiment', 1) as ClassifyTaskSpec;
  const [r] = buildFirstTokenRequests(task, [{ id: 's', fields: { input: 'Nice.' }, label: 'positive' }]);
  assert.equal(r.context, '### Input:\nNice.\n### Sentiment:');
  assert.deepEqual(r.candidates, ['positive', 'negative']);
  const nliTask = studyBTask('inference', 2) as ClassifyTaskSpec;
  const [q] = buildFirstTokenRequests(nliTask, [{ id: 'i', fields: { input_1: 'P', input_2: 'H' }, label: 'neutral' }]);
  // Prompt-2 ends in a space; first-token requests keep it where the template put it.
  assert.equal(q.context, 'Consider the following texts: Text 1:P\nText 2:H\nThe relation is ');
  assert.deepEqual(q.candidates, ['entailment', 'neutral', 'contradiction']);
});

test('full-word requests: example-major, one per label, context as rendered', () => {
  const reqs = buildFullWordRequests(studyATask('full-word'), nli);
  assert.deepEqual(reqs.map((r) => [r.exampleId, r.label, r.continuation]), [
    ['e1', 'Yes', ' Yes'], ['e1', 'No', ' No'], ['e2', 'Yes', ' Yes'], ['e2', 'No', ' No'],
  ]);
  assert.equal(reqs[2].context, 'A cat sleeps.Question: A cat runs. Yes or No?');
});

test('engine side: trailing whitespace of the context moves onto the continuation (lm-eval)', () => {
  assert.deepEqual(moveTrailingWhitespace({ context: 'The relation is ', continuation: 'entailment' }),
    { context: 'The relation is', continuation: ' entailment' });
  assert.deepEqual(moveTrailingWhitespace({ context: 'a \n\t', continuation: 'b' }), { context: 'a', continuation: ' \n\tb' });
  assert.deepEqual(moveTrailingWhitespace({ context: 'No?', continuation: ' Yes' }), { context: 'No?', continuation: ' Yes' });
});

test('first-token records: argmax over labels, gold, correctness, per-label log-probs', () => {
  const recs = firstTokenRecords(studyATask(), nli, [[-0.1, -2.5], [-0.3, -0.2]]);
  assert.deepEqual(recs[0], { id: 'e1', scoring: 'first-token', prediction: 'Yes', gold: 'Yes', correct: true, logprobs: { Yes: -0.1, No: -2.5 } });
  assert.equal(recs[1].prediction, 'No');
  assert.equal(recs[1].correct, true);
});

test('ties go to the first label; NaN never wins', () => {
  assert.equal(argmax([-1, -1]), 0);
  assert.equal(argmax([NaN, -3, -2]), 2);
  assert.throws(() => argmax([NaN]), UserError);
});

test('full-word records: acc by summed log-prob, acc_norm by log-prob per character of the label word', () => {
  const task: ClassifyTaskSpec = {
    kind: 'classify', name: 'norm', template: '{q}', labels: ['a', 'b'], verbalizer: { a: 'ab', b: 'abcdef' },
    targetDelimiter: ' ', scoring: 'full-word',
  };
  const ex: Example[] = [{ id: 'x', fields: { q: 'Q:' }, label: 'b' }];
  const reqs = buildFullWordRequests(task, ex);
  assert.deepEqual(reqs.map((r) => r.continuation), [' ab', ' abcdef']);
  // -3 vs -5: acc picks a; per character (len without the delimiter, as lm-eval's len(choice)): -1.5 vs -0.833 picks b.
  const [r] = fullWordRecords(task, ex, [{ logprob: -3, tokens: 1, isGreedy: false }, { logprob: -5, tokens: 3, isGreedy: false }]);
  assert.equal(r.prediction, 'a');
  assert.equal(r.correct, false);
  assert.equal(r.predictionNorm, 'b');
  assert.equal(r.correctNorm, true);
});

test('acc_norm divides by the word without its leading space, whether the task writes the space in targetDelimiter or in the word', () => {
  const spaced = (delimiter: string, yes: string, no: string): ClassifyTaskSpec => ({
    kind: 'classify', name: 'nli', template: '{q}', labels: ['Yes', 'No'], verbalizer: { Yes: yes, No: no }, targetDelimiter: delimiter,
    scoring: 'full-word',
  });
  const ex: Example[] = [{ id: 'x', fields: { q: 'Q?', premise: 'P.', hypothesis: 'H' }, label: 'Yes' }];
  // lm-eval: -3.5 / len("Yes") = -1.167 beats -2.5 / len("No") = -1.25; dividing by " Yes" / " No" (4, 3) would pick No.
  const answers = [{ logprob: -3.5, tokens: 1, isGreedy: false }, { logprob: -2.5, tokens: 1, isGreedy: false }];
  for (const task of [spaced(' ', 'Yes', 'No'), spaced('', ' Yes', ' No'), studyATask('full-word')]) {
    assert.deepEqual(buildFullWordRequests(task, ex).map((r) => r.continuation), [' Yes', ' No']);
    const [r] = fullWordRecords(task, ex, answers);
    assert.equal(r.prediction, 'No');
    assert.equal(r.predictionNorm, 'Yes', JSON.stringify(task.verbalizer));
  }
});

test('answers of the wrong shape and unknown gold labels are user errors', () => {
  assert.throws(() => firstTokenRecords(studyATask(), nli, [[0, 0]]), /got 1 first-token answers for 2 examples/);
  assert.throws(() => firstTokenRecords(studyATask(), nli, [[0], [0]]), /has 1 scores, expected 2/);
  assert.throws(() => fullWordRecords(studyATask(), nli, []), /expected 2 examples x 2 labels = 4/);
  const bad: Example[] = [{ id: 'z', fields: { premise: 'p', hypothesis: 'h' }, label: 'entailment' }];
  assert.throws(() => firstTokenRecords(studyATask(), bad, [[0, 0]]), /label "entailment" \(example "z"\) is not in the verbalizer/);
});

test('an unlabelled example gets a prediction and no gold', () => {
  const [r] = firstTokenRecords(studyATask(), [{ id: 'u', fields: { premise: 'p', hypothesis: 'h' } }], [[-2, -1]]);
  assert.equal(r.prediction, 'No');
  assert.equal(r.gold, undefined);
  assert.equal(r.correct, undefined);
});

test('bad task specs are rejected with the task named', () => {
  const base = studyATask();
  assert.throws(() => buildFirstTokenRequests({ ...base, labels: ['Yes'] }, nli), /task "study-a\/pattern": labels needs at least two/);
  assert.throws(() => buildFirstTokenRequests({ ...base, verbalizer: { Yes: ' Yes' } }, nli), /no word for label "No"/);
  assert.throws(() => buildFirstTokenRequests({ ...base, verbalizer: { Yes: ' Y', No: ' Y' } }, nli), /share the same verbalizer word/);
});
