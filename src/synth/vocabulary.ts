// The suite's closed vocabulary: special tokens, every word a sentence can hold, and the words of
// the prompt template and verbalizer as the Whitespace pre-tokenizer splits them.
import type { ClassifyTaskSpec } from '../tasks/task.ts';
import { sentenceWords } from './lexicon.ts';

export const SPECIAL_TOKENS = { pad: '<pad>', bos: '<s>', eos: '</s>', unk: '<unk>' } as const;

/**
 * Hugging Face's Whitespace pre-tokenizer: runs of word characters, or runs of other non-space
 * characters (the pattern \w+|[^\w\s]+, as tokenizers.js and the Rust crate use; the suite's text
 * is ASCII, where the two agree).
 */
export function whitespacePreTokenize(text: string): string[] {
  return text.match(/\w+|[^\w\s]+/g) ?? [];
}

/**
 * Special tokens first (ids 0-3: pad, bos, eos, unk), then sentence words, then `extraWords` (the
 * artifact design's places), then prompt words not already present.
 */
export function suiteVocabulary(task: ClassifyTaskSpec, extraWords: readonly string[] = []): string[] {
  const words: string[] = [SPECIAL_TOKENS.pad, SPECIAL_TOKENS.bos, SPECIAL_TOKENS.eos, SPECIAL_TOKENS.unk];
  const add = (w: string) => { if (!words.includes(w)) words.push(w); };
  for (const w of [...sentenceWords(), ...extraWords]) for (const piece of whitespacePreTokenize(w)) add(piece);
  const literal = task.template.replace(/\{[^{}]*\}/g, ' ');
  for (const piece of whitespacePreTokenize(literal)) add(piece);
  for (const label of task.labels) for (const piece of whitespacePreTokenize((task.targetDelimiter ?? '') + task.verbalizer[label])) add(piece);
  return words;
}
