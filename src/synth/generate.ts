// The synthetic generalisation suite: genstudy's embedded default data (no downloads).
//
// A small NLI-like binary task: does the hypothesis follow from the premise? Sentences are
// "the S [never] V the O [in the P]." over a closed vocabulary (lexicon.ts); the true rule is a
// lookup of hypernyms and verb synonyms with negation respected (rule.ts). The ID training data
// carries two spurious cues that agree with the label more often than not:
//   overlap  - every content word of the hypothesis occurs in the premise  -> Yes (default 80%)
//   negation - "never" in the hypothesis                                   -> No  (40% of No, 10% of Yes)
// The OOD sets (design.ts, defaultOodDesigns) keep the rule and change one cue's relation to the
// label (the other cue occurs independently of the label) or only a neutral property:
//   overlap-consistent / overlap-broken        overlap cue predictive / reversed (HANS-like)
//   negation-consistent / negation-broken      negation cue predictive / reversed
//   negation-consistent-renamed                as negation-consistent, with other nouns
//   vocabulary-shift                           as negation-consistent, with held-out nouns
// The designed relations hold by construction (design.ts, SetSource): negation-broken is the
// mirror of negation-consistent (item i with one edit that flips the label and that neither cue
// sees); negation-consistent-renamed and vocabulary-shift are its twins (item i with its nouns
// renamed, from the training nouns or from held-out ones). Across checkpoints, with ID accuracy
// regressed out, a set and its mirror move against each other and a set and its twins together,
// for as long as the model does not see the edit; describeSuite gives the designed signs as data.
// The overlap sets are built independently: no construction ties them to each other or to the
// negation family (the demo's tiny models never lean on the overlap cue).
//
// Every example is checked against the rule and the cue it was built to show, so a bug in the
// builder fails loudly instead of skewing the statistics. Each set built from its own design has
// its own random stream keyed by (seed, set id), shared with its mirror and twin, so one set's
// size never changes another's examples. No (premise, hypothesis) pair occurs twice in a suite.
import { UserError } from '../errors.ts';
import type { Example } from '../types.ts';
import { seededRandom, type Random } from '../seeded-random.ts';
import { syntheticTask, type ClassifyTaskSpec } from '../tasks/index.ts';
import {
  AGENT_CATEGORIES, ALL_VERBS, CATEGORIES, hypernymOf, nounsOf, PLACES, sameSynset, synonymsOf, type Category,
} from './lexicon.ts';
import { contentWords, formatSentence, highOverlap, hypothesisNegated, trueLabel, type Label, type Sentence } from './rule.ts';
import { DEFAULTS, defaultOodDesigns, idDesign, validateDesign, validateOptions, type CueName, type CueRelation, type SetDesign,
  type SuiteOptions } from './design.ts';
import { suiteVocabulary } from './vocabulary.ts';

export interface SuiteTestSet {
  id: string;
  role: SetDesign['role'];
  cue: CueName;
  relation: CueRelation;
  design: SetDesign;
  examples: Example[];
}

export interface Suite {
  options: Required<Omit<SuiteOptions, 'oodSets'>> & { oodSets: SetDesign[] };
  train: Example[];
  testSets: SuiteTestSet[];
  task: ClassifyTaskSpec;
  vocabulary: string[];
}

interface Spec { label: Label; high: boolean; negH: boolean }

function exactFlags(n: number, p: number, rng: Random): boolean[] {
  const k = Math.round(n * p);
  return rng.shuffle(Array.from({ length: n }, (_, i) => i < k));
}

function specsFor(design: SetDesign, n: number, rng: Random): Spec[] {
  const nYes = Math.ceil(n / 2);
  const out: Spec[] = [];
  for (const [label, m, pHigh, pNeg] of [
    ['Yes', nYes, design.overlapGivenYes, design.negationGivenYes],
    ['No', n - nYes, design.overlapGivenNo, design.negationGivenNo],
  ] as const) {
    const high = exactFlags(m, pHigh, rng);
    const neg = exactFlags(m, pNeg, rng);
    for (let i = 0; i < m; i++) out.push({ label, high: high[i], negH: neg[i] });
  }
  return rng.shuffle(out);
}

class Builder {
  readonly agents: string[];
  readonly nouns: string[];
  readonly allowNegation: boolean;
  constructor(readonly d: SetDesign, readonly rng: Random) {
    this.agents = nounsOf(d.vocabulary, AGENT_CATEGORIES);
    this.nouns = nounsOf(d.vocabulary, CATEGORIES);
    this.allowNegation = d.negationGivenYes > 0 || d.negationGivenNo > 0;
  }

