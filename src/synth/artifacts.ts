// The artifact suite (design 'artifacts'): the demo's suite, built so that every OOD family moves
// for a tiny model trained from scratch and every outcome the analysis gives has a designed pair.
//
// What the demo's tiny models learn is which words come with which label, not the rule (classic
// design, docs/synthetic.md: the overlap sets never left 50%). So both families here are carried
// by words, like the annotation artifacts of real NLI data (hypothesis words that predict the label):
// - negation: "never" in the hypothesis leans No in training (40% of No, 10% of Yes, as classic);
// - place words: the training data ties place words to the label. Four lean Yes and four lean No
//   in every training variant, with strengths 0.95, 0.85, 0.75 and 0.65 (P(that label | the word));
//   eight more lean the same way in variant "a" and the other way in variant "b" (the two training
//   sets the demo's runs are trained on); two "background" places lean No (0.7) in training and in
//   the in-domain test set. The in-domain test set carries negation and the background places at
//   training rates, and the other place words independently of the label: it is what the variants
//   share, so one control serves runs of both.
// The OOD sets, built from minimal pairs (builder.ts) as the classic ones:
//   negation-consistent  "never" exactly when the answer is No; half the items end in a background place
//   negation-broken      its mirror: each item with the other hypothesis of its pair (label flipped, cues kept)
//   place-consistent     every item ends in a place that leans to its label in every variant; no "never"
//   place-broken         its mirror
//   place-variable       its recast: each place word exchanged for its counterpart among the variant words
//                        (same strength): tied to the label as the source's words in variant a, the other
//                        way in variant b
// A prediction blind to the edit scores exactly 1 - (its score on the source) on a mirror, in every
// run; a prediction that weighs each place word as its training data tied it to the label scores the
// same on place-variable as on place-consistent in runs trained on variant a, and 1 minus it in runs
// trained on variant b (the two groups are exchanged in b). So the mirrors' relations hold in every
// run (generalises), and place-variable's relation to the place family changes sign with the
// training variant (depends on the model), by construction.
import { UserError } from '../errors.ts';
import type { Example } from '../types.ts';
import { seededRandom, type Random } from '../seeded-random.ts';
import { syntheticTask } from '../tasks/index.ts';
import { ARTIFACT_PLACES } from './lexicon.ts';
import type { Label, Sentence } from './rule.ts';
import { mirroredRates, type SetDesign, type SuiteOptions } from './design.ts';
import { Builder, exactFlags, flip, toText, type Item } from './builder.ts';
import type { Suite, SuiteTestSet, TrainVariant } from './suite.ts';
import { suiteVocabulary } from './vocabulary.ts';

/** The training variants; the first is the suite's `train` (train.jsonl), the others train-<id>.jsonl. */
export const ARTIFACT_VARIANTS = ['a', 'b'] as const;
export type ArtifactVariant = (typeof ARTIFACT_VARIANTS)[number];

/** P(the label a word leans to | the word) in training, strongest first; groups pair up by position. */
export const PLACE_STRENGTHS = [0.95, 0.85, 0.75, 0.65] as const;

export const PLACE_GROUPS = {
  /** Lean Yes in every variant. */
  yes: ['park', 'garden', 'kitchen', 'street'],
  /** Lean No in every variant. */
  no: ['field', 'house', 'school', 'market'],
  /** Lean Yes in variant a, No in variant b; place-variable's words for the yes group's. */
  yesInA: ['beach', 'forest', 'office', 'library'],
  /** Lean No in variant a, Yes in variant b; place-variable's words for the no group's. */
  noInA: ['station', 'garage', 'farm', 'shop'],
  /** Lean No (BACKGROUND_STRENGTH) in training and in the in-domain test set: what makes the negation sets' items differ. */
  background: ['yard', 'barn'],
} as const;

export const BACKGROUND_STRENGTH = 0.7;

/** Training and in-domain rates. */
export const ARTIFACT_RATES = {
  negationGivenNo: 0.4, negationGivenYes: 0.1,
  overlapGivenYes: 0.8, overlapGivenNo: 0.2,
  /** Share of No items with high overlap built by a polarity mismatch ("never" in one sentence only), as classic's no(). */
  polarityMismatch: 1 / 3,
  /** Share of items ending in a place phrase (the same place in both sentences). */
  placeRate: 0.8,
  /** OOD: share of each label's items with high overlap, and of negation-consistent's items ending in a background place. */
  oodOverlap: 0.5, oodBackground: 0.5,
} as const;

type Lean = { label: Label; strength: number } | null;

