import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UserError } from '../../src/errors.ts';
import { joinById, parseIdTextJsonl, readIdTextJsonl } from '../../src/metrics/idTextJsonl.ts';

const userError = (pattern: RegExp) => (err: unknown) => err instanceof UserError && pattern.test(err.message);

test('parses id/text lines, skipping blank lines and keeping 1-based line numbers', () => {
  const records = parseIdTextJsonl('{"id": "a", "text": "x"}\n\n{"id": 7, "text": ""}\n', 'p.jsonl');
  assert.deepEqual(records, [
    { id: 'a', text: 'x', line: 1 },
    { id: 7, text: '', line: 3 },
  ]);
});

test('malformed lines name the file, the line and the field', () => {
  assert.throws(() => parseIdTextJsonl('{"id": 1, "text": "a"}\n{oops', 'p.jsonl'), userError(/^p\.jsonl:2:2: invalid JSON: /));
  assert.throws(() => parseIdTextJsonl('[1, 2]', 'p.jsonl'), userError(/^p\.jsonl:1: line is an array, expected a JSON object/));
  assert.throws(() => parseIdTextJsonl('{"text": "a"}', 'p.jsonl'),
    userError(/^p\.jsonl:1 \(column "id"\): expected a string or number, got nothing/));
  assert.throws(() => parseIdTextJsonl('{"id": 1, "text": 5}', 'p.jsonl'),
    userError(/^p\.jsonl:1 \(column "text"\): expected a string, got number 5/));
  assert.throws(() => parseIdTextJsonl('{"id": 1, "text": "a"}\n{"id": "1", "text": "b"}', 'p.jsonl'),
    userError(/^p\.jsonl:2 \(column "id"\): id "1" already appears on line 1/));
});

test('joins by id in prediction order; a missing or extra id names the file and line', () => {
  const predictions = parseIdTextJsonl('{"id": 2, "text": "b"}\n{"id": "1", "text": "a"}', 'p.jsonl');
  const references = parseIdTextJsonl('{"id": 1, "text": "A"}\n{"id": 2, "text": "B"}', 'r.jsonl');
  assert.deepEqual(joinById(predictions, references, 'p.jsonl', 'r.jsonl'), [
    { id: 2, prediction: 'b', reference: 'B' },
    { id: '1', prediction: 'a', reference: 'A' },
  ]);
  const extraReference = parseIdTextJsonl('{"id": 1, "text": "A"}\n{"id": 2, "text": "B"}\n{"id": "z", "text": "C"}', 'r.jsonl');
  assert.throws(() => joinById(predictions, extraReference, 'p.jsonl', 'r.jsonl'),
    userError(/^r\.jsonl:3 \(column "id"\): id "z" has no prediction in p\.jsonl/));
  const missingReference = parseIdTextJsonl('{"id": 2, "text": "B"}', 'r.jsonl');
  assert.throws(() => joinById(predictions, missingReference, 'p.jsonl', 'r.jsonl'),
    userError(/^p\.jsonl:2 \(column "id"\): id "1" has no reference in r\.jsonl/));
  assert.throws(() => joinById([], [], 'p.jsonl', 'r.jsonl'), userError(/^p\.jsonl: no predictions/));
});

test('an unreadable file is a UserError naming it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'genstudy-metrics-'));
  const missing = path.join(dir, 'nope.jsonl');
  await assert.rejects(readIdTextJsonl(missing), userError(/nope\.jsonl: cannot read \(ENOENT\)/));
  const file = path.join(dir, 'ok.jsonl');
  writeFileSync(file, '{"id": "x", "text": "hello"}\n');
  assert.deepEqual(await readIdTextJsonl(file), [{ id: 'x', text: 'hello', line: 1 }]);
});
