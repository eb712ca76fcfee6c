// The closed vocabulary of the synthetic suite: a two-level noun taxonomy (hyponym -> hypernym),
// verb synonym sets and places. Held-out nouns (hyponyms under the same hypernyms) appear only in
// the vocabulary-shift test set, never in training; they are in the tokenizer so that set encodes
// without UNK, and their embeddings stay untrained.

export const CATEGORIES = ['animal', 'person', 'food'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Categories whose members can be the subject (an agent). */
export const AGENT_CATEGORIES: readonly Category[] = ['animal', 'person'];

export const ID_NOUNS: Readonly<Record<Category, readonly string[]>> = {
  animal: ['dog', 'cat', 'horse', 'bird', 'rabbit', 'fox', 'mouse', 'sheep'],
  person: ['doctor', 'lawyer', 'farmer', 'teacher', 'pilot', 'singer', 'student', 'chef'],
  food: ['apple', 'bread', 'cake', 'soup', 'rice', 'egg'],
};

export const HELD_OUT_NOUNS: Readonly<Record<Category, readonly string[]>> = {
  animal: ['wolf', 'goat', 'duck'],
  person: ['nurse', 'baker', 'judge'],
  food: ['cheese', 'pear', 'melon'],
};

/** Each set holds words that mean the same here; a verb's substitutes are the others in its set. */
export const VERB_SYNSETS: readonly (readonly string[])[] = [
  ['sees', 'notices'], ['helps', 'assists'], ['likes', 'enjoys'], ['finds', 'discovers'],
  ['follows', 'trails'], ['carries', 'holds'], ['calls', 'phones'],
];

export const PLACES: readonly string[] = ['park', 'garden', 'kitchen', 'street', 'field', 'house', 'school', 'market'];

/**
 * Places only the artifact design uses (artifacts.ts), after PLACES in its vocabulary; the classic
 * suite never draws them, so its sentences and tokenizer are as they were.
 */
export const ARTIFACT_PLACES: readonly string[] = ['beach', 'forest', 'office', 'library', 'station', 'garage', 'farm', 'shop', 'yard', 'barn'];

export const DETERMINER = 'the';
export const NEGATION = 'never';
export const PREPOSITION = 'in';
export const FULL_STOP = '.';
export const FUNCTION_WORDS: readonly string[] = [DETERMINER, NEGATION, PREPOSITION, FULL_STOP];

export type Vocabulary = 'id' | 'held-out';

const hypernymOfNoun = new Map<string, Category>();
for (const table of [ID_NOUNS, HELD_OUT_NOUNS]) {
  for (const c of CATEGORIES) for (const n of table[c]) hypernymOfNoun.set(n, c);
}
const synsetOfVerb = new Map<string, number>();
VERB_SYNSETS.forEach((set, i) => set.forEach((v) => synsetOfVerb.set(v, i)));

/** The hypernym of a hyponym; undefined for a category name or an unknown word. */
export function hypernymOf(noun: string): Category | undefined {
  return hypernymOfNoun.get(noun);
}

export function isNoun(word: string): boolean {
  return hypernymOfNoun.has(word) || (CATEGORIES as readonly string[]).includes(word);
}

export function isVerb(word: string): boolean {
  return synsetOfVerb.has(word);
}

export function isPlace(word: string): boolean {
  return PLACES.includes(word) || ARTIFACT_PLACES.includes(word);
}

export function sameSynset(a: string, b: string): boolean {
  const i = synsetOfVerb.get(a);
  return i !== undefined && i === synsetOfVerb.get(b);
}

export function synonymsOf(verb: string): string[] {
  const i = synsetOfVerb.get(verb);
  return i === undefined ? [] : VERB_SYNSETS[i].filter((v) => v !== verb);
}

export const ALL_VERBS: readonly string[] = VERB_SYNSETS.flat();

export function nounsOf(vocab: Vocabulary, categories: readonly Category[]): string[] {
  const table = vocab === 'id' ? ID_NOUNS : HELD_OUT_NOUNS;
  return categories.flatMap((c) => table[c]);
}

/** Every word the suite's sentences can contain, in a fixed order. */
export function sentenceWords(): string[] {
  return [
    ...FUNCTION_WORDS,
    ...CATEGORIES,
    ...CATEGORIES.flatMap((c) => ID_NOUNS[c]),
    ...CATEGORIES.flatMap((c) => HELD_OUT_NOUNS[c]),
    ...ALL_VERBS,
    ...PLACES,
  ];
}
