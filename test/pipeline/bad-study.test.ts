// Study files with bad input, run as a user runs them (genstudy run, through main() as the bin runs it): one clear
// error that names the study file and the field, no stack trace, and nothing stored for a run that
// could not start (no `runs` row).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { genstudy } from '../support/genstudy-in-process.ts';

const study = (o: { hidden?: number; testSets?: string; data?: string; remote?: string; method?: string }): string => `name: bad
synthetic: { seed: 3, trainSize: 32, testSize: 6 }
models:
  - id: tiny
    init: { family: gpt2, layers: 1, hidden: ${o.hidden ?? 16}, heads: 2 }
training:
  - id: train-set
    data: ${o.data ?? 'synthetic'}
methods:
${o.method ?? `  - name: ft
    kind: ft
    lr: 0.01
    steps: 2
    batchSize: 8`}
checkpoints: { every: 2 }
evaluation:
  control: in-domain
  testSets: ${o.testSets ?? '[synthetic]'}
${o.remote ?? ''}`;

function writeStudy(text: string): { file: string; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-bad-study-'));
  const file = path.join(dir, 'bad.yaml');
  fs.writeFileSync(file, text);
  return { file, out: path.join(dir, 'bad') };
}

/** The runs rows of the study's store (none when no store was made). */
function runRows(out: string): unknown[] {
  const file = path.join(out, 'results.sqlite');
  if (!fs.existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT id FROM runs').all();
  } finally {
    db.close();
  }
}

function assertOneClearLine(stderr: string): void {
  assert.doesNotMatch(stderr, /RangeError|TypeError|^\s+at /m, stderr);
  assert.ok(stderr.length < 2000, `short: ${stderr.length} characters`);
}

test('a model too large to allocate (hidden: 100000) is a clear error naming the study file and field, before anything is stored', async () => {
  const { file, out } = writeStudy(study({ hidden: 100000 }));
  const r = await genstudy(['run', file]);
  assert.equal(r.code, 2, r.stderr);
  assertOneClearLine(r.stderr);
  assert.match(r.stderr,
    new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: models\\[0\\] "tiny" init \\(.*hidden 100000.*\\): .*more than one tensor can hold`));
  assert.deepEqual(runRows(out), []);
});

test('an unknown test set in a study file names the file and the field, not a --test-set flag', async () => {
  const { file, out } = writeStudy(study({ testSets: '[synthetic, nosuchset]' }));
  const r = await genstudy(['run', file]);
  assert.equal(r.code, 2, r.stderr);
  assertOneClearLine(r.stderr);
  assert.doesNotMatch(r.stderr, /--test-set/);
  assert.match(r.stderr, /bad\.yaml: evaluation\.testSets\[1\] "nosuchset": not a known data set id/);
  assert.deepEqual(runRows(out), []);
});

test('a study whose training data cannot be read leaves no runs row behind', async () => {
  const { file, out } = writeStudy(study({ data: 'missing.jsonl' }));
  const r = await genstudy(['run', file]);
  assert.equal(r.code, 2, r.stderr);
  assertOneClearLine(r.stderr);
  assert.match(r.stderr, /training set "train-set": .*missing\.jsonl/);
  assert.deepEqual(runRows(out), []);
});

test('evaluation.remote: the study file sets the servers, the timeout and the retries', async () => {
  // A base method: its model is evaluated as it is, through the (here absent) server.
  const { file } = writeStudy(
    study({ remote: '  remote: { urls: ["http://127.0.0.1:1"], retries: 0, timeout: 2 }\n', method: '  - name: base\n    kind: base' }));
  const r = await genstudy(['run', file]);
  assert.equal(r.code, 2, r.stderr);
  assertOneClearLine(r.stderr);
  assert.match(r.stderr, /gave up on GET \/v1\/models after 1 tries over http:\/\/127\.0\.0\.1:1; last: .*connection failed/);
  const bad = writeStudy(study({ remote: '  remote: { urls: ["localhost:8000"] }\n', method: '  - name: base\n    kind: base' }));
  const b = await genstudy(['run', bad.file]);
  assert.equal(b.code, 2, b.stderr);
  assert.match(b.stderr, /bad\.yaml: evaluation\.remote: localhost:8000: expected an http:\/\/ or https:\/\/ URL/);
});
