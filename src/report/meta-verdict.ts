// The meta-analysis verdict of a pair as the report reads and draws it. THE ONE PLACE that knows
// which field of the meta-analysis holds the verdict (analyze/verdict.ts decides it) and how each
// verdict looks (a tone for colour and row class, a mark for the heatmap cell, the table and the
// forest row), so that when analyze's verdicts change, only this file changes. Every one of
// analyze's four outcomes (PAIR_VERDICTS) has its own look, checked by the compiler; a name that is
// not one of them is drawn as inconclusive.
import type { PairMeta } from '../analyze/pair-meta.ts';
import { PAIR_VERDICTS, type PairVerdict } from '../analyze/verdict.ts';

/**
 * holds: the sign carries to a new model (generalises); varies: the runs disagree beyond chance
 * (depends on the model); negligible: shown to be inside the equivalence margin for a new model
 * (negligible everywhere); unsure: not enough to say (inconclusive).
 */
export type VerdictTone = 'holds' | 'varies' | 'negligible' | 'unsure';

export interface VerdictLook { tone: VerdictTone; mark: string; colour: string }

const LOOKS: Record<PairVerdict, VerdictLook> = {
  generalises: { tone: 'holds', mark: '✓', colour: '#1f5fa8' },
  'depends on the model': { tone: 'varies', mark: '≠', colour: '#b0520a' },
  'negligible everywhere': { tone: 'negligible', mark: '○', colour: '#3d6b3d' },
  inconclusive: { tone: 'unsure', mark: '?', colour: '#555555' },
};

/** The pair's verdict (one of PAIR_VERDICTS). */
export function metaVerdict(p: Pick<PairMeta, 'verdict'>): PairVerdict {
  return p.verdict;
}

export function verdictLook(verdict: string): VerdictLook {
  return (PAIR_VERDICTS as readonly string[]).includes(verdict) ? LOOKS[verdict as PairVerdict] : LOOKS.inconclusive;
}

/** The verdicts present, in the order the headline counts them (PAIR_VERDICTS), with their looks. */
export function verdictLegend(verdicts: readonly string[]): { verdict: string; look: VerdictLook }[] {
  const present = new Set(verdicts);
  return PAIR_VERDICTS.filter((v) => present.has(v)).map((verdict) => ({ verdict, look: LOOKS[verdict] }));
}
