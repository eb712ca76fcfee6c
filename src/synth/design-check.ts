// Designed against found: the suite says what each OOD pair's construction fixes (describe.ts: a
// sign in every run, a sign that follows the run's training variant, or nothing), an analysis says
// each pair's one verdict across runs (generalises, depends on the model, negligible everywhere,
// inconclusive) and in how many runs it came out significantly positive or negative. This module
// compares the two and words the verdict once, for the demo's printout and the report alike. It
// takes the analysis's findings as plain data, so the suite does not depend on the analysis code.
import type { ExpectedCorrelation, ExpectedSign } from './describe.ts';
import { alignColumns, wrapText } from '../text-table.ts';

/**
 * Per OOD pair, how many runs gave a significant positive / negative correlation (analyze's
 * agreement rows) and, when the caller has it, the pair's verdict across runs with the sign it
 * establishes (`found`: the pooled sign when the verdict is "generalises", else 'none'); with
 * `found` the outcome follows the verdict, so the check and the analysis's headline agree.
 * `byRun`: each run's significant sign (null: not significant), for pairs designed to depend on
 * the training variant.
 */
export interface FoundSigns {
  a: string; b: string; positive: number; negative: number; runs: number; verdict?: string; found?: ExpectedSign;
  byRun?: Record<string, 'positive' | 'negative' | null>;
}

/** The verdict each designed sign expects (analyze/verdict.ts's words); 'none' expects nothing. */
export const DESIGNED_VERDICT: Record<Exclude<ExpectedSign, 'none'>, string> = {
  positive: 'generalises', negative: 'generalises', depends: 'depends on the model', negligible: 'negligible everywhere',
};

export type PairOutcome =
  /** the designed verdict (with its sign; a pair designed to depend on the variant: no run with the other variant's sign) */
  | 'recovered'
  /** another verdict, with no sign against the design */
  | 'missed'
  /** the opposite sign, or a run with the sign designed for the other training variant */
  | 'wrong sign'
  /** no designed relation, and none claimed (any verdict but "generalises") */
  | 'quiet'
  /** no designed relation, yet it generalises (without verdicts: significant in most runs) */
  | 'spurious';

export interface DesignCheckRow extends FoundSigns {
  designed: ExpectedSign;
  why: string;
  outcome: PairOutcome;
  /** With designed 'depends': the sign designed for runs of each training variant. */
  byVariant?: Record<string, 'positive' | 'negative'>;
  /** With designed 'depends' and runs whose variant is known: the runs whose significant sign is the other one. */
  against?: string[];
}

