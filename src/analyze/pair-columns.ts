// The columns of every table with one row per (run, pair of OOD sets): ONE spec for
// `genstudy analyze --format csv`, a study's analysis/pairs.csv and the report's
// partial_correlations table (its page and its CSV / JSON), so none of them can drop a column
// the others have. n_eff and representation are here because a pair's test counts its effective
// observations of levels or of first differences, not the run's checkpoints; unstable is why a
// run's pair was left out of the pooling (stability.ts), empty when it was not.
import type { AnalysisResult, PairResult, RunAnalysis } from './analysis.ts';
import { isSignificant } from './agreement.ts';

export type PairCell = string | number | boolean | null;

export interface PairColumn {
  name: string;
  /** The short header a page shows. */
  label: string;
  cell: (run: RunAnalysis, p: PairResult, alpha: number) => PairCell;
  /** Present only when some pair of the result has it (the checks asked for with --bootstrap / --permutations). */
  present?: (p: PairResult) => boolean;
}

const hasBootstrap = (p: PairResult) => p.bootstrap_ci95 !== undefined;

export const PAIR_COLUMNS: readonly PairColumn[] = [
  { name: 'run', label: 'run', cell: (run) => run.run },
  { name: 'a', label: 'a', cell: (_, p) => p.a },
  { name: 'b', label: 'b', cell: (_, p) => p.b },
  { name: 'n', label: 'n', cell: (run) => run.n },
  { name: 'r', label: 'r', cell: (_, p) => p.r },
  { name: 'n_eff', label: 'n_eff', cell: (_, p) => p.n_eff },
  { name: 'df', label: 'df', cell: (_, p) => p.df },
  { name: 'p', label: 'p', cell: (_, p) => p.p },
  { name: 'p_adjusted', label: 'p adjusted', cell: (_, p) => p.p_adjusted },
  { name: 'ci95_low', label: '95% CI low', cell: (_, p) => p.ci95?.[0] ?? null },
  { name: 'ci95_high', label: '95% CI high', cell: (_, p) => p.ci95?.[1] ?? null },
  { name: 'significant', label: 'significant', cell: (_, p, alpha) => isSignificant(p, alpha) },
  { name: 'representation', label: 'on', cell: (_, p) => p.representation },
  { name: 'reason', label: 'reason', cell: (_, p) => p.reason ?? null },
  { name: 'unstable', label: 'unstable', cell: (_, p) => p.unstable ?? null },
  { name: 'bootstrap_ci95_low', label: 'block bootstrap 95% CI low', cell: (_, p) => p.bootstrap_ci95?.[0] ?? null, present: hasBootstrap },
  { name: 'bootstrap_ci95_high', label: 'block bootstrap 95% CI high', cell: (_, p) => p.bootstrap_ci95?.[1] ?? null, present: hasBootstrap },
  { name: 'permutation_p', label: 'permutation p', cell: (_, p) => p.permutation_p ?? null, present: (p) => p.permutation_p !== undefined },
  // where SIMEX corrected the control's noise: its own r before the echo bound gave r, and the r without correction
  { name: 'r_simex', label: "SIMEX's r", cell: (_, p) => p.r_simex ?? null, present: (p) => p.r_simex !== undefined },
  { name: 'r_uncorrected', label: 'uncorrected r', cell: (_, p) => p.r_uncorrected ?? null, present: (p) => p.r_simex !== undefined },
];

/** The columns of this result: every fixed one, and an optional one when some pair has it. */
export function pairColumnsOf(result: Pick<AnalysisResult, 'runs'>): PairColumn[] {
  return PAIR_COLUMNS.filter((c) => !c.present || result.runs.some((r) => r.pairs.some(c.present!)));
}

/** One row per (run, pair) under pairColumnsOf's columns; significant means adjusted p < alpha. */
export function pairTable(result: Pick<AnalysisResult, 'runs'>, alpha: number): { columns: string[]; rows: PairCell[][] } {
  const columns = pairColumnsOf(result);
  const rows = result.runs.flatMap((run) => run.pairs.map((p) => columns.map((c) => c.cell(run, p, alpha))));
  return { columns: columns.map((c) => c.name), rows };
}
