// The suite's ground truth and its spurious cues, read off the text alone (independent of how the
// generator built an example), so tests and reports can check any example against them.
//
// Sentence form: "the S [never] V the O [in the P]." S is an agent noun, V a verb, O a noun, P a
// place. The true rule ("follows"), with monotonicity respected:
// - polarity must match: both sentences negated, or neither;
// - the verb must be the same or a synonym (same synset);
// - positive sentences (upward-monotone): each hypothesis noun equals the premise noun or is its
//   hypernym ("the dog ..." -> "the animal ..."); the hypothesis may keep the premise's place
//   phrase or drop it, and may not add or change one;
// - negated sentences ("never", downward-monotone): nouns must be identical (the generator never
//   puts hypernyms in premises, so no valid downward noun step exists); the hypothesis may keep
//   the premise's place phrase, or add one when the premise has none, and may not drop or change it.
// The cues:
// - overlap: every content word of the hypothesis (nouns, verb, place; not "the", "never", "in",
//   ".") occurs in the premise. Predicts Yes.
// - negation: the hypothesis contains "never". Predicts No.
import { DETERMINER, FULL_STOP, hypernymOf, isNoun, isPlace, isVerb, NEGATION, PREPOSITION, sameSynset } from './lexicon.ts';

export interface Sentence { subject: string; negated: boolean; verb: string; object: string; place?: string }

export type Label = 'Yes' | 'No';

export function formatSentence(s: Sentence): string {
  const words = [DETERMINER, s.subject];
  if (s.negated) words.push(NEGATION);
  words.push(s.verb, DETERMINER, s.object);
  if (s.place !== undefined) words.push(PREPOSITION, DETERMINER, s.place);
  return `${words.join(' ')}${FULL_STOP}`;
}

/** Parses a suite sentence; throws on anything outside the grammar. */
export function parseSentence(text: string): Sentence {
  const m = /^the ([a-z]+)( never)? ([a-z]+) the ([a-z]+)(?: in the ([a-z]+))?\.$/.exec(text);
  if (!m || !isNoun(m[1]) || !isVerb(m[3]) || !isNoun(m[4]) || (m[5] !== undefined && !isPlace(m[5]))) {
    throw new Error(`not a sentence of the synthetic suite: ${JSON.stringify(text)}`);
  }
  const s: Sentence = { subject: m[1], negated: m[2] !== undefined, verb: m[3], object: m[4] };
  if (m[5] !== undefined) s.place = m[5];
  return s;
}

function nounFollows(premise: string, hypothesis: string, negated: boolean): boolean {
  if (premise === hypothesis) return true;
  return !negated && hypernymOf(premise) === hypothesis;
}

function placeFollows(premise: string | undefined, hypothesis: string | undefined, negated: boolean): boolean {
  if (premise === hypothesis) return true;
  return negated ? premise === undefined : hypothesis === undefined;
}

/** The true rule on parsed sentences. */
export function follows(p: Sentence, h: Sentence): boolean {
  if (p.negated !== h.negated) return false;
  if (p.verb !== h.verb && !sameSynset(p.verb, h.verb)) return false;
  return nounFollows(p.subject, h.subject, p.negated)
    && nounFollows(p.object, h.object, p.negated)
    && placeFollows(p.place, h.place, p.negated);
}

/** The true label of a (premise, hypothesis) pair of suite sentences. */
export function trueLabel(premise: string, hypothesis: string): Label {
  return follows(parseSentence(premise), parseSentence(hypothesis)) ? 'Yes' : 'No';
}

export function contentWords(s: Sentence): string[] {
  return s.place === undefined ? [s.subject, s.verb, s.object] : [s.subject, s.verb, s.object, s.place];
}

/** The overlap cue: every content word of the hypothesis occurs in the premise. */
export function highOverlap(premise: string, hypothesis: string): boolean {
  const pw = new Set(contentWords(parseSentence(premise)));
  return contentWords(parseSentence(hypothesis)).every((w) => pw.has(w));
}

/** The negation cue: the hypothesis contains "never". */
export function hypothesisNegated(hypothesis: string): boolean {
  return parseSentence(hypothesis).negated;
}

/** Heuristic classifiers that use one cue only (for learnability checks without a model). */
export const cueClassifiers = {
  overlap: (premise: string, hypothesis: string): Label => (highOverlap(premise, hypothesis) ? 'Yes' : 'No'),
  negation: (_premise: string, hypothesis: string): Label => (hypothesisNegated(hypothesis) ? 'No' : 'Yes'),
  both: (premise: string, hypothesis: string): Label => (highOverlap(premise, hypothesis) && !hypothesisNegated(hypothesis) ? 'Yes' : 'No'),
  rule: trueLabel,
} as const;
