// The item builder the synthetic suite's designs share (generate.ts: the classic suite; artifacts.ts:
// the artifact suite): premises over the closed vocabulary, the training constructions (yes / no),
// minimal pairs (one premise, two hypotheses one edit apart, so a set and its mirror are built
// together) and renaming nouns (twins). Every item is checked against the rule before it is kept.
import type { Random } from '../seeded-random.ts';
import {
  AGENT_CATEGORIES, ALL_VERBS, CATEGORIES, hypernymOf, nounsOf, PLACES, sameSynset, synonymsOf, type Category,
} from './lexicon.ts';
import { contentWords, formatSentence, highOverlap, hypothesisNegated, trueLabel, type Label, type Sentence } from './rule.ts';
import type { SetDesign } from './design.ts';

export interface Spec { label: Label; high: boolean; negH: boolean }

export function exactFlags(n: number, p: number, rng: Random): boolean[] {
  const k = Math.round(n * p);
  return rng.shuffle(Array.from({ length: n }, (_, i) => i < k));
}

export class Builder {
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

export type Item = [Sentence, Sentence];

/** Formats an item and checks it against the rule and the spec it was built for (a builder bug fails loudly). */
export function toText([p, h]: Item, spec: Spec, setId: string): { premise: string; hypothesis: string } {
  const premise = formatSentence(p);
  const hypothesis = formatSentence(h);
  if (trueLabel(premise, hypothesis) !== spec.label || highOverlap(premise, hypothesis) !== spec.high ||
    hypothesisNegated(hypothesis) !== spec.negH) {
    throw new Error(`synthetic suite: built ${JSON.stringify({ premise, hypothesis })} for ${JSON.stringify(spec)} in set "${setId}", ` +
      `which breaks its design`);
  }
  return { premise, hypothesis };
}

export const flip = (l: Label): Label => (l === 'Yes' ? 'No' : 'Yes');
