// What each set of the suite is made of: label balance is exact (half Yes, half No); within each
// label the share of examples with high overlap and with a negated hypothesis is set exactly
// (rounded counts, then shuffled), independently of each other. The ID training set and ID test
// set share one design; each OOD set changes the cue statistics and/or a neutral property.
import { UserError } from '../errors.ts';
import type { Vocabulary } from './lexicon.ts';

export type CueName = 'overlap' | 'negation' | 'none';
export type CueRelation = 'consistent' | 'broken' | 'none';
export type Substitution = 'mixed' | 'hypernym' | 'synonym';

export interface SetDesign {
  id: string;
  role: 'id' | 'ood';
  /** The cue this set is built around ('none' for the ID set, which carries the training cues, and for pure shifts). */
  cue: CueName;
  /** How that cue relates to the label here, compared with training: still predictive, reversed, or absent. */
  relation: CueRelation;
  /** The neutral (label-independent) change from the ID distribution, in words. */
  shift: string;
  /** P(every hypothesis content word occurs in the premise | label). */
  overlapGivenYes: number;
  overlapGivenNo: number;
  /** P(the hypothesis contains "never" | label). Both 0: no "never" anywhere in the set. */
  negationGivenYes: number;
  negationGivenNo: number;
  /** P(the premise has a place phrase "in the P"), where the construction leaves it free. */
  placeRate: number;
  /** Which word substitutions build low-overlap examples: nouns (hypernym), verbs (synonym), or both. */
  substitution: Substitution;
  vocabulary: Vocabulary;
}

export interface SuiteOptions {
  seed: number;
  /** Training examples (ID). */
  trainSize: number;
  /** Examples in each test set (ID and every OOD set). */
  testSize: number;
  /** ID: P(high overlap | Yes) = P(low overlap | No). Default 0.8. */
  idOverlapRate?: number;
  /** ID: P(negated hypothesis | No). Default 0.4. */
  idNegationGivenNo?: number;
  /** ID: P(negated hypothesis | Yes). Default 0.1. */
  idNegationGivenYes?: number;
  /** OOD cue sets: how strongly the cue agrees (consistent) or disagrees (broken) with the label. Default 1. */
  oodCueRate?: number;
  /** Replaces the default OOD sets. */
  oodSets?: SetDesign[];
}

// Defaults chosen with test/synth/structure.test.ts: OOD cue sets at full strength and an ID
// overlap rate of 0.8 make the designed correlation signs hold for most simulated trajectories.
export const DEFAULTS = { idOverlapRate: 0.8, idNegationGivenNo: 0.4, idNegationGivenYes: 0.1, oodCueRate: 1 } as const;

export function idDesign(o: SuiteOptions): SetDesign {
  const r = o.idOverlapRate ?? DEFAULTS.idOverlapRate;
  return {
    id: 'in-domain', role: 'id', cue: 'none', relation: 'none',
    shift: 'none: the training distribution (overlap and negation cues at training rates)',
    overlapGivenYes: r, overlapGivenNo: 1 - r,
    negationGivenYes: o.idNegationGivenYes ?? DEFAULTS.idNegationGivenYes,
    negationGivenNo: o.idNegationGivenNo ?? DEFAULTS.idNegationGivenNo,
    placeRate: 0.5, substitution: 'mixed', vocabulary: 'id',
  };
}

export function defaultOodDesigns(o: SuiteOptions): SetDesign[] {
  const id = idDesign(o);
  const c = o.oodCueRate ?? DEFAULTS.oodCueRate;
  // Each cue set differs from training in its own cue only: the other cue keeps its training
  // rates, so a model's reliance on that other cue moves the set as it moves the ID set and is
  // removed when ID accuracy is regressed out (test/synth/structure.test.ts measured this choice
  // against removing the other cue, which leaves a shared residual).
  const idNegation = { negationGivenYes: id.negationGivenYes, negationGivenNo: id.negationGivenNo };
  const idOverlap = { overlapGivenYes: id.overlapGivenYes, overlapGivenNo: id.overlapGivenNo };
  return [
    {
      id: 'overlap-consistent-long', role: 'ood', cue: 'overlap', relation: 'consistent',
      shift: 'every premise has a place phrase (longer sentences); negation as in training',
      overlapGivenYes: c, overlapGivenNo: 1 - c, ...idNegation, placeRate: 1, substitution: 'mixed', vocabulary: 'id',
    },
    {
      id: 'overlap-consistent-nouns', role: 'ood', cue: 'overlap', relation: 'consistent',
      shift: 'substitutions on nouns only (hypernyms, unrelated nouns), no place phrases; negation as in training',
      overlapGivenYes: c, overlapGivenNo: 1 - c, ...idNegation, placeRate: 0, substitution: 'hypernym', vocabulary: 'id',
    },
    {
      id: 'overlap-broken', role: 'ood', cue: 'overlap', relation: 'broken',
      shift: 'HANS-like: entailed hypotheses use new words, non-entailed ones reuse the premise\'s words (swapped roles, flipped polarity); negation as in training',
      overlapGivenYes: 1 - c, overlapGivenNo: c, ...idNegation, placeRate: 0.5, substitution: 'mixed', vocabulary: 'id',
    },
    {
      id: 'negation-consistent', role: 'ood', cue: 'negation', relation: 'consistent',
      shift: '"never" in the hypothesis only when the answer is No; overlap as in training',
      ...idOverlap, negationGivenYes: 0, negationGivenNo: c, placeRate: 0.5, substitution: 'mixed', vocabulary: 'id',
    },
    {
      id: 'negation-broken', role: 'ood', cue: 'negation', relation: 'broken',
      shift: '"never" in the hypothesis only when the answer is Yes (both sentences negated); overlap as in training',
      ...idOverlap, negationGivenYes: c, negationGivenNo: 0, placeRate: 0.5, substitution: 'mixed', vocabulary: 'id',
    },
    {
      ...id, id: 'vocabulary-shift', role: 'ood', cue: 'none', relation: 'none',
      shift: 'nouns held out of training (new animals, people, foods under the same hypernyms); cue rates as in training',
      vocabulary: 'held-out',
    },
  ];
}

const SET_ID = /^[a-z0-9][a-z0-9-]*$/;

export function validateOptions(o: SuiteOptions): void {
  if (!Number.isInteger(o.seed)) throw new UserError(`synthetic suite: seed must be an integer, got ${o.seed}`);
  for (const k of ['trainSize', 'testSize'] as const) {
    if (!Number.isInteger(o[k]) || o[k] < 2) throw new UserError(`synthetic suite: ${k} must be an integer >= 2, got ${o[k]}`);
  }
  for (const k of ['idOverlapRate', 'idNegationGivenNo', 'idNegationGivenYes', 'oodCueRate'] as const) {
    const v = o[k];
    if (v !== undefined && !(v >= 0 && v <= 1)) throw new UserError(`synthetic suite: ${k} must be in [0, 1], got ${v}`);
  }
}

export function validateDesign(d: SetDesign): void {
  if (!SET_ID.test(d.id) || d.id === 'train' || d.id === 'suite') {
    throw new UserError(`synthetic suite: set id "${d.id}" must be lower-case letters, digits and "-" (and not "train" or "suite")`);
  }
  for (const k of ['overlapGivenYes', 'overlapGivenNo', 'negationGivenYes', 'negationGivenNo', 'placeRate'] as const) {
    if (!(d[k] >= 0 && d[k] <= 1)) throw new UserError(`synthetic suite: set "${d.id}": ${k} must be in [0, 1], got ${d[k]}`);
  }
}
