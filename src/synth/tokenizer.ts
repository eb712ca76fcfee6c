// A word-level tokenizer for the suite's closed vocabulary, in Hugging Face's tokenizer.json
// format (WordLevel model, Whitespace pre-tokenizer, BOS added by a TemplateProcessing post-
// processor, no decoder so tokens decode joined by spaces), plus tokenizer_config.json, so a tiny
// model can be built from scratch for the suite. tokenizers.js 0.2.0 loads a WordLevel model
// through its fallback path, which reads unk/bos/eos/pad from tokenizer_config.json, so those are
// given in both files.
import type { Suite } from './suite.ts';
import { SPECIAL_TOKENS } from './vocabulary.ts';

export function suiteTokenizerJson(suite: Pick<Suite, 'vocabulary'>): Record<string, unknown> {
  const vocab: Record<string, number> = {};
  suite.vocabulary.forEach((w, i) => { vocab[w] = i; });
  const specials = [SPECIAL_TOKENS.pad, SPECIAL_TOKENS.bos, SPECIAL_TOKENS.eos, SPECIAL_TOKENS.unk];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content) => ({
      id: vocab[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
    })),
    normalizer: null,
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: SPECIAL_TOKENS.bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: SPECIAL_TOKENS.bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
      ],
      special_tokens: { [SPECIAL_TOKENS.bos]: { id: SPECIAL_TOKENS.bos, ids: [vocab[SPECIAL_TOKENS.bos]], tokens: [SPECIAL_TOKENS.bos] } },
    },
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: SPECIAL_TOKENS.unk },
  };
}

export function suiteTokenizerConfig(suite: Pick<Suite, 'vocabulary'>, modelMaxLength = 512): Record<string, unknown> {
  const decoder: Record<string, unknown> = {};
  for (const t of [SPECIAL_TOKENS.pad, SPECIAL_TOKENS.bos, SPECIAL_TOKENS.eos, SPECIAL_TOKENS.unk]) {
    decoder[String(suite.vocabulary.indexOf(t))] = { content: t, lstrip: false, normalized: false, rstrip: false, single_word: false, special: true };
  }
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: SPECIAL_TOKENS.bos,
    eos_token: SPECIAL_TOKENS.eos,
    pad_token: SPECIAL_TOKENS.pad,
    unk_token: SPECIAL_TOKENS.unk,
    model_max_length: modelMaxLength,
    clean_up_tokenization_spaces: false,
    added_tokens_decoder: decoder,
  };
}
