import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataSet, readSpecFile } from '../../src/data/load.ts';
import { parseDataSetSpec } from '../../src/data/spec.ts';
import { tempDir, write, userErrorOf } from './helpers.ts';

const NLI = [
  { id: 'a', s1: 'p1', s2: 'h1', gold: 'entailment' },
  { id: 'b', s1: 'p2', s2: 'h2', gold: 'neutral' },
  { id: 'c', s1: 'p3', s2: 'h3', gold: 'contradiction' },
  { id: 'd', s1: 'p4', s2: 'h4', gold: 'entailment' },
  { id: 'e', s1: 'p5', s2: 'h5', gold: '-' },
];
const jsonl = (rows: object[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const binary = {
  fields: { premise: 's1', hypothesis: 's2' },
  label: 'gold',
  labels: { entailment: 'Yes', contradiction: 'No' },
  dropLabels: ['neutral', '-'],
  id: 'id',
};

test('fields are renamed, labels mapped, dropped rows counted by reason', async (t) => {
  const dir = tempDir(t);
  write(dir, 'nli.jsonl', jsonl(NLI));
  const got = await loadDataSet({ path: 'nli.jsonl', ...binary }, { baseDir: dir });
  assert.deepEqual(got.examples, [
    { id: 'a', fields: { premise: 'p1', hypothesis: 'h1' }, label: 'Yes' },
    { id: 'c', fields: { premise: 'p3', hypothesis: 'h3' }, label: 'No' },
    { id: 'd', fields: { premise: 'p4', hypothesis: 'h4' }, label: 'Yes' },
  ]);
  assert.deepEqual(got.dropped, [
    { reason: 'label "neutral" is in dropLabels', count: 1 },
    { reason: 'label "-" is in dropLabels', count: 1 },
  ]);
  assert.equal(got.rowsRead, 5);
  assert.equal(got.source, join(dir, 'nli.jsonl'));
  assert.match(got.contentHash, /^[0-9a-f]{64}$/);
});

test('the content hash follows the examples: same content, same hash; a changed row, a new hash', async (t) => {
  const dir = tempDir(t);
  const a = write(dir, 'a.jsonl', jsonl(NLI));
  // The same examples from a CSV with the columns in another order.
  const b = write(dir, 'b.csv', 'gold,s2,s1,id\n' + NLI.map((r) => `${r.gold},${r.s2},${r.s1},${r.id}`).join('\n') + '\n');
  const ha = (await loadDataSet({ path: a, ...binary })).contentHash;
  assert.equal((await loadDataSet({ path: b, ...binary })).contentHash, ha);
  writeFileSync(a, jsonl(NLI.map((r) => (r.id === 'd' ? { ...r, s2: 'changed' } : r))));
  assert.notEqual((await loadDataSet({ path: a, ...binary })).contentHash, ha);
});

test('unknown label: an error naming file, line and field, unless unknownLabels is drop', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'x.jsonl', jsonl([NLI[0], { id: 'z', s1: 'p', s2: 'h', gold: 'maybe' }]));
  const msg = await userErrorOf(loadDataSet({ path: file, ...binary, dropLabels: ['neutral'] }));
  assert.equal(
    msg,
    `${file}:2, field "gold": unknown label "maybe"; expected one of "entailment", "contradiction", "neutral (dropped)" ` +
      '(add it to "labels" or "dropLabels", or set unknownLabels: drop)',
  );
  const got = await loadDataSet({ path: file, ...binary, unknownLabels: 'drop' });
  assert.deepEqual(got.dropped, [{ reason: 'label "maybe" is not in labels (unknownLabels: drop)', count: 1 }]);
});

test('missing field: names file, line and field, and lists what the row has', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'm.json', JSON.stringify([NLI[0], { id: 'q', s1: 'p', gold: 'entailment' }], null, 2));
  const msg = await userErrorOf(loadDataSet({ path: file, ...binary }));
  assert.equal(msg, `${file}:8, field "s2": missing field: "s2" is missing (the row has "id", "s1", "gold"); expected text`);
  const nested = write(dir, 'n.jsonl', jsonl([{ id: 'a', s1: { x: 1 }, s2: 'h', gold: 'entailment' }]));
  assert.match(await userErrorOf(loadDataSet({ path: nested, ...binary })), /n\.jsonl:1, field "s1": field "s1" is an object, expected text/);
});

test('empty set after mapping: an error naming the file and why every row went', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'e.jsonl', jsonl([NLI[1], NLI[4]]));
  assert.equal(
    await userErrorOf(loadDataSet({ path: file, ...binary })),
    `${file}: empty set after mapping: all 2 rows were dropped (1 label "neutral" is in dropLabels; 1 label "-" is in dropLabels)`,
  );
  assert.match(await userErrorOf(loadDataSet({ path: write(dir, 'none.json', '[]') })), /none\.json: the file has no records/);
});

test('duplicate ids are an error naming both lines', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'd.jsonl', jsonl([NLI[0], NLI[2], { ...NLI[3], id: 'a' }]));
  assert.match(await userErrorOf(loadDataSet({ path: file, ...binary })), /d\.jsonl:3: duplicate id "a" in field "id" \(first seen at line 1\)/);
});

