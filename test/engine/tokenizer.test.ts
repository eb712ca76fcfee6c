// The Tokenizer over tokenizer.json: special tokens from tokenizer_config.json, the post-processor's
// BOS, and decode(encode(s)) = s over a few hundred strings (non-ASCII, leading spaces, whitespace runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadTokenizer } from '../../src/engine/index.ts';
import { fixturesDir, goldenDir, NO_SHARED } from './helpers.ts';

const pieces = ['The', ' cat', '  sat', '\n', '\t', 'café', ' Müller', '日本語', ' 🍕', '12.5', '$100', "'s", ' ', 'Zürich', '—', 'naïve', '"quoted"',
  ' a,b,c', 'ÆØÅ', 'x'];

function strings(): string[] {
  const out: string[] = [];
  let seed = 17;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let i = 0; i < 300; i++) {
    let s = '';
    const n = 1 + rand(6);
    for (let j = 0; j < n; j++) s += pieces[rand(pieces.length)];
    out.push(s);
  }
  return out;
}

test('byte-level BPE: decode(encode(s)) = s, and special tokens come from tokenizer_config.json', () => {
  const tok = loadTokenizer(path.join(fixturesDir, 'opt'));
  assert.equal(tok.bosTokenId, 296);
  assert.equal(tok.eosTokenId, 296);
  for (const s of strings()) {
    const ids = tok.encode(s, { addSpecialTokens: false });
    assert.equal(tok.decode(ids), s, JSON.stringify(s));
    assert.ok(ids.every((id) => id >= 0 && id <= tok.maxTokenId));
  }
  assert.equal(tok.decode([]), '');
});

test('Llama: the post-processor adds BOS, addSpecialTokens: false leaves it out, skipSpecialTokens drops it', (t) => {
  const dir = goldenDir('llama');
  if (!dir) return t.skip(NO_SHARED);
  const tok = loadTokenizer(dir);
  assert.equal(tok.bosTokenId, 1);
  assert.equal(tok.eosTokenId, 2);
  for (const s of strings().slice(0, 100)) {
    const withBos = tok.encode(s);
    assert.equal(withBos[0], 1);
    assert.deepEqual(withBos.slice(1), tok.encode(s, { addSpecialTokens: false }));
    assert.equal(tok.decode(withBos, { skipSpecialTokens: true }), s);
  }
});