/** Each place word's lean in a training variant, or in the in-domain test set ('in-domain'). */
export function placeLeans(variant: ArtifactVariant | 'in-domain'): Map<string, Lean> {
  const out = new Map<string, Lean>();
  const g = PLACE_GROUPS;
  g.yes.forEach((w, i) => out.set(w, variant === 'in-domain' ? null : { label: 'Yes', strength: PLACE_STRENGTHS[i] }));
  g.no.forEach((w, i) => out.set(w, variant === 'in-domain' ? null : { label: 'No', strength: PLACE_STRENGTHS[i] }));
  g.yesInA.forEach((w, i) => out.set(w, variant === 'in-domain' ? null : { label: variant === 'a' ? 'Yes' : 'No', strength: PLACE_STRENGTHS[i] }));
  g.noInA.forEach((w, i) => out.set(w, variant === 'in-domain' ? null : { label: variant === 'a' ? 'No' : 'Yes', strength: PLACE_STRENGTHS[i] }));
  for (const w of g.background) out.set(w, { label: 'No', strength: BACKGROUND_STRENGTH });
  return out;
}

/** A place for an item with this label: P(word | label) proportional to P(label | word) (0.5 for a word with no lean). */
function drawPlace(rng: Random, leans: Map<string, Lean>, label: Label): string {
  const words = [...leans.keys()];
  const weights = words.map((w) => {
    const l = leans.get(w)!;
    return l === null ? 0.5 : l.label === label ? l.strength : 1 - l.strength;
  });
  let u = rng.next() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < words.length; i++) {
    u -= weights[i];
    if (u < 0) return words[i];
  }
  return words[words.length - 1];
}

const withPlace = ([p, h]: Item, place: string | undefined): Item => (place === undefined ? [p, h] : [{ ...p, place }, { ...h, place }]);

/** The counterpart of each place word in place-variable (same group position, so the same strength). */
export const RECAST: ReadonlyMap<string, string> = new Map([
  ...PLACE_GROUPS.yes.map((w, i): [string, string] => [w, PLACE_GROUPS.yesInA[i]]),
  ...PLACE_GROUPS.no.map((w, i): [string, string] => [w, PLACE_GROUPS.noInA[i]]),
]);

const recast = ([p, h]: Item): Item => {
  const r = (s: Sentence): Sentence => (s.place === undefined ? s : { ...s, place: RECAST.get(s.place) ?? s.place });
  return [r(p), r(h)];
};

function builderDesign(id: string): SetDesign {
  // What the builder reads: vocabulary, substitutions and whether "never" may occur; places are added afterwards.
  return { id, role: 'ood', cue: 'none', relation: 'none', shift: '', overlapGivenYes: 0.5, overlapGivenNo: 0.5, negationGivenYes: 0.5,
    negationGivenNo: 0.5, placeRate: 0, substitution: 'mixed', vocabulary: 'id' };
}

function balancedLabels(n: number, rng: Random): Label[] {
  const nYes = Math.ceil(n / 2);
  return rng.shuffle(Array.from({ length: n }, (_, i): Label => (i < nYes ? 'Yes' : 'No')));
}