  premise(negated: boolean, place: 'free' | 'yes' | 'no', objectIsAgent = false): Sentence {
    const subject = this.rng.pick(this.agents);
    const object = this.rng.pick((objectIsAgent ? this.agents : this.nouns).filter((n) => n !== subject));
    const s: Sentence = { subject, negated, verb: this.rng.pick(ALL_VERBS), object };
    const withPlace = place === 'yes' || (place === 'free' && this.rng.next() < this.d.placeRate);
    if (withPlace) s.place = this.rng.pick(PLACES);
    return s;
  }

  /** In a positive hypothesis the premise's place phrase may be kept or dropped; under negation it is kept. */
  keepOrDropPlace(h: Sentence): void {
    if (h.place !== undefined && !h.negated && this.rng.next() < 0.5) delete h.place;
  }

  /** Which substitutions the design allows; falls back to all when the filter leaves none. */
  allowed<T extends string>(options: { name: T; kind: 'noun' | 'verb' | 'place' }[]): T[] {
    const keep = options.filter((o) => this.d.substitution === 'mixed' ||
      (this.d.substitution === 'hypernym' ? o.kind !== 'verb' : o.kind !== 'noun'));
    return (keep.length > 0 ? keep : options).map((o) => o.name);
  }

  /** Picks one required option and adds each other one with probability 0.3. */
  subset<T>(options: T[]): T[] {
    const first = this.rng.pick(options);
    return [first, ...options.filter((o) => o !== first && this.rng.next() < 0.3)];
  }

  otherNoun(current: string, pool: string[], avoid: Set<string>): string {
    const hyper = hypernymOf(current);
    const cats = CATEGORIES.filter((c) => pool === this.nouns || AGENT_CATEGORIES.includes(c as Category));
    const candidates = [...pool, ...cats].filter((w) => w !== current && w !== hyper && !avoid.has(w));
    return this.rng.pick(candidates);
  }

  yes(negH: boolean, high: boolean): [Sentence, Sentence] {
    if (high) {
      const p = this.premise(negH, 'free');
      const h = { ...p };
      this.keepOrDropPlace(h);
      return [p, h];
    }
    if (!negH) {
      const moves = this.subset(this.allowed([
        { name: 'subject-up', kind: 'noun' }, { name: 'object-up', kind: 'noun' }, { name: 'verb-synonym', kind: 'verb' },
      ]));
      const p = this.premise(false, 'free');
      const h = { ...p };
      if (moves.includes('subject-up')) h.subject = hypernymOf(p.subject)!;
      if (moves.includes('object-up')) h.object = hypernymOf(p.object)!;
      if (moves.includes('verb-synonym')) h.verb = this.rng.pick(synonymsOf(p.verb));
      this.keepOrDropPlace(h);
      return [p, h];
    }
    const moves = this.subset(this.allowed([{ name: 'verb-synonym', kind: 'verb' }, { name: 'add-place', kind: 'place' }]));
    const p = this.premise(true, moves.includes('add-place') ? 'no' : 'free');
    const h = { ...p };
    if (moves.includes('verb-synonym')) h.verb = this.rng.pick(synonymsOf(p.verb));
    if (moves.includes('add-place')) h.place = this.rng.pick(PLACES);
    return [p, h];
  }

  no(negH: boolean, high: boolean): [Sentence, Sentence] {
    if (high) {
      const options: ('polarity' | 'swap' | 'drop-place-under-negation')[] = ['swap'];
      if (this.allowNegation) options.push('polarity');
      if (negH) options.push('drop-place-under-negation');
      const how = this.rng.pick(options);
      if (how === 'polarity') {
        const p = this.premise(!negH, 'free');
        const h = { ...p, negated: negH };
        if (!negH) this.keepOrDropPlace(h);
        return [p, h];
      }
      if (how === 'swap') {
        const p = this.premise(negH, 'free', true);
        const h = { ...p, subject: p.object, object: p.subject };
        this.keepOrDropPlace(h);
        return [p, h];
      }
      const p = this.premise(true, 'yes');
      const h = { ...p };
      delete h.place;
      return [p, h];
    }
    const violations = this.allowed<'subject-other' | 'object-other' | 'verb-other' | 'add-place' | 'change-place'>([
      { name: 'subject-other', kind: 'noun' }, { name: 'object-other', kind: 'noun' }, { name: 'verb-other', kind: 'verb' },
      ...(negH ? [] : [{ name: 'add-place' as const, kind: 'place' as const }, { name: 'change-place' as const, kind: 'place' as const }]),
    ]);
    const how = this.rng.pick(violations);
    const p = this.premise(negH, how === 'add-place' ? 'no' : how === 'change-place' ? 'yes' : 'free');
    const h = { ...p };
    const avoid = new Set(contentWords(p));
    if (how === 'subject-other') h.subject = this.otherNoun(p.subject, this.agents, avoid);
    else if (how === 'object-other') h.object = this.otherNoun(p.object, this.nouns, avoid);
    else if (how === 'verb-other') h.verb = this.rng.pick(ALL_VERBS.filter((v) => !sameSynset(v, p.verb) && v !== p.verb));
    else if (how === 'add-place') h.place = this.rng.pick(PLACES);
    else h.place = this.rng.pick(PLACES.filter((x) => x !== p.place));
    if (how !== 'add-place' && how !== 'change-place') this.keepOrDropPlace(h);
    return [p, h];
  }

