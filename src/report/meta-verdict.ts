// The meta-analysis verdict of a pair as the report reads and draws it. THE ONE PLACE that knows
// which field of the meta-analysis row holds the verdict (pair-meta.ts decides it) and how each
// verdict looks (a tone for colour and row class, a mark for the heatmap cell and the forest row),
// so that when analyze's verdicts change, only this file changes. Both the current verdict names
// and the four outcomes analyze is moving to are listed; an unknown name is drawn neutrally.
import type { PairMeta } from '../analyze/pair-meta.ts';

/** holds: the sign carries to a new model; varies: the runs disagree beyond chance; unsure: not enough to say; none: nothing there or nothing pooled. */
export type VerdictTone = 'holds' | 'varies' | 'unsure' | 'none';

export interface VerdictLook { tone: VerdictTone; mark: string; colour: string }

const HOLDS: VerdictLook = { tone: 'holds', mark: '✓', colour: '#1f5fa8' };
const VARIES: VerdictLook = { tone: 'varies', mark: '≠', colour: '#b0520a' };
const UNSURE: VerdictLook = { tone: 'unsure', mark: '?', colour: '#555555' };
const NONE: VerdictLook = { tone: 'none', mark: '○', colour: '#555555' };

const LOOKS: Record<string, VerdictLook> = {
  generalises: HOLDS,
  heterogeneous: VARIES,
  'depends on the model': VARIES,
  'average only': UNSURE,
  inconclusive: UNSURE,
  null: NONE,
  'negligible everywhere': NONE,
  'one run': UNSURE,
  'no estimate': UNSURE,
};

/** The pair's verdict as text. */
export function metaVerdict(p: PairMeta): string {
  return p.verdict;
}

export function verdictLook(verdict: string): VerdictLook {
  return LOOKS[verdict] ?? UNSURE;
}

/** The verdicts in the order a legend lists them, with their looks, for the verdicts present. */
export function verdictLegend(verdicts: readonly string[]): { verdict: string; look: VerdictLook }[] {
  const order: VerdictTone[] = ['holds', 'varies', 'unsure', 'none'];
  return [...new Set(verdicts)]
    .map((verdict) => ({ verdict, look: verdictLook(verdict) }))
    .sort((x, y) => order.indexOf(x.look.tone) - order.indexOf(y.look.tone));
}
