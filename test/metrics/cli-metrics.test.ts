import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { meanRougeScores, ROUGE_TYPES, rougeScore } from '../../src/metrics/rouge.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'genstudy-metrics-cli-'));
const predictions = path.join(dir, 'pred.jsonl');
const references = path.join(dir, 'ref.jsonl');
const PAIRS = [
  { id: 'b', prediction: 'The cats were running home.', reference: 'A cat runs home\nquickly, as cats do.' },
  { id: 'a', prediction: 'Paris is the capital.', reference: 'The capital of France is Paris.' },
  { id: 3, prediction: '', reference: 'nothing predicted' },
];
writeFileSync(predictions, PAIRS.map((p) => JSON.stringify({ id: p.id, text: p.prediction })).join('\n') + '\n');
// References in another order: the join is by id.
writeFileSync(references, [...PAIRS].reverse().map((p) => JSON.stringify({ id: p.id, text: p.reference })).join('\n') + '\n');

test('metrics rouge --format json prints per-pair and mean scores equal to the library, with and without --stemmer', async () => {
  for (const stemmer of [false, true]) {
    const { code, stdout, stderr } = await genstudy([
      'metrics', 'rouge', '--predictions', predictions, '--references', references, '--format', 'json',
      ...(stemmer ? ['--stemmer'] : []),
    ]);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout);
    assert.deepEqual(Object.keys(report), ['pairs', 'mean']);
    const expected = PAIRS.map((p) => ({ id: p.id, ...rougeScore(p.prediction, p.reference, { stemmer }) }));
    assert.deepEqual(report.pairs, expected);
    assert.deepEqual(report.mean, meanRougeScores(expected));
    assert.deepEqual(Object.keys(report.pairs[0]), ['id', ...ROUGE_TYPES]);
  }
  // The stemmer must matter on this data (cats/cat, running/runs), or the flag is not reaching the scorer.
  assert.notDeepEqual(rougeScore(PAIRS[0].prediction, PAIRS[0].reference, { stemmer: true }).rouge1,
    rougeScore(PAIRS[0].prediction, PAIRS[0].reference).rouge1);
});

test('metrics rouge --format table prints one row per pair and the means', async () => {
  const { code, stdout, stderr } = await genstudy(
    ['metrics', 'rouge', '--predictions', predictions, '--references', references, '--format', 'table']);
  assert.equal(code, 0, stderr);
  for (const id of ['a', 'b', '3']) assert.match(stdout, new RegExp(`^${id}\\s`, 'm'));
  assert.match(stdout, /mean over 3 pairs/);
  const mean = meanRougeScores(PAIRS.map((p) => rougeScore(p.prediction, p.reference)));
  assert.match(stdout,
    new RegExp(`^rougeLsum\\s+${mean.rougeLsum.p.toFixed(4)}\\s+${mean.rougeLsum.r.toFixed(4)}\\s+${mean.rougeLsum.f.toFixed(4)}$`, 'm'));
});

test('metrics rouge: an id missing from the references is a clear error with exit code 2', async () => {
  const partial = path.join(dir, 'partial.jsonl');
  writeFileSync(partial, JSON.stringify({ id: 'a', text: 'x' }) + '\n' + JSON.stringify({ id: 'b', text: 'y' }) + '\n');
  const { code, stdout, stderr } = await genstudy(['metrics', 'rouge', '--predictions', predictions, '--references', partial]);
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.equal(stderr.trim(), `genstudy: ${predictions}:3 (column "id"): id 3 has no reference in ${partial}`);
});
