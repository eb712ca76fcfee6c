// What each set of the suite is made of: label balance is exact (half Yes, half No); within each
// label the share of examples with high overlap and with a negated hypothesis is set exactly
// (rounded counts, then shuffled), independently of each other. The ID training set and ID test
// set share one design; each OOD set changes the cue statistics and/or a neutral property. A set
// may also be built item by item from another set (`source`): as its mirror image or as its twin,
// so that its designed relation to that set holds by construction rather than by a theory of what
// a model will learn.
import { UserError } from '../errors.ts';
import type { Vocabulary } from './lexicon.ts';

export type CueName = 'overlap' | 'negation' | 'place' | 'none';
/** 'variant': the cue agrees with the label under some training variants and disagrees under the others (artifacts.ts). */
export type CueRelation = 'consistent' | 'broken' | 'variant' | 'none';

/**
 * Which suite: 'classic', the overlap and negation families (this file's defaultOodDesigns; the
 * default), or 'artifacts', the negation and place-word families with two training variants
 * (artifacts.ts; the demo's). The first is the default.
 */
export const SUITE_DESIGNS = ['classic', 'artifacts'] as const;
export type SuiteDesign = (typeof SUITE_DESIGNS)[number];
export type Substitution = 'mixed' | 'hypernym' | 'synonym';

/**
 * How a set is built from another set of the suite (listed before it, built from its own design):
 * - mirror: item i is the source's item i with one edit to the hypothesis that flips the true
 *   label and leaves both cues as they were (subject and object swapped, or a hypernym / synonym
 *   exchanged for an unrelated word; Builder.minimalPair). A prediction that does not see the edit
 *   is right on exactly one item of the pair, so the two sets' accuracies move against each other.
 * - twin: item i is the source's item i with its nouns renamed (each replaced by another of its
 *   category from the twin's vocabulary, the same way in both sentences), which keeps the label,
 *   both cues, the length and every word position. A source may have several twins. A prediction
 *   that does not depend on which animal, person or food is named is right on both or on neither,
 *   so the two move together.
 */
export interface SetSource {
  set: string;
  how: 'mirror' | 'twin' | 'recast';
  /**
   * recast (artifacts.ts): item i is the source's item i with its place word exchanged for its
   * counterpart in another group of place words, which the training data of the variants listed
   * here tie to the label as the source's words, and the other variants' training data the other
   * way round. A prediction that weighs each word as its training data tied it to the label then
   * moves the two together under these variants and against each other under the others.
   */
  agreesIn?: string[];
}

export interface SetDesign {
  id: string;
  /** The in-domain set (training and its test set) or an out-of-distribution one. */
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
  source?: SetSource;
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
  /** Replaces the default OOD sets (classic design only). */
  oodSets?: SetDesign[];
  /** Which suite (SUITE_DESIGNS); default 'classic'. */
  design?: SuiteDesign;
}

/**
 * The suite generated when no seed or size is given: by a study file's `synthetic:` section, by
 * `train --data synthetic` and by `--test-set synthetic`. One set of defaults, so that a model
 * trained on the default suite is tested on that suite's test sets, which hold none of its
 * training examples (with the test sets of another seed, some would be training examples).
 */
export const SUITE_DEFAULTS = { seed: 1, trainSize: 2000, testSize: 200 } as const;

// ID defaults: both cues agree with the label more often than not in training.
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

/** A mirror's cue rates: the source's, with the labels exchanged (the edit flips the label and keeps both cues). */
export function mirroredRates(d: SetDesign): Pick<SetDesign, 'overlapGivenYes' | 'overlapGivenNo' | 'negationGivenYes' | 'negationGivenNo'> {
  return { overlapGivenYes: d.overlapGivenNo, overlapGivenNo: d.overlapGivenYes, negationGivenYes: d.negationGivenNo,
    negationGivenNo: d.negationGivenYes };
}

