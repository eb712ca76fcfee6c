// The suite's design as data: for each test set, which cue it is built around and how that cue
// relates to the label (consistent, broken, none), the designed cue rates, and the correlation
// signs that design implies between OOD sets once ID accuracy is regressed out. Reports and tests
// check an analysis against this truth.
import type { CueName, CueRelation, SetDesign } from './design.ts';
import type { Suite } from './suite.ts';

/**
 * What a pair's construction fixes: a sign in every run ('positive', 'negative'), a sign that
 * follows the run's training variant ('depends', with `byVariant`), no relation as large as the
 * equivalence margin ('negligible': no construction here gives one, see docs/synthetic.md), or nothing ('none').
 */
export type ExpectedSign = 'positive' | 'negative' | 'depends' | 'negligible' | 'none';

export interface SetDescription {
  id: string;
  role: SetDesign['role'];
  cue: CueName;
  relation: CueRelation;
  shift: string;
  size: number;
  file: string;
  /** Designed rates (exact up to rounding of counts within each label). */
  rates: { overlapGivenYes: number; overlapGivenNo: number; negationGivenYes: number; negationGivenNo: number };
  /** Accuracy of a classifier that uses only this cue: overlap -> Yes, and "never" in the hypothesis -> No. */
  cueOnlyAccuracy: { overlap: number; negation: number };
  vocabulary: SetDesign['vocabulary'];
}

export interface ExpectedCorrelation {
  a: string;
  b: string;
  sign: ExpectedSign;
  why: string;
  /** With sign 'depends': the sign in runs trained on each training variant. */
  byVariant?: Record<string, 'positive' | 'negative'>;
}

/** A training set of a suite with several (the artifact design's variants). */
export interface TrainVariantDescription { id: string; file: string; size: number; note: string }

export interface SuiteDescription {
  name: 'genstudy-synthetic-nli';
  formatVersion: 1;
  seed: number;
  trainSize: number;
  task: Suite['task'];
  labels: string[];
  fields: string[];
  rule: string;
  cues: { id: Exclude<CueName, 'none'>; predicts: 'Yes' | 'No' | 'by word'; definition: string }[];
  train: { file: string; size: number; rates: SetDescription['rates'] };
  /** Every training variant, the first being `train`; only in a suite with several (design 'artifacts'). */
  trainVariants?: TrainVariantDescription[];
  sets: SetDescription[];
  expectedCorrelations: ExpectedCorrelation[];
}

const RULE = 'The hypothesis follows from the premise (Yes) when both have the same polarity ("never" in both or neither), '
  + 'the verb is the same or a synonym, and: in positive sentences each noun is the same or its hypernym and the place '
  + 'phrase is kept or dropped; in negated sentences nouns are the same and the place phrase is kept or, when the premise '
  + 'has none, added. Otherwise No.';

function rates(d: SetDesign): SetDescription['rates'] {
  return { overlapGivenYes: d.overlapGivenYes, overlapGivenNo: d.overlapGivenNo, negationGivenYes: d.negationGivenYes,
    negationGivenNo: d.negationGivenNo };
}

const SIGN = { mirror: -1, twin: 1 } as const;

/** The variant file of a training variant: the first is train.jsonl, the others train-<id>.jsonl. */
export function trainVariantFile(id: string, index: number): string {
  return index === 0 ? 'train.jsonl' : `train-${id}.jsonl`;
}

/**
 * Expected sign of the partial correlation (ID regressed out) between two OOD sets: what their
 * construction fixes (design.ts, SetSource). A mirror moves against its source and a twin with
 * it; two sets built from one source move as the product of those signs. Sets that no
 * construction ties have no designed relation, whatever their cues (two sets built around the
 * same cue move together or apart only if a model leans on that cue, which is what a study asks).
 */
