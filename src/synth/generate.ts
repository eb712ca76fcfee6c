// The synthetic generalisation suite: genstudy's embedded default data (no downloads). This file
// builds the classic design (the default); the demo's artifact design is artifacts.ts.
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
import { syntheticTask } from '../tasks/index.ts';
import { DEFAULTS, defaultOodDesigns, idDesign, validateDesign, validateOptions, type SetDesign, type SuiteOptions } from './design.ts';
import { suiteVocabulary } from './vocabulary.ts';
import { Builder, exactFlags, flip, toText, type Item, type Spec } from './builder.ts';
import { generateArtifactSuite } from './artifacts.ts';
import type { Suite, SuiteTestSet } from './suite.ts';

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
  if (opts.design === 'artifacts') return generateArtifactSuite(opts);
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
