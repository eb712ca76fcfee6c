// A data set named as `genstudy data inspect` takes it, through the data module (loadNamedDataSet):
// a spec file or a bare data file told apart by reading it once, and the task kind the spec's
// columns make (taskKindOf), which the command prints and no longer works out itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadNamedDataSet, taskKindOf, parseDataSetSpec } from '../../src/data/index.ts';
import { tempDir, userErrorOf, write } from './helpers.ts';

test('taskKindOf: a target column is generation, a label column classification, neither not known', () => {
  assert.equal(taskKindOf(parseDataSetSpec({ path: 'x.csv', target: 'summary' })), 'generate');
  assert.equal(taskKindOf(parseDataSetSpec({ path: 'x.csv', label: 'y' })), 'classify');
  assert.equal(taskKindOf(parseDataSetSpec({ path: 'x.csv' })), undefined);
});

test('a JSON spec, a JSON array and JSON Lines named .json: each told apart, a spec parsed once', async (t) => {
  const dir = tempDir(t);
  write(dir, 'rows.csv', 'id,text,y\n1,good,pos\n2,bad,neg\n');
  const specText = JSON.stringify({ name: 'reviews', path: 'rows.csv', id: 'id', label: 'y' });
  const spec = write(dir, 'spec.json', `\n  ${specText}`);
  const parse = JSON.parse;
  let parsedSpec = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (text.includes(specText)) parsedSpec++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  let fromSpec;
  try {
    fromSpec = await loadNamedDataSet(spec);
  } finally {
    JSON.parse = parse;
  }
  assert.equal(parsedSpec, 1, 'the spec file is parsed once');
  assert.deepEqual([fromSpec.name, fromSpec.task, fromSpec.examples.length, fromSpec.file], ['reviews', 'classify', 2, join(dir, 'rows.csv')]);

  const array = write(dir, 'array.json', JSON.stringify([{ text: 'a', summary: 'A' }, { text: 'b', summary: 'B' }]));
  const fromArray = await loadNamedDataSet(array);
  assert.deepEqual([fromArray.name, fromArray.task, fromArray.examples.length, fromArray.file], [array, undefined, 2, array]);

  // JSON Lines starts with "{" too, and an object without "path" or "hub" is data, read with --label's column.
  const lines = write(dir, 'lines.json', '{"text": "a", "y": "pos"}\n{"text": "b", "y": "neg"}\n');
  const fromLines = await loadNamedDataSet(lines, { label: 'y' });
  assert.deepEqual([fromLines.task, fromLines.examples.map((e) => e.label)], ['classify', ['pos', 'neg']]);

  const yaml = write(dir, 'gen.yaml', 'path: array.json\ntarget: summary\n');
  assert.equal((await loadNamedDataSet(yaml)).task, 'generate');
});

test('a JSON spec with a bad field is the spec\'s error, naming the file; a name that is nothing is said so', async (t) => {
  const dir = tempDir(t);
  const bad = write(dir, 'bad.json', JSON.stringify({ path: 'rows.csv', sample: { mode: 'first' } }));
  assert.match(await userErrorOf(loadNamedDataSet(bad)), /bad\.json: field "sample\.n"/);
  assert.equal(await userErrorOf(loadNamedDataSet(join(dir, 'missing.csv'))),
    `"${join(dir, 'missing.csv')}" is neither a registry id (see genstudy data list) nor an existing file`);
});