  /**
   * The same item with other nouns, from `vocabulary`: each distinct noun of the item is replaced,
   * the same way in both sentences, by a different noun of its category (distinct nouns by
   * distinct ones). Equal nouns stay equal, a noun and its hypernym stay so, unrelated ones stay
   * unrelated: the label and both cues are kept, and so are the length and every word position.
   */
  renamed([p, h]: Item, vocabulary: SetDesign['vocabulary']): Item {
    const rename = new Map<string, string>();
    for (const c of CATEGORIES) {
      const used = [p.subject, p.object, h.subject, h.object].filter((n, i, all) => hypernymOf(n) === c && all.indexOf(n) === i);
      const targets = this.rng.shuffle(nounsOf(vocabulary, [c]).filter((n) => !used.includes(n)));
      if (targets.length < used.length) throw new Error(`synthetic suite: not enough ${c} nouns to rename ${used.join(', ')}`);
      used.forEach((n, i) => rename.set(n, targets[i]));
    }
    const r = (s: Sentence): Sentence => ({ ...s, subject: rename.get(s.subject) ?? s.subject, object: rename.get(s.object) ?? s.object });
    return [r(p), r(h)];
  }

  /**
   * A minimal pair: one premise, two hypotheses that differ in one edit and have the same words as
   * far as both cues are concerned (the same overlap status, "never" in both or in neither; the
   * premise has the hypothesis's polarity). High overlap: the hypothesis copies the premise (Yes)
   * or swaps its subject and object (No). Low overlap: one word of the hypothesis is the premise
   * noun's hypernym or the verb's synonym (Yes), or an unrelated word in its place (No). Seeing the
   * difference takes word order or the taxonomy, which no cue gives.
   */
  minimalPair(negH: boolean, high: boolean): { yes: [Sentence, Sentence]; no: [Sentence, Sentence] } {
    if (high) {
      const p = this.premise(negH, 'free', true);
      const h = { ...p };
      this.keepOrDropPlace(h);
      return { yes: [p, h], no: [p, { ...h, subject: h.object, object: h.subject }] };
    }
    // Under negation only the verb may change (nouns must stay identical there).
    const move = this.rng.pick(negH
      ? ['verb' as const]
      : this.allowed<'subject' | 'object' | 'verb'>([{ name: 'subject', kind: 'noun' }, { name: 'object', kind: 'noun' },
        { name: 'verb', kind: 'verb' }]));
    const p = this.premise(negH, 'free');
    const base = { ...p };
    this.keepOrDropPlace(base);
    const yes = { ...base };
    const no = { ...base };
    const avoid = new Set(contentWords(p));
    if (move === 'verb') {
      yes.verb = this.rng.pick(synonymsOf(p.verb));
      no.verb = this.rng.pick(ALL_VERBS.filter((v) => !sameSynset(v, p.verb) && v !== p.verb));
    } else if (move === 'subject') {
      yes.subject = hypernymOf(p.subject)!;
      no.subject = this.otherNoun(p.subject, this.agents, avoid);
    } else {
      yes.object = hypernymOf(p.object)!;
      no.object = this.otherNoun(p.object, this.nouns, avoid);
    }
    return { yes: [p, yes], no: [p, no] };
  }
}

type Item = [Sentence, Sentence];

/** Formats an item and checks it against the rule and the spec it was built for (a builder bug fails loudly). */
function toText([p, h]: Item, spec: Spec, setId: string): { premise: string; hypothesis: string } {
  const premise = formatSentence(p);
  const hypothesis = formatSentence(h);
  if (trueLabel(premise, hypothesis) !== spec.label || highOverlap(premise, hypothesis) !== spec.high ||
    hypothesisNegated(hypothesis) !== spec.negH) {
    throw new Error(`synthetic suite: built ${JSON.stringify({ premise, hypothesis })} for ${JSON.stringify(spec)} in set "${setId}", ` +
      `which breaks its design`);
  }
  return { premise, hypothesis };
}

