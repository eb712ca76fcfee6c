import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateSuite, readSuite, writeSuite } from '../../src/synth/index.ts';
import { UserError } from '../../src/errors.ts';

async function withDirs(n: number, f: (dirs: string[]) => Promise<void>): Promise<void> {
  const dirs = await Promise.all(Array.from({ length: n }, () => mkdtemp(path.join(tmpdir(), 'genstudy-synth-'))));
  try { await f(dirs); } finally { await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))); }
}

test('writeSuite writes JSONL per set, the manifest and tokenizer files; same seed gives identical bytes', async () => {
  await withDirs(3, async ([a, b, c]) => {
    const opts = { seed: 9, trainSize: 300, testSize: 100 };
    await writeSuite(a, generateSuite(opts));
    await writeSuite(b, generateSuite(opts));
    await writeSuite(c, generateSuite({ ...opts, seed: 10 }));
    const names = (await readdir(a)).sort();
    assert.deepEqual(names, [
      'in-domain.jsonl', 'negation-broken.jsonl', 'negation-consistent-renamed.jsonl', 'negation-consistent.jsonl', 'overlap-broken.jsonl',
      'overlap-consistent.jsonl', 'suite.json', 'tokenizer.json',
      'tokenizer_config.json', 'train.jsonl', 'vocabulary-shift.jsonl',
    ]);
    for (const name of names) assert.ok((await readFile(path.join(a, name))).equals(await readFile(path.join(b, name))), name);
    assert.ok(!(await readFile(path.join(a, 'train.jsonl'))).equals(await readFile(path.join(c, 'train.jsonl'))));
    const first = JSON.parse((await readFile(path.join(a, 'train.jsonl'), 'utf8')).split('\n')[0]);
    assert.deepEqual(Object.keys(first), ['id', 'premise', 'hypothesis', 'label']);
  });
});

test('readSuite reads back what writeSuite wrote', async () => {
  await withDirs(1, async ([dir]) => {
    const suite = generateSuite({ seed: 4, trainSize: 200, testSize: 60 });
    await writeSuite(path.join(dir, 'nested', 'suite'), suite);
    const back = await readSuite(path.join(dir, 'nested', 'suite'));
    assert.deepEqual(back.train, suite.train);
    for (const s of suite.testSets) assert.deepEqual(back.testSets[s.id], s.examples);
    assert.equal(back.manifest.seed, 4);
    assert.deepEqual(back.manifest.vocabulary, suite.vocabulary);
  });
});

test('readSuite: a missing manifest or a bad row is a user error naming the file and line', async () => {
  await withDirs(1, async ([dir]) => {
    await assert.rejects(readSuite(dir), (e: unknown) => e instanceof UserError && /suite\.json/.test(e.message));
    await writeSuite(dir, generateSuite({ seed: 4, trainSize: 20, testSize: 10 }));
    await writeFile(path.join(dir, 'train.jsonl'), '{"id":"a","premise":"p","hypothesis":"h","label":"Yes"}\n{"id":"b"}\n');
    await assert.rejects(readSuite(dir), /train\.jsonl:2: field "premise" is missing/);
  });
});
