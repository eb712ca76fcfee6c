/**
 * rouge-score's default tokeniser: lower-case, every run of characters outside [a-z0-9] becomes one
 * space, split on whitespace, Porter-stem (NLTK's mode) the tokens longer than 3 characters when the
 * stemmer is on, and drop empty tokens. Sentences for ROUGE-Lsum are the non-empty "\n"-separated
 * lines of the raw text, as rouge-score splits them (split_summaries=False).
 */

const NON_ALPHANUMERIC_RUNS = /[^a-z0-9]+/g;
const VALID_TOKEN = /^[a-z0-9]+$/;

/** Tokenises `text` as rouge-score does; `stem` is applied to tokens longer than 3 characters. */
export function tokenizeForRouge(text: string, stem?: (word: string) => string): string[] {
  const words = text.toLowerCase().replace(NON_ALPHANUMERIC_RUNS, ' ').split(' ');
  const tokens: string[] = [];
  for (const word of words) {
    if (word.length === 0) continue;
    const token = stem !== undefined && word.length > 3 ? stem(word) : word;
    if (VALID_TOKEN.test(token)) tokens.push(token);
  }
  return tokens;
}

/** The sentences ROUGE-Lsum compares: lines split on "\n", empty lines left out (before tokenising). */
export function splitRougeSentences(text: string): string[] {
  return text.split('\n').filter((line) => line.length > 0);
}