export interface DesignCheck {
  rows: DesignCheckRow[];
  runs: number;
  designed: number;
  recovered: number;
  /** Designed and recovered pairs by designed verdict ('generalises' for a sign in every run). */
  byVerdict: Record<string, { designed: number; recovered: number }>;
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

/** The recovery rule: every designed pair in most runs with its sign and never the other, at most two spurious pairs. */
export const MAX_SPURIOUS_PAIRS = 2;

const key = (a: string, b: string) => [a, b].sort().join('\u0000');

/** "Most runs": more than half of them (2 of 3, 1 of 1). */
export function inMostRuns(count: number, runs: number): boolean {
  return runs > 0 && count > runs / 2;
}

function outcome(designed: ExpectedSign, f: FoundSigns, against: string[]): PairOutcome {
  if (f.found !== undefined) {
    if (designed === 'none') return f.found === 'none' ? 'quiet' : 'spurious';
    if (designed === 'depends') return f.verdict !== DESIGNED_VERDICT.depends ? 'missed' : against.length > 0 ? 'wrong sign' : 'recovered';
    if (designed === 'negligible') return f.verdict === DESIGNED_VERDICT.negligible ? 'recovered' : f.found !== 'none' ? 'wrong sign' : 'missed';
    return f.found === designed ? 'recovered' : f.found === 'none' ? 'missed' : 'wrong sign';
  }
  if (designed === 'none') return inMostRuns(f.positive + f.negative, f.runs) ? 'spurious' : 'quiet';
  if (designed === 'depends') return against.length > 0 ? 'wrong sign' : f.positive > 0 && f.negative > 0 ? 'recovered' : 'missed';
  if (designed === 'negligible') return f.positive + f.negative === 0 ? 'recovered' : 'missed';
  const [agree, contra] = designed === 'positive' ? [f.positive, f.negative] : [f.negative, f.positive];
  if (contra > 0) return 'wrong sign';
  return inMostRuns(agree, f.runs) ? 'recovered' : 'missed';
}

const verdictOf = (d: ExpectedSign) => (d === 'none' ? 'none' : DESIGNED_VERDICT[d]);

/**
 * Compares the pairs the analysis has (`found`; pairs of sets it did not analyse are left out) with
 * the design. `variantOfRun` names each run's training variant, so that a pair designed to depend
 * on it is also checked run by run: a run significant with the sign designed for the other variant
 * fails it.
 */
export function checkDesign(expected: readonly ExpectedCorrelation[], found: readonly FoundSigns[], maxSpurious = MAX_SPURIOUS_PAIRS,
  variantOfRun: Readonly<Record<string, string>> = {}): DesignCheck {
  const design = new Map(expected.map((e) => [key(e.a, e.b), e]));
  const rows = found.map((f): DesignCheckRow => {
    const e = design.get(key(f.a, f.b));
    const designed = e?.sign ?? 'none';
    const byVariant = designed === 'depends' ? e?.byVariant : undefined;
    const against = byVariant ? Object.entries(f.byRun ?? {})
      .filter(([run, sign]) => sign !== null && variantOfRun[run] !== undefined && byVariant[variantOfRun[run]] !== undefined &&
        byVariant[variantOfRun[run]] !== sign)
      .map(([run]) => run) : [];
    return { ...f, designed, why: e?.why ?? 'not in the suite\'s design', outcome: outcome(designed, f, against),
      ...(byVariant ? { byVariant, against } : {}) };
  });
  // Designed pairs first (as the suite lists them), then the rest.
  rows.sort((x, y) => Number(x.designed === 'none') - Number(y.designed === 'none'));
  const runs = Math.max(0, ...found.map((f) => f.runs));
  const designedRows = rows.filter((r) => r.designed !== 'none');
  const recovered = designedRows.filter((r) => r.outcome === 'recovered').length;
  const byVerdict: DesignCheck['byVerdict'] = {};
  for (const r of designedRows) {
    const v = (byVerdict[verdictOf(r.designed)] ??= { designed: 0, recovered: 0 });
    v.designed++;
    if (r.outcome === 'recovered') v.recovered++;
  }
  const spurious = rows.filter((r) => r.outcome === 'spurious').length;
  const undesigned = rows.length - designedRows.length;
  const passed = runs > 0 && designedRows.length > 0 && recovered === designedRows.length && spurious <= maxSpurious;
  const c = { rows, runs, designed: designedRows.length, recovered, byVerdict, undesigned, spurious, maxSpurious, passed };
  return { ...c, verdict: verdictSentence(c) };
}

function verdictSentence(c: Omit<DesignCheck, 'verdict'>): string {
  if (c.runs === 0) return 'Not checked: no run was analysed.';
  if (c.designed === 0) return 'Not checked: the analysed test sets hold no pair with a designed relation.';
  const byVerdict = c.rows.some((r) => r.found !== undefined);
  const most = c.runs === 1 ? 'the run' : `most of the ${c.runs} runs`;
  const g = c.byVerdict.generalises;
  const parts: string[] = [];
  if (g) {
    parts.push(byVerdict
      ? `${g.recovered} of ${g.designed} designed pairs generalise with their designed sign across the ${c.runs} runs`
      : `${g.recovered} of ${g.designed} designed pairs significant with their designed sign in ${most} and never with the other`);
  }
  const d = c.byVerdict[DESIGNED_VERDICT.depends];
  if (d) {
    parts.push(`${d.recovered} of ${d.designed} pairs designed to depend on the training variant ` +
      `${byVerdict ? 'depend on the model' : 'have both signs'}` +
      ' with no run against its variant\'s sign');
  }
  const n = c.byVerdict[DESIGNED_VERDICT.negligible];
  if (n) parts.push(`${n.recovered} of ${n.designed} pairs designed negligible ${byVerdict ? 'are negligible everywhere' : 'significant in no run'}`);
  const designed = parts.join(', ');
  const spurious = byVerdict
    ? `${c.spurious} of ${c.undesigned} pairs with no designed relation generalise (at most ${c.maxSpurious} allowed)`
    : `${c.spurious} of ${c.undesigned} pairs with no designed relation significant in ${most} (at most ${c.maxSpurious} allowed)`;
  if (c.passed) return `Recovered: ${designed}; ${spurious}.`;
  const failures = c.rows.filter((r) => r.outcome === 'wrong sign' || r.outcome === 'missed').map((r) => `${r.a} / ${r.b} ${
    r.outcome === 'wrong sign'
      ? r.against?.length ? `has the other variant's sign in ${r.against.join(', ')}` : 'has the wrong sign'
      : r.verdict !== undefined ? `is ${r.verdict}` : 'is missed'}`);
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
    ...wrapText('Designed against found: the synthetic suite fixes what some OOD pairs must do by construction (mirrored items move ' +
      `apart, twin items together${c.rows.some((r) => r.designed === 'depends')
        ? ', recast items one way or the other with the run\'s training variant' : ''}); ` +
      'the rest have none.', width),
    ...alignColumns([header, ...cells], { indent: 2 }),
    ...(quiet ? [`  and ${quiet} pair${quiet === 1 ? '' : 's'} with no designed relation, none found to generalise (quiet)`] : []),
    ...wrapText(`Verdict: ${c.verdict}`, width),
  ].join('\n') + '\n';
}
