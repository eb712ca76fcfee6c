import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CachedPorterStemmer, porterStem } from '../../src/metrics/porterStemmer.ts';
import { goldenDir, hasSharedRouge, SHARED_MISSING, sharedRougeDir } from './paths.ts';

/** Reads `word<TAB>stem` lines, skipping '#' comments. */
function readStems(file: string): [string, string][] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0 && !line.startsWith('#'))
    .map((line) => {
      const [word, stem] = line.split('\t');
      return [word, stem];
    });
}

function mismatches(pairs: [string, string][], stem: (w: string) => string): string[] {
  return pairs.filter(([word, expected]) => stem(word) !== expected).map(([w, e]) => `${w}: got ${stem(w)}, NLTK ${e}`);
}

test('equals NLTK on every word of the ROUGE golden pairs (shared stems.tsv)', (t) => {
  if (!hasSharedRouge) return t.skip(SHARED_MISSING);
  const pairs = readStems(path.join(sharedRougeDir, 'stems.tsv'));
  assert.ok(pairs.length > 9000, `only ${pairs.length} words read`);
  assert.deepEqual(mismatches(pairs, porterStem).slice(0, 20), []);
});

test("equals NLTK on the project's extra words (license texts + generated suffix words)", () => {
  const pairs = readStems(path.join(goldenDir, 'stems_extra.tsv'));
  assert.ok(pairs.length > 4000, `only ${pairs.length} words read`);
  assert.deepEqual(mismatches(pairs, porterStem).slice(0, 20), []);
});

test('the cached stemmer gives the same stems as the plain one, also on repeats', () => {
  const words = readStems(path.join(goldenDir, 'stems_extra.tsv')).map(([w]) => w);
  const cached = new CachedPorterStemmer();
  for (const w of [...words, ...words]) assert.equal(cached.stem(w), porterStem(w));
});