/** Training-like examples (a training variant, or the in-domain test set): the rule, negation, overlap and place leans at their rates. */
function trainingLike(n: number, seed: number, stream: string, leans: Map<string, Lean>, seen: Set<string>): Example[] {
  const rng = seededRandom(seed, 'synth-artifacts', stream);
  const b = new Builder(builderDesign(stream), rng);
  const r = ARTIFACT_RATES;
  const out: Example[] = [];
  for (const label of balancedLabels(n, rng)) {
    let added = false;
    for (let attempt = 0; attempt < 200 && !added; attempt++) {
      const negH = rng.next() < (label === 'No' ? r.negationGivenNo : r.negationGivenYes);
      const high = rng.next() < (label === 'Yes' ? r.overlapGivenYes : r.overlapGivenNo);
      let item: Item;
      if (label === 'No' && high && rng.next() < r.polarityMismatch) {
        const p = b.premise(!negH, 'no');
        item = [p, { ...p, negated: negH }];
      } else {
        const pair = b.minimalPair(negH, high);
        item = label === 'Yes' ? pair.yes : pair.no;
      }
      if (rng.next() < r.placeRate) item = withPlace(item, drawPlace(rng, leans, label));
      const text = toText(item, { label, high, negH }, stream);
      const key = `${text.premise}\t${text.hypothesis}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ id: `${stream}-${String(out.length).padStart(5, '0')}`, fields: text, label });
      added = true;
    }
    if (!added) throw new UserError(`synthetic suite: set "${stream}" ran out of distinct examples; use smaller sizes`);
  }
  return out;
}

interface FamilyMember { design: SetDesign; item: (own: Item, other: Item) => Item; flips: boolean }

/**
 * One family's sets, item by item from one stream of minimal pairs: `spec` gives an item's cues
 * from its label; each member takes its side of the pair (own, or the other: a mirror) and may
 * change it (recast).
 */
function family(n: number, seed: number, stream: string, members: FamilyMember[], seen: Set<string>,
  spec: (label: Label, high: boolean, extra: boolean, rng: Random) => { negH: boolean; place?: string }): Map<string, Example[]> {
  const rng = seededRandom(seed, 'synth-artifacts', stream);
  const b = new Builder(builderDesign(stream), rng);
  const labels = balancedLabels(n, rng);
  // Exact shares within each label: high overlap, and the family's extra (a background place).
  const flags = new Map<Label, { high: boolean[]; extra: boolean[] }>();
  for (const l of ['Yes', 'No'] as const) {
    const m = labels.filter((x) => x === l).length;
    flags.set(l, { high: exactFlags(m, ARTIFACT_RATES.oodOverlap, rng), extra: exactFlags(m, ARTIFACT_RATES.oodBackground, rng) });
  }
  const taken = { Yes: 0, No: 0 };
  const out = new Map(members.map((m): [string, Example[]] => [m.design.id, []]));
  for (const label of labels) {
    const k = taken[label]++;
    const high = flags.get(label)!.high[k];
    const { negH, place } = spec(label, high, flags.get(label)!.extra[k], rng);
    let added = false;
    for (let attempt = 0; attempt < 200 && !added; attempt++) {
      const pair = b.minimalPair(negH, high);
      const own = withPlace(label === 'Yes' ? pair.yes : pair.no, place);
      const other = withPlace(label === 'Yes' ? pair.no : pair.yes, place);
      const texts = members.map((m) => {
        const itemLabel = m.flips ? flip(label) : label;
        return { id: m.design.id, label: itemLabel, text: toText(m.item(own, other), { label: itemLabel, high, negH }, m.design.id) };
      });
      const keys = texts.map((t) => `${t.text.premise}\t${t.text.hypothesis}`);
      if (keys.some((key) => seen.has(key)) || new Set(keys).size < keys.length) continue;
      for (const key of keys) seen.add(key);
      for (const t of texts) {
        const list = out.get(t.id)!;
        list.push({ id: `${t.id}-${String(list.length).padStart(5, '0')}`, fields: t.text, label: t.label });
      }
      added = true;
    }
    if (!added) throw new UserError(`synthetic suite: set "${stream}" ran out of distinct examples; use smaller sizes`);
  }
  return out;
}

const EDIT = 'subject and object swapped, or a hypernym / synonym exchanged for an unrelated word, which flips the label and keeps both cues';

/** The artifact suite's set designs (the in-domain set first), as describeSuite reports them. */
export function artifactDesigns(): SetDesign[] {
  const r = ARTIFACT_RATES;
  const inDomain: SetDesign = {
    id: 'in-domain', role: 'id', cue: 'none', relation: 'none',
    shift: 'none: the rule, "never" and the background places at training rates; the other place words independent of the label ' +
      '(what both training variants share)',
    overlapGivenYes: r.overlapGivenYes, overlapGivenNo: r.overlapGivenNo, negationGivenYes: r.negationGivenYes,
    negationGivenNo: r.negationGivenNo, placeRate: r.placeRate, substitution: 'mixed', vocabulary: 'id',
  };
  const negation: SetDesign = {
    id: 'negation-consistent', role: 'ood', cue: 'negation', relation: 'consistent',
    shift: '"never" in the hypothesis exactly when the answer is No; half the items end in a background place (lake, hill), ' +
      'independently of the label',
    overlapGivenYes: r.oodOverlap, overlapGivenNo: r.oodOverlap, negationGivenYes: 0, negationGivenNo: 1, placeRate: r.oodBackground,
    substitution: 'mixed', vocabulary: 'id',
  };
  const place: SetDesign = {
    id: 'place-consistent', role: 'ood', cue: 'place', relation: 'consistent',
    shift: `every item ends in a place that leans to its label in every training variant (${PLACE_GROUPS.yes.join(', ')}: Yes; ` +
      `${PLACE_GROUPS.no.join(', ')}: No); no "never"`,
    overlapGivenYes: r.oodOverlap, overlapGivenNo: r.oodOverlap, negationGivenYes: 0, negationGivenNo: 0, placeRate: 1,
    substitution: 'mixed', vocabulary: 'id',
  };
  return [
    inDomain,
    negation,
    { ...negation, ...mirroredRates(negation), id: 'negation-broken', relation: 'broken',
      shift: `mirror of negation-consistent: each item with ${EDIT}`,
      source: { set: negation.id, how: 'mirror' } },
    place,
    { ...place, ...mirroredRates(place), id: 'place-broken', relation: 'broken', shift: `mirror of place-consistent: each item with ${EDIT}`,
      source: { set: place.id, how: 'mirror' } },
    { ...place, id: 'place-variable', relation: 'variant',
      shift: 'recast of place-consistent: each place exchanged for its counterpart of the same strength ' +
        `(${[...RECAST].map(([a, b]) => `${a}→${b}`).join(', ')}), ` +
        'which variant a\'s training data ties to the label as the source\'s words and variant b\'s the other way round',
      source: { set: place.id, how: 'recast', agreesIn: ['a'] } },
  ];
}

/** Builds the artifact suite; the same options give the same suite, byte for byte. */
export function generateArtifactSuite(opts: SuiteOptions): Suite {
  const designs = artifactDesigns();
  const byId = new Map(designs.map((d) => [d.id, d]));
  const seen = new Set<string>();
  const trainVariants: TrainVariant[] = ARTIFACT_VARIANTS.map((v) => ({
    id: v,
    note: v === 'a'
      ? `${[...PLACE_GROUPS.yesInA].join(', ')} lean Yes and ${[...PLACE_GROUPS.noInA].join(', ')} lean No`
      : `${[...PLACE_GROUPS.yesInA].join(', ')} lean No and ${[...PLACE_GROUPS.noInA].join(', ')} lean Yes`,
    examples: trainingLike(opts.trainSize, opts.seed, v === 'a' ? 'train' : `train-${v}`, placeLeans(v), seen),
  }));
  const built = new Map<string, Example[]>([['in-domain', trainingLike(opts.testSize, opts.seed, 'in-domain', placeLeans('in-domain'), seen)]]);
  const member = (id: string, item: FamilyMember['item'], flips: boolean): FamilyMember => ({ design: byId.get(id)!, item, flips });
  const own = (o: Item) => o;
  const other = (_: Item, x: Item) => x;
  const negationSets = family(opts.testSize, opts.seed, 'negation-consistent',
    [member('negation-consistent', own, false), member('negation-broken', other, true)], seen,
    (label, _high, extra, rng) => ({ negH: label === 'No', place: extra ? rng.pick(PLACE_GROUPS.background) : undefined }));
  const placeSets = family(opts.testSize, opts.seed, 'place-consistent',
    [member('place-consistent', own, false), member('place-broken', other, true), member('place-variable', (o) => recast(o), false)], seen,
    (label, _high, _extra, rng) => ({ negH: false, place: rng.pick(label === 'Yes' ? PLACE_GROUPS.yes : PLACE_GROUPS.no) }));
  for (const m of [negationSets, placeSets]) for (const [id, examples] of m) built.set(id, examples);
  const testSets: SuiteTestSet[] = designs.map((d) => ({
    id: d.id, role: d.role, cue: d.cue, relation: d.relation, design: d, examples: built.get(d.id)!,
  }));
  const r = ARTIFACT_RATES;
  return {
    options: {
      seed: opts.seed, trainSize: opts.trainSize, testSize: opts.testSize, idOverlapRate: r.overlapGivenYes,
      idNegationGivenNo: r.negationGivenNo, idNegationGivenYes: r.negationGivenYes, oodCueRate: 1, oodSets: designs.slice(1), design: 'artifacts',
    },
    train: trainVariants[0].examples,
    trainVariants,
    testSets,
    task: syntheticTask(),
    vocabulary: suiteVocabulary(syntheticTask(), ARTIFACT_PLACES),
  };
}

/** The training set a study's `data: synthetic[:variant]` names, or a user error naming the suite's variants. */
export function trainingVariant(suite: Pick<Suite, 'train' | 'trainVariants'>, variant: string | undefined): Example[] {
  if (variant === undefined) return suite.train;
  const found = suite.trainVariants?.find((v) => v.id === variant);
  if (!found) {
    throw new UserError(`the synthetic suite has no training variant "${variant}" (${suite.trainVariants
      ? `it has ${suite.trainVariants.map((v) => v.id).join(', ')}` : 'its design has one training set: use data: synthetic'})`);
  }
  return found.examples;
}