export function expectedSign(a: SetDesign, b: SetDesign, variants: readonly string[] = []): ExpectedCorrelation {
  const sign = (s: number): 'positive' | 'negative' => (s > 0 ? 'positive' : 'negative');
  // A set's sign relative to its source, per training variant (a recast agrees in the variants it names).
  const of = (x: SetDesign, variant: string | undefined): number => {
    if (!x.source) return 1;
    if (x.source.how === 'recast') return variant !== undefined && x.source.agreesIn?.includes(variant) ? 1 : -1;
    return SIGN[x.source.how];
  };
  const describe = (built: SetDesign, from: string) => built.source!.how === 'mirror'
    ? `${built.id} mirrors ${from}: each item with an edit that flips the label and that no cue sees`
    : built.source!.how === 'twin'
      ? `${built.id} is the twin of ${from}: each item with its nouns renamed (same label, cues and word positions)`
      : `${built.id} recasts ${from}: each place word exchanged for one that the training data of ` +
        `variant${(built.source!.agreesIn ?? []).length === 1 ? '' : 's'} ` +
        `${(built.source!.agreesIn ?? []).join(', ')} ties to the label as the source's word and the other variants' the other way round`;
  const related = a.source?.set === b.id || b.source?.set === a.id || (a.source && b.source && a.source.set === b.source.set);
  if (related) {
    const why = a.source?.set === b.id ? describe(a, b.id) : b.source?.set === a.id ? describe(b, a.id)
      : `both built item by item from ${a.source!.set} (${a.id}: ${a.source!.how}, ${b.id}: ${b.source!.how})`;
    const recast = a.source?.how === 'recast' || b.source?.how === 'recast';
    if (!recast) return { a: a.id, b: b.id, sign: sign(of(a, undefined) * of(b, undefined)), why };
    const byVariant = Object.fromEntries(variants.map((v) => [v, sign(of(a, v) * of(b, v))]));
    const signs = new Set(Object.values(byVariant));
    if (signs.size === 1) return { a: a.id, b: b.id, sign: [...signs][0], why };
    return { a: a.id, b: b.id, sign: 'depends', byVariant,
      why: `${why}; so ${Object.entries(byVariant).map(([v, s]) => `${s} in runs trained on variant ${v}`).join(', ')}` };
  }
  const theory = a.cue !== 'none' && a.cue === b.cue && a.relation !== 'none' && b.relation !== 'none'
    ? `; a model leaning on the ${a.cue} cue would move them ${a.relation === b.relation ? 'together' : 'apart'}`
    : '';
  return { a: a.id, b: b.id, sign: 'none', why: `no construction ties them${theory}` };
}

export function describeSuite(suite: Suite): SuiteDescription {
  const sets = suite.testSets.map((s): SetDescription => {
    const n = s.examples.length;
    const nYes = s.examples.filter((e) => e.label === 'Yes').length;
    const pYes = n === 0 ? 0 : nYes / n;
    const d = s.design;
    return {
      id: s.id, role: s.role, cue: s.cue, relation: s.relation, shift: d.shift, size: n, file: `${s.id}.jsonl`,
      rates: rates(d),
      cueOnlyAccuracy: {
        overlap: pYes * d.overlapGivenYes + (1 - pYes) * (1 - d.overlapGivenNo),
        negation: pYes * (1 - d.negationGivenYes) + (1 - pYes) * d.negationGivenNo,
      },
      vocabulary: d.vocabulary,
    };
  });
  const ood = suite.testSets.filter((s) => s.role === 'ood');
  const expectedCorrelations: ExpectedCorrelation[] = [];
  const variants = (suite.trainVariants ?? []).map((v) => v.id);
  for (let i = 0; i < ood.length; i++) {
    for (let j = i + 1; j < ood.length; j++) expectedCorrelations.push(expectedSign(ood[i].design, ood[j].design, variants));
  }
  const idSet = suite.testSets.find((s) => s.role === 'id');
  return {
    name: 'genstudy-synthetic-nli',
    formatVersion: 1,
    seed: suite.options.seed,
    trainSize: suite.train.length,
    task: suite.task,
    labels: [...suite.task.labels],
    fields: ['premise', 'hypothesis'],
    rule: RULE,
    cues: [
      { id: 'overlap', predicts: 'Yes', definition: 'every content word of the hypothesis (nouns, verb, place) occurs in the premise' },
      { id: 'negation', predicts: 'No', definition: 'the hypothesis contains "never"' },
      ...(suite.options.design === 'artifacts' ? [{ id: 'place' as const, predicts: 'by word' as const,
        definition: 'the place the sentences end in: the training data ties each place word to a label (artifacts.ts, placeLeans)' }] : []),
    ],
    train: { file: 'train.jsonl', size: suite.train.length, rates: idSet ? rates(idSet.design) : rates(suite.options.oodSets[0]) },
    ...(suite.trainVariants ? {
      trainVariants: suite.trainVariants.map((v, i) => ({ id: v.id, file: trainVariantFile(v.id, i), size: v.examples.length, note: v.note })),
    } : {}),
    sets,
    expectedCorrelations,
  };
}