export function defaultOodDesigns(o: SuiteOptions): SetDesign[] {
  const id = idDesign(o);
  const c = o.oodCueRate ?? DEFAULTS.oodCueRate;
  // In each cue's sets the other cue occurs at its overall training rate but independently of the
  // label, so leaning on that other cue moves none of them: each family moves with its own cue.
  const neutralNegation = (id.negationGivenYes + id.negationGivenNo) / 2;
  const neutralOverlap = (id.overlapGivenYes + id.overlapGivenNo) / 2;
  const negation = { negationGivenYes: neutralNegation, negationGivenNo: neutralNegation };
  const overlap = { overlapGivenYes: neutralOverlap, overlapGivenNo: neutralOverlap };
  const overlapConsistent: SetDesign = {
    id: 'overlap-consistent', role: 'ood', cue: 'overlap', relation: 'consistent',
    shift: 'the overlap cue agrees with the label; negation independent of the label; no place phrases',
    overlapGivenYes: c, overlapGivenNo: 1 - c, ...negation, placeRate: 0, substitution: 'mixed', vocabulary: 'id',
  };
  const negationConsistent: SetDesign = {
    id: 'negation-consistent', role: 'ood', cue: 'negation', relation: 'consistent',
    shift: '"never" in the hypothesis only when the answer is No; overlap independent of the label',
    ...overlap, negationGivenYes: 0, negationGivenNo: c, placeRate: 0.5, substitution: 'mixed', vocabulary: 'id',
  };
  const edit = 'subject and object swapped, or a hypernym / synonym exchanged for an unrelated word, which flips the label and keeps both cues';
  return [
    overlapConsistent,
    {
      ...overlapConsistent, ...mirroredRates(overlapConsistent), id: 'overlap-broken', relation: 'broken',
      shift: 'HANS-like: the overlap cue disagrees with the label (high overlap only when the answer is No); negation independent of the ' +
        'label; no place phrases',
    },
    negationConsistent,
    {
      ...negationConsistent, ...mirroredRates(negationConsistent), id: 'negation-broken', relation: 'broken',
      shift: `mirror of negation-consistent: each item with ${edit}`,
      source: { set: negationConsistent.id, how: 'mirror' },
    },
    {
      ...negationConsistent, id: 'negation-consistent-renamed',
      shift: 'twin of negation-consistent: each item with its nouns renamed (other animals, people, foods, the same way in both ' +
        'sentences; same label, cues and word positions)',
      source: { set: negationConsistent.id, how: 'twin' },
    },
    {
      ...negationConsistent, id: 'vocabulary-shift', cue: 'negation', relation: 'consistent',
      shift: 'twin of negation-consistent with nouns held out of training (new animals, people, foods under the same hypernyms)',
      vocabulary: 'held-out', source: { set: negationConsistent.id, how: 'twin' },
    },
  ];
}

const SET_ID = /^[a-z0-9][a-z0-9-]*$/;

export function validateOptions(o: SuiteOptions): void {
  if (!Number.isInteger(o.seed)) throw new UserError(`synthetic suite: seed must be an integer, got ${o.seed}`);
  if (o.design !== undefined && !SUITE_DESIGNS.includes(o.design)) {
    throw new UserError(`synthetic suite: design must be one of ${SUITE_DESIGNS.join(', ')}, got ${String(o.design)}`);
  }
  if (o.design === 'artifacts') {
    const classicOnly = (['idOverlapRate', 'idNegationGivenNo', 'idNegationGivenYes', 'oodCueRate', 'oodSets'] as const)
      .filter((k) => o[k] !== undefined);
    if (classicOnly.length > 0) {
      throw new UserError(`synthetic suite: ${classicOnly.join(', ')} apply to the classic design only, not to "artifacts"`);
    }
  }
  for (const k of ['trainSize', 'testSize'] as const) {
    if (!Number.isInteger(o[k]) || o[k] < 2) throw new UserError(`synthetic suite: ${k} must be an integer >= 2, got ${o[k]}`);
  }
  for (const k of ['idOverlapRate', 'idNegationGivenNo', 'idNegationGivenYes', 'oodCueRate'] as const) {
    const v = o[k];
    if (v !== undefined && !(v >= 0 && v <= 1)) throw new UserError(`synthetic suite: ${k} must be in [0, 1], got ${v}`);
  }
}

/** Checks one design; `earlier` are the sets listed before it (a source must be one of them). */
export function validateDesign(d: SetDesign, earlier: readonly SetDesign[] = []): void {
  if (!SET_ID.test(d.id) || d.id === 'train' || d.id === 'suite') {
    throw new UserError(`synthetic suite: set id "${d.id}" must be lower-case letters, digits and "-" (and not "train" or "suite")`);
  }
  for (const k of ['overlapGivenYes', 'overlapGivenNo', 'negationGivenYes', 'negationGivenNo', 'placeRate'] as const) {
    if (!(d[k] >= 0 && d[k] <= 1)) throw new UserError(`synthetic suite: set "${d.id}": ${k} must be in [0, 1], got ${d[k]}`);
  }
  const src = d.source;
  if (src === undefined) return;
  if (src.how === 'recast') throw new UserError(`synthetic suite: set "${d.id}": "recast" belongs to the artifacts design (design: artifacts)`);
  const from = earlier.find((e) => e.id === src.set);
  if (!from) throw new UserError(`synthetic suite: set "${d.id}" is built from "${src.set}", which is not a test set listed before it`);
  const what = `synthetic suite: set "${d.id}" is the ${src.how} of "${from.id}"`;
  // The source's items are built together with its mirror's and twin's, from its own design.
  if (from.source !== undefined) throw new UserError(`${what}, which is itself built from another set`);
  if (src.how === 'mirror' && earlier.some((e) => e.source?.how === 'mirror' && e.source.set === from.id)) {
    throw new UserError(`${what}, which already has a mirror`);
  }
  if (d.cue === 'none' || d.cue !== from.cue) throw new UserError(`${what}: both must be built around the same cue (overlap or negation)`);
  const want = src.how === 'mirror' ? mirroredRates(from) : from;
  for (const k of ['overlapGivenYes', 'overlapGivenNo', 'negationGivenYes', 'negationGivenNo'] as const) {
    if (d[k] !== want[k]) {
      throw new UserError(
        `${what}, so its ${k} must be ${want[k]} (the source's${src.how === 'mirror' ? ', with the labels exchanged' : ''}), got ${d[k]}`);
    }
  }
}
