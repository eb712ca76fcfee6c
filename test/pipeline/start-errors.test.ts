// A study that cannot start says everything that is missing at once and leaves nothing behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { genstudy } from '../support/genstudy-in-process.ts';

test('every missing model is reported at once with its pull command and a word on gated models; no output folder is left', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-start-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const study = path.join(dir, 'study.yaml');
  fs.writeFileSync(study, `name: missing
synthetic: { seed: 1, trainSize: 20, testSize: 10 }
models:
  - { id: big, path: models/big, hub: org/big-7b, smaller: org/big-1b }
  - { id: other, path: models/other, hub: org/other }
  - { id: tiny, init: { family: gpt2, layers: 1, hidden: 16, heads: 2 } }
training: [{ id: synthetic, data: synthetic }]
methods: [{ name: ft, kind: ft, lr: 0.001, steps: 2 }]
evaluation: { control: in-domain, testSets: [synthetic] }
`);
  const r = await genstudy(['run', study]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /2 of 3 model\(s\) missing/);
  assert.match(r.stderr, new RegExp(/"big": .*models\/big has no config\.json\. Download: genstudy data pull org\/big-7b --repo-type model; /.source +
    /to try .* genstudy data pull org\/big-1b --repo-type model/.source));
  assert.match(r.stderr, /"other": .*Download: genstudy data pull org\/other --repo-type model/);
  assert.match(r.stderr, /HF_TOKEN/);
  assert.ok(!fs.existsSync(path.join(dir, 'missing')), 'no output folder after a failed start');

  // A failure after the output folder was made (an unknown control) removes what it made, and only that.
  const r2 = await genstudy(
    ['run', study, '--set', 'models=[{id: tiny, init: {family: gpt2, layers: 1, hidden: 16, heads: 2}}]', '--set', 'evaluation.control=nope',
    '--out', path.join(dir, 'out', 'nested')]);
  assert.equal(r2.code, 2, r2.stderr);
  assert.match(r2.stderr, /evaluation\.control "nope" is not among the test sets/);
  assert.ok(!fs.existsSync(path.join(dir, 'out')), 'the folders it made are gone');
  assert.ok(fs.existsSync(study));
});
