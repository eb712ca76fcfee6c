// genstudy score, run as a user would (its command line through main(), as bin/genstudy.js runs it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readScorePairs } from '../../src/cli/score.ts';
import { UserError } from '../../src/errors.ts';
import { goldenDir, NO_SHARED, readJsonl } from './helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

test('score --format jsonl and json print the golden log-likelihoods', async (t) => {
  const dir = goldenDir('llama');
  if (!dir) return t.skip(NO_SHARED);
  const input = path.join(dir, 'pairs.jsonl');
  const expected = readJsonl<{ id: string; logprob: number; tokens: number; is_greedy: boolean }>(path.join(dir, 'expected.jsonl'));
  const lines = await genstudy(['score', '--model', dir, '--input', input, '--format', 'jsonl']);
  assert.equal(lines.code, 0, lines.stderr);
  const rows = lines.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(rows.length, expected.length);
  rows.forEach((r, i) => {
    assert.equal(r.id, expected[i].id);
    assert.equal(r.tokens, expected[i].tokens);
    assert.equal(r.is_greedy, expected[i].is_greedy);
    assert.ok(Math.abs(r.logprob - expected[i].logprob) < 1e-4);
  });
  const doc = await genstudy(['score', '--model', dir, '--input', input, '--format', 'json', '--batch-tokens', '64']);
  assert.equal(doc.code, 0, doc.stderr);
  const parsed = JSON.parse(doc.stdout);
  assert.match(parsed.id, /^sha256:/);
  assert.deepEqual(parsed.results.map((r: { id: string }) => r.id), expected.map((e) => e.id));
  parsed.results.forEach((r: { logprob: number }, i: number) => assert.ok(Math.abs(r.logprob - rows[i].logprob) < 1e-5));
});

test('bad input lines are reported as file:line with what was expected', async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-score-cli-'));
  const cases: [string, string[]][] = [
    ['{"id": 1, "context": "a", "continuation": "b"}\n\n{"id": 2, "context": "a"', [':3:25', 'invalid JSON: ']],
    ['{"id": 1, "context": "a", "continuation": 5}\n', [':1', '"continuation"', 'string']],
    ['[1, 2]\n', [':1', 'line is an array, expected a JSON object']],
    ['{"id": null, "context": "a", "continuation": "b"}\n{"id": {}, "context": "a", "continuation": "b"}\n', [':2', '"id"']],
  ];
  for (const [i, [text, parts]] of cases.entries()) {
    const file = path.join(tmp, `bad${i}.jsonl`);
    fs.writeFileSync(file, text);
    assert.throws(() => readScorePairs(file), (e: Error) => {
      assert.ok(e instanceof UserError);
      for (const p of [file, ...parts]) assert.ok(e.message.includes(p), `${e.message} should mention ${p}`);
      return true;
    });
  }
  // The command prints such errors as one line and exits with 2.
  const dir = goldenDir('gpt2');
  if (!dir) return t.skip(NO_SHARED);
  const r = await genstudy(['score', '--model', dir, '--input', path.join(tmp, 'bad1.jsonl')]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^genstudy: .*bad1\.jsonl:1: field "continuation" must be a string/);
  assert.equal(r.stderr.trim().split('\n').length, 1);
});

test('a model folder without config.json is a one-line error', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-score-cli-'));
  const good = path.join(tmp, 'good.jsonl');
  fs.writeFileSync(good, '{"id": 1, "context": "a", "continuation": "b"}\n');
  const missing = await genstudy(['score', '--model', path.join(tmp, 'nope'), '--input', good]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope: no such folder/);
  assert.equal(missing.stderr.trim().split('\n').length, 1);
});
