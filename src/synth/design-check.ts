// Designed against found: the suite says which sign each OOD pair's partial correlation should have
// (describe.ts), an analysis says in how many runs each pair came out significantly positive or
// negative. This module compares the two and words the verdict once, for the demo's printout and
// the report alike. It takes the sign counts as plain data, so the suite does not depend on the
// analysis code that produces them.
import type { ExpectedCorrelation, ExpectedSign } from './describe.ts';
import { alignColumns, wrapText } from '../text-table.ts';

/**
 * Per OOD pair, how many runs gave a significant positive / negative correlation (analyze's
 * agreement rows) and, when the caller has it, the pair's verdict across runs with the sign it
 * establishes (`found`: the pooled sign when the verdict is "generalises", else 'none'); with
 * `found` the outcome follows the verdict, so the check and the analysis's headline agree.
 */
export interface FoundSigns { a: string; b: string; positive: number; negative: number; runs: number; verdict?: string; found?: ExpectedSign }

export type PairOutcome =
  /** designed sign in most runs, the other sign in none */
  | 'recovered'
  /** designed sign in half the runs or fewer, the other sign in none */
  | 'missed'
  /** significant with the sign opposite to the design in at least one run */
  | 'wrong sign'
  /** no designed relation, significant in half the runs or fewer */
  | 'quiet'
  /** no designed relation, yet significant in most runs */
  | 'spurious';

export interface DesignCheckRow extends FoundSigns { designed: ExpectedSign; why: string; outcome: PairOutcome }

export interface DesignCheck {
  rows: DesignCheckRow[];
  runs: number;
  designed: number;
  recovered: number;
  undesigned: number;
  spurious: number;
  /**
   * How many pairs with no designed relation may come out significant in most runs (by chance or by shared training dynamics) for the
   * design to count as recovered.
   */
  maxSpurious: number;
  passed: boolean;
  /** One sentence: recovered or not, and why. */
  verdict: string;
}

/** The recovery rule (issue 11): every designed pair in most runs with its sign and never the other, at most two spurious pairs. */
export const MAX_SPURIOUS_PAIRS = 2;

const key = (a: string, b: string) => [a, b].sort().join('\u0000');

/** "Most runs": more than half of them (2 of 3, 1 of 1). */
export function inMostRuns(count: number, runs: number): boolean {
  return runs > 0 && count > runs / 2;
}

function outcome(designed: ExpectedSign, f: FoundSigns): PairOutcome {
  if (f.found !== undefined) {
    if (designed === 'none') return f.found === 'none' ? 'quiet' : 'spurious';
    return f.found === designed ? 'recovered' : f.found === 'none' ? 'missed' : 'wrong sign';
  }
  if (designed === 'none') return inMostRuns(f.positive + f.negative, f.runs) ? 'spurious' : 'quiet';
  const [agree, against] = designed === 'positive' ? [f.positive, f.negative] : [f.negative, f.positive];
  if (against > 0) return 'wrong sign';
  return inMostRuns(agree, f.runs) ? 'recovered' : 'missed';
}

/** Compares the pairs the analysis has (`found`; pairs of sets it did not analyse are left out) with the design. */
export function checkDesign(expected: readonly ExpectedCorrelation[], found: readonly FoundSigns[], maxSpurious = MAX_SPURIOUS_PAIRS): DesignCheck {
  const design = new Map(expected.map((e) => [key(e.a, e.b), e]));
  const rows = found.map((f): DesignCheckRow => {
    const e = design.get(key(f.a, f.b));
    const designed = e?.sign ?? 'none';
    return { ...f, designed, why: e?.why ?? 'not in the suite\'s design', outcome: outcome(designed, f) };
  });
  // Designed pairs first (as the suite lists them), then the rest.
  rows.sort((x, y) => Number(x.designed === 'none') - Number(y.designed === 'none'));
  const runs = Math.max(0, ...found.map((f) => f.runs));
  const designedRows = rows.filter((r) => r.designed !== 'none');
  const recovered = designedRows.filter((r) => r.outcome === 'recovered').length;
  const spurious = rows.filter((r) => r.outcome === 'spurious').length;
  const undesigned = rows.length - designedRows.length;
  const passed = runs > 0 && designedRows.length > 0 && recovered === designedRows.length && spurious <= maxSpurious;
  return {
    rows, runs, designed: designedRows.length, recovered, undesigned, spurious, maxSpurious, passed,
    verdict: verdictSentence({ rows, runs, designed: designedRows.length, recovered, undesigned, spurious, maxSpurious, passed }),
  };
}

function verdictSentence(c: Omit<DesignCheck, 'verdict'>): string {
  if (c.runs === 0) return 'Not checked: no run was analysed.';
  if (c.designed === 0) return 'Not checked: the analysed test sets hold no pair with a designed relation.';
  const byVerdict = c.rows.some((r) => r.found !== undefined);
  const most = c.runs === 1 ? 'the run' : `most of the ${c.runs} runs`;
  const designed = byVerdict
    ? `${c.recovered} of ${c.designed} designed pairs generalise with their designed sign across the ${c.runs} runs`
    : `${c.recovered} of ${c.designed} designed pairs significant with their designed sign in ${most} and never with the other`;
  const spurious = byVerdict
    ? `${c.spurious} of ${c.undesigned} pairs with no designed relation generalise (at most ${c.maxSpurious} allowed)`
    : `${c.spurious} of ${c.undesigned} pairs with no designed relation significant in ${most} (at most ${c.maxSpurious} allowed)`;
  if (c.passed) return `Recovered: ${designed}; ${spurious}.`;
  const failures = c.rows.filter((r) => r.outcome === 'wrong sign' || r.outcome === 'missed')
    .map((r) => `${r.a} / ${r.b} ${r.outcome === 'wrong sign' ? 'has the wrong sign' : r.verdict !== undefined ? `is ${r.verdict}` : 'is missed'}`);
  return `Not recovered: ${designed}; ${spurious}${failures.length ? ` (${failures.join(', ')})` : ''}.`;
}

/**
 * The comparison as text: a table of designed against found, then the verdict, in lines of at most
 * `width` columns. `compact` (what the demo prints) lists only the pairs that are not quiet and counts the rest.
 */
export function formatDesignCheck(c: DesignCheck, opts: { compact?: boolean; width?: number } = {}): string {
  const width = opts.width ?? 120;
  const byVerdict = c.rows.some((r) => r.verdict !== undefined);
  const header = ['a', 'b', 'designed', 'positive', 'negative', 'runs', ...(byVerdict ? ['verdict'] : []), 'outcome'];
  const shown = opts.compact ? c.rows.filter((r) => r.outcome !== 'quiet') : c.rows;
  const cells = shown.map((r) => [r.a, r.b, r.designed, String(r.positive), String(r.negative), String(r.runs),
    ...(byVerdict ? [r.verdict ?? ''] : []), r.outcome]);
  const quiet = c.rows.length - shown.length;
  return [
    ...wrapText('Designed against found: the synthetic suite fixes the sign of some OOD pairs by construction (mirrored items move apart, ' +
      'twin items together); the rest have none.', width),
    ...alignColumns([header, ...cells], { indent: 2 }),
    ...(quiet ? [`  and ${quiet} pair${quiet === 1 ? '' : 's'} with no designed relation and none found (quiet)`] : []),
    ...wrapText(`Verdict: ${c.verdict}`, width),
  ].join('\n') + '\n';
}
