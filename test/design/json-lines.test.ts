// JSON Lines are parsed in one place (src/json-text.ts): the data set reader, `metrics`' id/text
// files, `score`'s inputs and the synthetic suite's files name a bad line in the same words (they
// had three wordings: "invalid JSON: ...", "not valid JSON (...)" and "not valid JSON").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UserError } from '../../src/errors.ts';
import { readRows } from '../../src/data/index.ts';
import { readIdTextJsonl } from '../../src/metrics/idTextJsonl.ts';
import { readScorePairs } from '../../src/cli/score.ts';
import { generateSuite, readSuite, writeSuite } from '../../src/synth/index.ts';

async function messageOf(read: () => unknown): Promise<string> {
  try {
    await read();
  } catch (err) {
    assert.ok(err instanceof UserError, `not a UserError: ${String(err)}`);
    return err.message;
  }
  assert.fail('the bad line was read without an error');
}

const BAD_LINES: [string, RegExp][] = [
  ['{"id": "x", oops}', /^FILE:2:13: invalid JSON: /],
  ['[1, 2]', /^FILE:2: line is an array, expected a JSON object$/],
  ['7', /^FILE:2: line is a number, expected a JSON object$/],
];

test('every JSON-lines reader names a bad line in the same words', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-jsonl-'));
  const suiteDir = path.join(dir, 'suite');
  await writeSuite(suiteDir, generateSuite({ seed: 1, trainSize: 4, testSize: 2 }));
  const trainFile = path.join(suiteDir, 'train.jsonl');
  const firstTrainLine = fs.readFileSync(trainFile, 'utf8').split('\n')[0];
  const readers: [string, string, (file: string) => unknown][] = [
    ['data', '{"a": 1}', (file) => (async () => { for await (const _ of readRows(file)); })()],
    ['metrics', '{"id": 1, "text": "a"}', (file) => readIdTextJsonl(file)],
    ['score', '{"id": 1, "context": "a", "continuation": "b"}', (file) => readScorePairs(file)],
    ['synth', firstTrainLine, () => readSuite(suiteDir)],
  ];
  let checked = 0;
  for (const [badLine, wording] of BAD_LINES) {
    for (const [name, goodLine, read] of readers) {
      const file = name === 'synth' ? trainFile : path.join(dir, `${name}.jsonl`);
      fs.writeFileSync(file, `${goodLine}\n${badLine}\n`);
      const message = await messageOf(() => read(file));
      const expected = new RegExp(wording.source.replace('FILE', file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.match(message, expected, `${name} reader`);
      checked++;
    }
  }
  assert.equal(checked, BAD_LINES.length * readers.length);
});
