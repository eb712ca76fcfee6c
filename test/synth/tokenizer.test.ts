import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer } from '@huggingface/tokenizers';
import { generateSuite, suiteTokenizerConfig, suiteTokenizerJson, whitespacePreTokenize } from '../../src/synth/index.ts';
import { buildFirstTokenRequests, demonstrationsFor } from '../../src/tasks/index.ts';

const suite = generateSuite({ seed: 5, trainSize: 600, testSize: 200 });
const tok = new Tokenizer(suiteTokenizerJson(suite), suiteTokenizerConfig(suite));
const unk = tok.token_to_id('<unk>');

test('the tokenizer loads with tokenizers.js; special tokens have fixed ids', () => {
  assert.equal(tok.token_to_id('<pad>'), 0);
  assert.equal(tok.token_to_id('<s>'), 1);
  assert.equal(tok.token_to_id('</s>'), 2);
  assert.equal(unk, 3);
  assert.equal(tok.get_vocab().size, suite.vocabulary.length);
  assert.deepEqual(tok.encode('the zebra', { add_special_tokens: false }).ids, [tok.token_to_id('the'), unk]);
});

test('every prompt of every set, with demonstrations and each label word, encodes without UNK', () => {
  const demonstrations = demonstrationsFor(suite.task, suite.train, { kind: 'sampled', k: 2, seed: 1 });
  for (const set of [{ id: 'train', examples: suite.train }, ...suite.testSets]) {
    const reqs = buildFirstTokenRequests(suite.task, set.examples, { demonstrations });
    for (const r of reqs) {
      for (const c of r.candidates) {
        const ids = tok.encode(r.context + c).ids;
        assert.ok(!ids.includes(unk!), `${set.id} ${r.exampleId}: ${JSON.stringify(r.context + c)}`);
      }
    }
  }
});

test('label words are single tokens, and the first token of " Yes" / " No" is the word itself', () => {
  const yes = tok.encode(' Yes', { add_special_tokens: false });
  const no = tok.encode(' No', { add_special_tokens: false });
  assert.deepEqual(yes.tokens, ['Yes']);
  assert.deepEqual(no.tokens, ['No']);
  assert.notEqual(yes.ids[0], no.ids[0]);
});

test('BOS is added with special tokens; decode then encode gives the same ids', () => {
  for (const e of [...suite.train.slice(0, 50), ...suite.testSets.flatMap((s) => s.examples.slice(0, 20))]) {
    const text = `${e.fields.premise}Question: ${e.fields.hypothesis} Yes or No?`;
    const enc = tok.encode(text);
    assert.equal(enc.ids[0], 1);
    assert.deepEqual(enc.tokens.slice(1), whitespacePreTokenize(text));
    const plain = tok.decode(enc.ids, { skip_special_tokens: true });
    assert.equal(plain, whitespacePreTokenize(text).join(' '));
    assert.deepEqual(tok.encode(plain).ids, enc.ids);
  }
});
