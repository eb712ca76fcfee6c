import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { parquetWriteFile } from 'hyparquet-writer';
import { readRows, formatOf } from '../../src/data/readers/index.ts';
import { tempDir, write, collect, userErrorOf } from './helpers.ts';

test('JSON array: records with the line each starts on', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'a.json', '[\n  {"a": "x,y]", "n": 1},\n  {"a": "say \\"}\\"",\n   "n": 2}\n]\n');
  const rows = await collect(readRows(file));
  assert.deepEqual(rows, [
    { index: 0, line: 2, values: { a: 'x,y]', n: 1 } },
    { index: 1, line: 3, values: { a: 'say "}"', n: 2 } },
  ]);
  assert.deepEqual(await collect(readRows(write(dir, 'empty.json', ' [ ] '))), []);
});

test('JSON array: bad JSON names file, line and column', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'bad.json', '[\n {"a": 1},\n {"a": 2,\n  "b": tru},\n {"a": 3}\n]');
  const msg = await userErrorOf(collect(readRows(file)));
  assert.match(msg, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:`));
  assert.match(msg, /invalid JSON in record 2/);
  const positioned = write(dir, 'bad2.json', '[{"a": 1}, {"a" 2}]');
  assert.match(await userErrorOf(collect(readRows(positioned))), /bad2\.json:1:17: invalid JSON in record 2: Expected ':'/);
});

test('JSON array: structural errors are named', async (t) => {
  const dir = tempDir(t);
  assert.match(await userErrorOf(collect(readRows(write(dir, 'n.json', '[{"a":1}, 5]')))), /n\.json:1: record 2 is a number, expected an object/);
  assert.match(await userErrorOf(collect(readRows(write(dir, 'u.json', '[{"a":1},\n{"a":2}')))), /u\.json:2: unexpected end of file .*expected "\]"/);
  assert.match(await userErrorOf(collect(readRows(write(dir, 'g.json', '[{"a":1}]\nx')))), /g\.json:2: unexpected text after/);
  assert.match(await userErrorOf(collect(readRows(write(dir, 'e.json', '')))), /e\.json:1: expected a JSON array/);
  assert.match(await userErrorOf(collect(readRows(write(dir, 'missing/x.json', '[]').replace('x.json', 'y.json')))), /y\.json: file not found/);
});

test('a .json file holding JSON Lines is read as JSON Lines', async (t) => {
  const dir = tempDir(t);
  const rows = await collect(readRows(write(dir, 'lines.json', '{"a":1}\n{"a":2}\n')));
  assert.deepEqual(rows.map((r) => [r.line, r.values.a]), [[1, 1], [2, 2]]);
});

test('JSON Lines: blank lines skipped, CRLF and BOM handled, gzip looked through', async (t) => {
  const dir = tempDir(t);
  const text = '\uFEFF{"a":"x"}\r\n\r\n{"a":"y"}\r\n';
  for (const file of [write(dir, 'a.jsonl', text), write(dir, 'a.jsonl.gz', gzipSync(Buffer.from(text)))]) {
    const rows = await collect(readRows(file));
    assert.deepEqual(rows, [
      { index: 0, line: 1, values: { a: 'x' } },
      { index: 1, line: 3, values: { a: 'y' } },
    ]);
  }
});

test('JSON Lines: bad JSON at line N, column C; non-objects rejected', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'b.jsonl', '{"a":1}\n{"a":1,}\n');
  assert.match(await userErrorOf(collect(readRows(file))), /b\.jsonl:2:8: invalid JSON: Expected double-quoted property name/);
  const tok = write(dir, 't.jsonl', '{"a":1}\n{"a":1}\n{"a": x}\n');
  assert.match(await userErrorOf(collect(readRows(tok))), /t\.jsonl:3:7: invalid JSON: Unexpected token 'x'/);
  assert.match(await userErrorOf(collect(readRows(write(dir, 'arr.jsonl', '[1,2]\n')))), /arr\.jsonl:1: line is an array, expected a JSON object/);
});

test('CSV: RFC 4180 quoting, fields spanning lines keep their starting line', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'a.csv', 'id,text,label\r\n1,"a, b",x\r\n2,"say ""hi""\r\nagain",y\r\n\r\n3,plain,z\r\n');
  const rows = await collect(readRows(file));
  assert.deepEqual(rows, [
    { index: 0, line: 2, values: { id: '1', text: 'a, b', label: 'x' } },
    { index: 1, line: 3, values: { id: '2', text: 'say "hi"\r\nagain', label: 'y' } },
    { index: 2, line: 6, values: { id: '3', text: 'plain', label: 'z' } },
  ]);
  const lf = write(dir, 'lf.csv', 'id,text\n1,"one\n\ntwo"\n2,x\n');
  assert.deepEqual((await collect(readRows(lf))).map((r) => r.line), [2, 5]);
});

test('CSV: ragged rows, bad quotes and duplicate headers are named', async (t) => {
  const dir = tempDir(t);
  const ragged = write(dir, 'r.csv', 'a,b,c\n1,2,3\n4,5\n');
  assert.match(await userErrorOf(collect(readRows(ragged))), /r\.csv:3: row has 2 fields, expected 3 as in the header \(ragged row\)/);
  const quote = write(dir, 'q.csv', 'a,b\n1,"x"y\n');
  assert.match(await userErrorOf(collect(readRows(quote))), /q\.csv:2: unexpected character after a closing quote/);
  const open = write(dir, 'o.csv', 'a,b\n1,"never closed\n2,3\n');
  assert.match(await userErrorOf(collect(readRows(open))), /o\.csv:\d+: a quoted field is never closed/);
  const dup = write(dir, 'd.csv', 'a,a\n1,2\n');
  assert.match(await userErrorOf(collect(readRows(dup))), /d\.csv:1: the header row names column "a" twice/);
});

test('TSV: GLUE style, no quoting, so bare quotes stay in the text', async (t) => {
  const dir = tempDir(t);
  const file = write(dir, 'g.tsv', 'index\tsentence1\tlabel\n0\t"Quoted" start and a "half\t1\n1\tcomma, here\t0\n');
  const rows = await collect(readRows(file));
  assert.deepEqual(rows.map((r) => [r.line, r.values.sentence1]), [[2, '"Quoted" start and a "half'], [3, 'comma, here']]);
  // The same file with quote: true is an error, as RFC 4180 would have it.
  assert.match(await userErrorOf(collect(readRows(file, { quote: true }))), /g\.tsv:2:/);
  const ragged = write(dir, 'r.tsv', 'a\tb\n1\n');
  assert.match(await userErrorOf(collect(readRows(ragged))), /r\.tsv:2: row has 1 fields, expected 2/);
});

test('parquet round trip: hyparquet reads what hyparquet-writer wrote, row group by row group', async (t) => {
  const dir = tempDir(t);
  const file = `${dir}/p.parquet`;
  const n = 25;
  parquetWriteFile({
    filename: file,
    rowGroupSize: 10,
    columnData: [
      { name: 'premise', data: Array.from({ length: n }, (_, k) => `premise ${k} é`), type: 'STRING' },
      { name: 'label', data: Int32Array.from({ length: n }, (_, k) => k % 3), type: 'INT32' },
      { name: 'idx', data: BigInt64Array.from({ length: n }, (_, k) => BigInt(k * 1000)), type: 'INT64' },
    ],
  });
  const rows = await collect(readRows(file));
  assert.equal(rows.length, n);
  assert.deepEqual(rows[13], { index: 13, values: { premise: 'premise 13 é', label: 1, idx: 13000n } });
  assert.deepEqual(rows.map((r) => r.index), Array.from({ length: n }, (_, k) => k));
  assert.match(await userErrorOf(collect(readRows(write(dir, 'bad.parquet', 'not parquet at all')))), /bad\.parquet: not a readable parquet file/);
});

test('format comes from the extension, looking through .gz', () => {
  assert.equal(formatOf('x/a.TSV'), 'tsv');
  assert.equal(formatOf('a.jsonl.gz'), 'jsonl');
  assert.throws(() => formatOf('a.txt'), /a\.txt: cannot tell the format/);
});
