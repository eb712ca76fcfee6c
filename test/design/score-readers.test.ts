// A folder format is its reader module (a FolderReader record, analyze/folder-reader.ts) and one line
// of analyze/folder-readers.ts: the folder listing, the dispatch, the inputs' help (SCORE_INPUTS)
// and the error for a folder of none of them are made from that list. This test fails when a
// module declares a reader the list lacks, when a derived list leaves a reader out, and when the
// listing or the dispatch name a format's files again (a second place to edit).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FOLDER_READERS } from '../../src/analyze/folder-readers.ts';
import type { FolderReader } from '../../src/analyze/folder-reader.ts';
import { readScoreInput, SCORE_INPUTS } from '../../src/analyze/read-scores.ts';
import { listScoreFolder } from '../../src/analyze/score-folder.ts';
import { tempDir } from '../analyze/helpers.ts';

const analyze = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/analyze');

/** Every FolderReader record a module of analyze/ exports, by module. */
async function declaredReaders(): Promise<{ module: string; name: string; reader: FolderReader }[]> {
  const out: { module: string; name: string; reader: FolderReader }[] = [];
  for (const file of fs.readdirSync(analyze).filter((f) => f.endsWith('.ts'))) {
    const text = fs.readFileSync(path.join(analyze, file), 'utf8');
    for (const m of text.matchAll(/export const (\w+)\s*:\s*FolderReader\b/g)) {
      const mod = (await import(path.join(analyze, file))) as Record<string, FolderReader>;
      out.push({ module: file, name: m[1], reader: mod[m[1]] });
    }
  }
  return out;
}

test('every FolderReader a module declares is in FOLDER_READERS, once, under a name of its own', async () => {
  const declared = await declaredReaders();
  assert.ok(declared.length >= 2, `the readers are found (${declared.map((d) => d.name).join(', ')})`);
  for (const d of declared) assert.ok(FOLDER_READERS.includes(d.reader), `${d.module}: ${d.name} is not listed in folder-readers.ts`);
  assert.equal(new Set(FOLDER_READERS).size, FOLDER_READERS.length, 'a reader listed twice');
  assert.equal(new Set(FOLDER_READERS.map((r) => r.listedAs)).size, FOLDER_READERS.length, 'two readers listed under one name');
});

test('the listing, the inputs\' help and the error for a folder of none of them name every reader', async (t) => {
  const dir = tempDir(t);
  const listing = await listScoreFolder(dir);
  for (const r of FOLDER_READERS) {
    assert.deepEqual(listing[r.listedAs], [], `the listing has ${r.listedAs}`);
    assert.ok(SCORE_INPUTS.includes(r.inputWords), `SCORE_INPUTS names "${r.inputWords}"`);
  }
  await assert.rejects(readScoreInput(dir), (err: Error) => FOLDER_READERS.every((r) => err.message.includes(`no ${r.lookedFor}`)));
});

test('the listing and the dispatch name no format\'s files: each reader\'s record does', () => {
  const formatWords = [/trainer_state/, /lm-eval/i, /results_/, /jsonFiles|trainerStates/];
  for (const file of ['score-folder.ts', 'read-scores.ts']) {
    const code = fs.readFileSync(path.join(analyze, file), 'utf8').split('\n').filter((l) => !/^\s*(\/\/|\*|\/\*\*)/.test(l)).join('\n');
    for (const word of formatWords) assert.doesNotMatch(code, word, `${file} names a format's files (${word})`);
  }
});