const flip = (l: Label): Label => (l === 'Yes' ? 'No' : 'Yes');

/** The sets built item by item from one source set (design.ts, SetSource). */
interface Dependants { mirror?: SetDesign; twins: SetDesign[] }

/**
 * Builds one set from its design. An OOD set is built from minimal pairs (Builder.minimalPair):
 * its own item is one side of the pair, its mirror's item (if it has one) the other side,
 * each twin's item its own item with its nouns renamed (Builder.renamed). Returns each set's examples by id.
 */
function generateSet(design: SetDesign, n: number, seed: number, stream: string, seen: Set<string>,
  dependants: Dependants = { twins: [] }): Map<string, Example[]> {
  const rng = seededRandom(seed, 'synth', stream);
  const builder = new Builder(design, rng);
  const { mirror, twins } = dependants;
  // Every OOD set is built from minimal pairs, so that its items differ from their partners only
  // by the rule: polarity always matches (a mismatch would put "never" in one sentence only, a cue
  // of its own), and a set whose cues are independent of the label gives a cue-only model nothing.
  const paired = design.role === 'ood';
  const out = new Map<string, Example[]>([design, ...(mirror ? [mirror] : []), ...twins].map((d): [string, Example[]] => [d.id, []]));
  for (const spec of specsFor(design, n, rng)) {
    let added = false;
    for (let attempt = 0; attempt < 200 && !added; attempt++) {
      const items: [SetDesign, Item, Spec][] = [];
      if (!paired) {
        items.push([design, spec.label === 'Yes' ? builder.yes(spec.negH, spec.high) : builder.no(spec.negH, spec.high), spec]);
      } else {
        const pair = builder.minimalPair(spec.negH, spec.high);
        const own = spec.label === 'Yes' ? pair.yes : pair.no;
        items.push([design, own, spec]);
        if (mirror) items.push([mirror, spec.label === 'Yes' ? pair.no : pair.yes, { ...spec, label: flip(spec.label) }]);
        for (const twin of twins) items.push([twin, builder.renamed(own, twin.vocabulary), spec]);
      }
      const texts = items.map(([d, item, s]) => toText(item, s, d.id));
      const keys = texts.map((t) => `${t.premise}\t${t.hypothesis}`);
      if (keys.some((k) => seen.has(k))) continue;
      for (const k of keys) seen.add(k);
      items.forEach(([d, , s], i) => {
        const list = out.get(d.id)!;
        list.push({ id: `${d.id === design.id ? stream : d.id}-${String(list.length).padStart(5, '0')}`, fields: texts[i], label: s.label });
      });
      added = true;
    }
    if (!added) throw new UserError(`synthetic suite: set "${design.id}" ran out of distinct examples; use smaller sizes`);
  }
  return out;
}

/** Builds the whole suite from options; the same options give the same suite, byte for byte. */
export function generateSuite(opts: SuiteOptions): Suite {
  validateOptions(opts);
  const id = idDesign(opts);
  const ood = opts.oodSets ?? defaultOodDesigns(opts);
  const designs = [id, ...ood];
  designs.forEach((d, i) => {
    if (i > 0) validateDesign(d, designs.slice(1, i));
    if (designs.slice(0, i).some((e) => e.id === d.id)) throw new UserError(`synthetic suite: two sets are called "${d.id}"`);
  });
  const seen = new Set<string>();
  const train = generateSet(id, opts.trainSize, opts.seed, 'train', seen).get(id.id)!;
  const built = new Map<string, Example[]>();
  for (const d of designs) {
    if (d.source !== undefined) continue; // built with its source
    const dependants = (how: 'mirror' | 'twin') => ood.filter((m) => m.source?.how === how && m.source.set === d.id);
    const linked = { mirror: dependants('mirror')[0], twins: dependants('twin') };
    for (const [setId, examples] of generateSet(d, opts.testSize, opts.seed, d.id, seen, linked)) built.set(setId, examples);
  }
  const testSets: SuiteTestSet[] = designs.map((d) => ({
    id: d.id, role: d.role, cue: d.cue, relation: d.relation, design: d, examples: built.get(d.id)!,
  }));
  return {
    options: {
      seed: opts.seed, trainSize: opts.trainSize, testSize: opts.testSize,
      idOverlapRate: id.overlapGivenYes, idNegationGivenNo: id.negationGivenNo, idNegationGivenYes: id.negationGivenYes,
      oodCueRate: opts.oodCueRate ?? DEFAULTS.oodCueRate, oodSets: ood,
    },
    train, testSets, task: syntheticTask(), vocabulary: suiteVocabulary(syntheticTask()),
  };
}
