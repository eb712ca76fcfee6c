import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Example } from '../../src/types.ts';
import {
  buildGenerateRequests, generationRecords, postprocessGeneration, studyBTask,
  type GenerateTaskSpec,
} from '../../src/tasks/index.ts';
import { isPythonSpace, pythonRstrip, pythonStrip } from '../../src/python-whitespace.ts';

const py = JSON.parse(readFileSync(fileURLToPath(new URL('./golden/python_whitespace.json', import.meta.url)), 'utf8')) as {
  isspace: number[]; cases: { s: string; strip: string; rstrip: string }[];
};

test('python whitespace: the same code points as CPython str.isspace()', () => {
  const ours: number[] = [];
  for (let c = 0; c < 0x10000; c++) if (isPythonSpace(String.fromCharCode(c))) ours.push(c);
  assert.deepEqual(ours, py.isspace);
});

test('python strip / rstrip equal CPython on the golden cases', () => {
  for (const c of py.cases) {
    assert.equal(pythonStrip(c.s), c.strip, JSON.stringify(c.s));
    assert.equal(pythonRstrip(c.s), c.rstrip, JSON.stringify(c.s));
  }
});

test('study B generate spec: 60 new tokens, no engine stop, strip then cut at the first blank line', () => {
  const task = studyBTask('summary', 1) as GenerateTaskSpec;
  assert.equal(task.kind, 'generate');
  assert.equal(task.maxNewTokens, 60);
  assert.deepEqual(task.stop, []);
  const ex: Example = { id: 'd', fields: { input: 'Text.' }, target: 'Ref.' };
  const [req] = buildGenerateRequests(task, [ex]);
  assert.deepEqual(req, { exampleId: 'd', prompt: '### Input:\nText.\n### Summary:', maxNewTokens: 60 });
  // generation.strip().split("\n\n")[0], as evaluate_cross.py + indicator_cross.py.
  assert.equal(postprocessGeneration('\n\n The sum.\nMore.\n\nNext ex', task.postprocess), 'The sum.\nMore.');
  assert.equal(postprocessGeneration('  one para  ', task.postprocess), 'one para');
  assert.equal(postprocessGeneration('\n\n\n', task.postprocess), '');
  assert.equal(postprocessGeneration('a \n\n b', task.postprocess), 'a ');
  const [rec] = generationRecords(task, [ex], [' The sum.\n\nX']);
  assert.deepEqual(rec, { id: 'd', raw: ' The sum.\n\nX', prediction: 'The sum.', reference: 'Ref.' });
});

test('postprocess without strip cuts at the earliest of several strings', () => {
  assert.equal(postprocessGeneration(' a. b\nc', { strip: 'none', cutAt: ['\n', '.'] }), ' a');
});

test('engine stop sequences are passed when the task has them', () => {
  const task: GenerateTaskSpec = { kind: 'generate', name: 'g', template: 'Q: {q}\nA:', maxNewTokens: 5, stop: ['\n'],
    postprocess: { strip: 'none', cutAt: [] } };
  const [req] = buildGenerateRequests(task, [{ id: '1', fields: { q: 'x' }, target: 'y' }]);
  assert.deepEqual(req.stop, ['\n']);
  assert.throws(() => buildGenerateRequests({ ...task, maxNewTokens: 0 }, []), /maxNewTokens must be a positive integer/);
  assert.throws(() => generationRecords({ ...task, targetField: 'out' }, [{ id: '1', fields: { q: 'x', out: 'y' } }], []),
    /got 0 generations for 1 examples/);
});

test('a missing target is a user error naming the example', () => {
  const task = studyBTask('question', 1);
  const ex: Example = { id: 'q1', fields: { input: 'c', answer: 'a' } };
  assert.throws(() => buildGenerateRequests(task as GenerateTaskSpec, [ex], { demonstrations: () => [ex] }), /example "q1" has no target/);
  const named = { ...task, targetField: 'output' } as GenerateTaskSpec;
  assert.throws(() => buildGenerateRequests(named, [ex], { demonstrations: () => [ex] }), /example "q1" has no field "output"/);
});