test('labelNames turn integer class codes into names before the label map (a hub ClassLabel)', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'c.jsonl', jsonl([{ p: 'x', label: 0 }, { p: 'y', label: 1 }, { p: 'z', label: 2 }, { p: 'w', label: -1 }]));
  const got = await loadDataSet({
    path: file,
    label: 'label',
    labelNames: ['entailment', 'neutral', 'contradiction'],
    labels: { entailment: 'Yes', contradiction: 'No' },
    dropLabels: ['neutral', '-1'],
  });
  assert.deepEqual(got.examples.map((e) => [e.id, e.fields, e.label]), [['0', { p: 'x' }, 'Yes'], ['2', { p: 'z' }, 'No']]);
  assert.deepEqual(got.dropped.map((d) => d.count), [1, 1]);
});

test('without a field map every other column is a field; target for generation tasks', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'g.json', JSON.stringify([{ idx: 7, input: 'long text', answer: 'a', output: 'summary', n: 3, tags: ['x'] }]));
  const got = await loadDataSet({ path: file, target: 'output', id: 'idx' });
  assert.deepEqual(got.examples, [{ id: '7', fields: { input: 'long text', answer: 'a', n: '3' }, target: 'summary' }]);
});

test('sampling: first n, n at random (seeded, in file order), n per class', async (t) => {
  const dir = tempDir(t);
  const rows = Array.from({ length: 40 }, (_, k) => ({ text: `t${k}`, y: k % 4 === 0 ? 'a' : 'b' }));
  const file = write(dir, 's.jsonl', jsonl(rows));
  const first = await loadDataSet({ path: file, label: 'y', sample: { mode: 'first', n: 3 } });
  assert.deepEqual(first.examples.map((e) => e.id), ['0', '1', '2']);
  assert.deepEqual(first.dropped, [{ reason: 'not sampled (first 3)', count: 37 }]);

  const r1 = await loadDataSet({ path: file, label: 'y', sample: { mode: 'random', n: 8, seed: 1 } });
  const r1again = await loadDataSet({ path: file, label: 'y', sample: { mode: 'random', n: 8, seed: 1 } });
  const r2 = await loadDataSet({ path: file, label: 'y', sample: { mode: 'random', n: 8, seed: 2 } });
  const ids = (x: typeof r1) => x.examples.map((e) => Number(e.id));
  assert.deepEqual(ids(r1), ids(r1again));
  assert.notDeepEqual(ids(r1), ids(r2));
  assert.equal(new Set(ids(r1)).size, 8);
  assert.deepEqual(ids(r1), [...ids(r1)].sort((a, b) => a - b));
  assert.equal(r1.contentHash, r1again.contentHash);

  const pc = await loadDataSet({ path: file, label: 'y', sample: { mode: 'perClass', n: 5, seed: 3 } });
  const counts: Record<string, number> = {};
  for (const e of pc.examples) counts[e.label!] = (counts[e.label!] ?? 0) + 1;
  assert.deepEqual(counts, { a: 5, b: 5 });
  assert.match(
    await userErrorOf(loadDataSet({ path: file, label: 'y', sample: { mode: 'perClass', n: 11, seed: 3 } })),
    /s\.jsonl: sample perClass 11: label "a" has only 10 rows/,
  );
});

test('spec errors name the field and what was expected', async (t) => {
  assert.throws(() => parseDataSetSpec({ fields: { a: 'b' } }), /data set spec: top level: give exactly one of "path".*or "hub"/);
  assert.throws(() => parseDataSetSpec({ path: 'x.json', sample: { mode: 'some', n: 3 } }), /field "sample\.mode"/);
  assert.throws(() => parseDataSetSpec({ path: 'x.json', lables: {} }), /unknown key "lables"/);
  assert.throws(() => parseDataSetSpec({ path: 'x.json', labels: { a: 'b' } }), /"labels", "labelNames" and "dropLabels" need a "label" column/);
  assert.throws(() => parseDataSetSpec({ hub: { repo: 'a/b', file: 'f.parquet', sha256: 'xyz' } }),
    /field "hub\.sha256": expected 64 lowercase hex digits/);
  const dir = tempDir(t);
  const spec = write(dir, 'spec.yaml', 'path: data/x.jsonl\nlabel: gold\nlabels:\n  entailment: Yes\n  contradiction: No\ndropLabels: [neutral, ' +
    '"-"]\nid: id\nfields:\n  premise: s1\n  hypothesis: s2\n');
  write(dir, 'data/x.jsonl', jsonl(NLI));
  const { spec: parsed, baseDir } = await readSpecFile(spec);
  const got = await loadDataSet(parsed, { baseDir });
  assert.deepEqual(got.examples.map((e) => e.label), ['Yes', 'No', 'Yes']);
  const bad = write(dir, 'bad.yaml', 'path: x.jsonl\nsample: {mode: first}\n');
  await assert.rejects(readSpecFile(bad), /bad\.yaml: field "sample\.n": expected number, received undefined/);
});
