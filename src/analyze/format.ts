// Renders an analysis as a table for people, JSON for programs (the documented exact shape), or CSV.
// The table ends with the headline (analysis.headline), so analyze's last line is the answer.
import { signCountSentence, signVerdict } from './agreement.ts';
import type { AnalysisResult, AnalyzeOptions, PairResult } from './analysis.ts';
import { formatMetaTable, META_COLUMNS, metaRow, MODERATOR_COLUMNS, moderatorRows } from './format-meta.ts';
import { runVarianceFactor } from './fisher-z.ts';
import { INFERENCE_METHODS } from './inference-methods.ts';
import { pairTable } from './pair-columns.ts';
import { csvParts, csvText, intervalText, pValueText } from './text-cells.ts';
import { regressorLabel } from './regressor.ts';
import { alignColumns } from '../text-table.ts';
import { MIN_RELIABILITY } from '../stats/index.ts';

export type OutputFormat = 'table' | 'json' | 'csv';

/**
 * The analysis JSON's format, its first key: 1 was the JSON before it had this number (camelCase and
 * snake_case keys mixed); 2 has every key in snake_case (docs/analyze.md lists the renamed keys).
 */
export const ANALYSIS_JSON_VERSION = 2;

export function formatJson(result: AnalysisResult): string {
  return [...jsonParts(result)].join('');
}

/**
 * formatJson's text in parts, a run at a time: the runs are most of the text (15 MB at 30 runs x 1225
 * pairs), and one string of it, with JSON.stringify's own buffers, raised the analysis's peak memory.
 * The rest is stringified with a stand-in for the runs, and each run alone, indented to its depth
 * (JSON has no raw newline inside a string).
 */
export function* jsonParts(result: AnalysisResult): Generator<string> {
  const whole = { format_version: ANALYSIS_JSON_VERSION, ...result };
  if (result.runs.length === 0) {
    yield JSON.stringify(whole, null, 2) + '\n';
    return;
  }
  const text = JSON.stringify({ ...whole, runs: ['runs'] }, null, 2);
  // the depth-1 key and its line break: a string value holds its newlines escaped, so nothing else reads so
  const at = text.indexOf('"runs": [\n    "runs"') + '"runs": [\n    '.length;
  yield text.slice(0, at);
  for (let i = 0; i < result.runs.length; i++) {
    yield (i > 0 ? ',\n    ' : '') + JSON.stringify(result.runs[i], null, 2).replaceAll('\n', '\n    ');
  }
  yield text.slice(at + '"runs"'.length) + '\n';
}

/** One row per (run, pair) in the columns of pair-columns.ts (bootstrap / permutation ones when they were computed). */
export function formatPairsCsv(result: AnalysisResult, alpha: number): string {
  return [...pairsCsvParts(result, alpha)].join('');
}

/** formatPairsCsv's text in parts (text-cells.ts csvParts): 300 runs x 1225 pairs is 367,500 rows, written without one string. */
export function pairsCsvParts(result: AnalysisResult, alpha: number): Iterable<string> {
  const { columns, rows } = pairTable(result, alpha);
  return csvParts(columns, rows);
}

const AGREEMENT_COLUMNS = ['a', 'b', 'positive', 'negative', 'null', 'runs', 'signs'] as const;

function agreementRows(result: AnalysisResult): unknown[][] {
  return result.agreement.map((g) => [g.a, g.b, g.positive, g.negative, g.null, g.runs, signVerdict(g)]);
}

export function formatAgreementCsv(result: AnalysisResult): string {
  return csvText(AGREEMENT_COLUMNS, agreementRows(result));
}

/**
 * Every table of the analysis as one CSV (standard output has room for one): a first column `table`
 * says which each row belongs to: `verdicts` (the per-pair meta-analysis, the answer, first), then
 * `agreement`, `pairs` (per run) and `moderator` when asked for; the columns are the union of theirs,
 * a row's cells empty where its table has no such column. With --out they are separate files.
 */
export function formatAllCsv(result: AnalysisResult, alpha: number): string {
  return [...allCsvParts(result, alpha)].join('');
}

/** formatAllCsv's text in parts. */
export function allCsvParts(result: AnalysisResult, alpha: number): Iterable<string> {
  const pairs = pairTable(result, alpha);
  const tables: [string, readonly string[], readonly (readonly unknown[])[]][] = [
    ['verdicts', META_COLUMNS, result.meta.pairs.map(metaRow)],
    ['agreement', AGREEMENT_COLUMNS, agreementRows(result)],
    ['pairs', pairs.columns, pairs.rows],
    ...(result.meta.moderator !== null
      ? [['moderator', MODERATOR_COLUMNS, moderatorRows(result.meta)] as [string, readonly string[], unknown[][]]]
      : []),
  ];
  const columns = [...new Set(tables.flatMap(([, c]) => c))];
  const rows = tables.flatMap(([name, c, rs]) => rs.map((r) => {
    const cells: unknown[] = [name, ...columns.map(() => null)];
    c.forEach((col, i) => { cells[1 + columns.indexOf(col)] = r[i]; });
    return cells;
  }));
  return csvParts(['table', ...columns], rows);
}

export function formatTable(result: AnalysisResult, opts: AnalyzeOptions): string {
  const out: string[] = [];
  const how = `${opts.method} partial correlation, ${opts.residualiser} residualiser on ${regressorLabel(opts)}` +
    `${opts.representation === 'differences' ? ', first differences' : opts.representation === 'levels' ? ', levels' : ''}, ` +
    `${INFERENCE_METHODS[opts.inference].title}, ` +
    `${opts.correction === 'none' ? 'no correction' : `${opts.correction} correction`}, alpha ${opts.alpha}`;
  out.push(`Partial correlations between OOD test sets across checkpoints (${how})`);
  for (const r of result.left_out) out.push(`left out: run ${r.run}: ${r.reason}`);
  for (const run of result.runs) {
    out.push('', `run ${run.run}: ${run.n} ${opts.representation === 'differences' ? 'differences' : 'checkpoints'}` +
      `${run.distinct < run.n ? ` (${run.distinct} distinct)` : ''}`);
    if (run.warning) out.push(`  warning: ${run.warning}`);
    if (run.control_noise && run.control_noise.correction !== 'none') out.push(`  ${controlNoiseLine(run.control_noise)}`);
    if (run.spacing) out.push(`  note: ${spacingNote(run.spacing)}`);
    if (run.calibration) out.push(`  ${calibrationLine(run.calibration)}`);
    const header = ['a', 'b', 'on', 'r', 'n_eff', 'df', 'p', 'p adj', '95% CI'];
    const hasBoot = run.pairs.some((p) => p.bootstrap_ci95 !== undefined);
    const hasPerm = run.pairs.some((p) => p.permutation_p !== undefined);
    const hasUnstable = run.pairs.some((p) => p.unstable !== undefined);
    if (hasBoot) header.push('bootstrap 95% CI');
    if (hasPerm) header.push('perm p');
    if (hasUnstable) header.push('unstable');
    // why r is undefined goes under the table, numbered: in the r column it widened every row
    const reasons: string[] = [];
    const undefinedR = (reason: string | undefined) => {
      const text = reason ?? 'undefined';
      const at = reasons.indexOf(text);
      return `undefined (${at >= 0 ? at + 1 : reasons.push(text)})`;
    };
    const rows = run.pairs.map((p) => {
      const row = [p.a, p.b, p.representation, p.r === null ? undefinedR(p.reason) : fixed(p.r, 3), fixed(p.n_eff, 1), fixed(p.df, 1),
        pval(p.p), pval(p.p_adjusted) + star(p, opts.alpha), ci(p.ci95)];
      if (hasBoot) row.push(ci(p.bootstrap_ci95 ?? null));
      if (hasPerm) row.push(p.permutation_p === undefined ? '' : pval(p.permutation_p));
      if (hasUnstable) row.push(p.unstable ?? '');
      return row;
    });
    out.push(...alignColumns([header, ...rows], { indent: 2 }));
    reasons.forEach((reason, i) => out.push(`  (${i + 1}) ${reason}`));
  }
  out.push('', `The papers' view across ${result.runs.length} run${result.runs.length === 1 ? '' : 's'}: runs with a significant ` +
    `correlation per pair (adjusted p < ${opts.alpha}); it counts signs, so "none" may be no power`);
  const rows = result.agreement.map((g) => [g.a, g.b, String(g.positive), String(g.negative), String(g.null), String(g.runs), signVerdict(g)]);
  out.push(...alignColumns([['a', 'b', 'positive', 'negative', 'none', 'runs', 'signs'], ...rows], { indent: 2 }));
  out.push(`  ${signCountSentence(result, opts.alpha)}`);
  if (result.robustness) {
    const available = result.robustness.choices.filter((c) => c.available).length;
    out.push('', `Robustness: under how many of the ${available} analysis choices (pearson/spearman x linear/spline x levels/differences, ` +
      'the main analysis\'s among them) does each verdict hold? Under fewer than half: fragile');
    const rb = result.robustness.pairs.map((p) => [p.a, p.b, p.verdict, `${p.holds} of ${p.of}${p.fragile ? ': fragile' : ''}`,
      p.otherwise.join('; ')]);
    out.push(...alignColumns([['a', 'b', 'verdict', 'holds under', 'otherwise'], ...rb], { indent: 2 }));
    for (const c of result.robustness.choices) if (!c.available) out.push(
      `  not computed: ${c.method}/${c.residualiser}/${c.representation}: ${c.reason}`);
  }
  out.push('', ...formatMetaTable(result.meta));
  out.push('', headline(result));
  return out.join('\n') + '\n';
}

/** The answer to "do generalisation results generalise?" in one sentence (analysis.headline, verdict.ts). */
export function headline(result: Pick<AnalysisResult, 'headline'>): string {
  return result.headline.sentence;
}

/** One run's calibration in words. */
export function calibrationLine(c: NonNullable<AnalysisResult['runs'][number]['calibration']>): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const noise = `drift phi ${c.phi.toFixed(2)} + ${Math.round(c.nugget * 100)}% white noise at the run's steps` +
    (c.control_noise_redrawn ? ", the control's sampling noise redrawn" : '');
  return `calibration (${c.simulations} simulated pairs, ${noise}): false positives ${pct(c.false_positive_rate)} at alpha ${c.alpha} ` +
    `(naive test: ${pct(c.naive_false_positive_rate)}), power ${pct(c.power)} for a true partial correlation of ${c.effect}; ` +
    `null r scatter ${c.variance_ratio.toFixed(2)} (Monte Carlo se ${c.variance_ratio_se.toFixed(2)}) times the stated variance` +
    (runVarianceFactor({ calibration: c }) > 1 ? ' (the pooling across runs uses the measured one)' : '');
}

/** How a run's control's sampling noise was corrected, in words (its JSON: control_noise). */
export function controlNoiseLine(c: NonNullable<AnalysisResult['runs'][number]['control_noise']>): string {
  const how = c.correction === 'simex' ? 'SIMEX (each r then moved toward 0 by as much again: the echo bound)' : 'the method of moments';
  const reliability = c.reliability === undefined ? '' : `, reliability ${c.reliability.toFixed(2)}`;
  const left = c.uncorrected ? `; ${c.uncorrected} pair representation(s) left uncorrected (the correction would take over ` +
    `${Math.round(100 * (1 - MIN_RELIABILITY))}% of their residual variance; if the stated noise is right, their r keeps the control's echo)` : '';
  const errors = c.error_covariance ? "its errors' covariance across checkpoints estimated from per-example results"
    : 'its errors taken as independent between checkpoints';
  return `control's sampling noise corrected by ${how}${reliability}${left}; ${errors}`;
}

/** An unevenly spaced run in words: its gaps and whether the test models them. */
export function spacingNote(s: NonNullable<AnalysisResult['runs'][number]['spacing']>): string {
  const gaps = `uneven checkpoint spacing (gaps ${s.min_gap} to ${s.max_gap} steps, median ${s.reference_gap})`;
  return s.modelled
    ? `${gaps}: the test models a drift correlated exp(-gap / tau) plus white noise (phi is the drift's correlation at the median gap)`
    : `${gaps}: the naive test counts every checkpoint as independent whatever its gap`;
}

function fixed(x: number, digits: number): string {
  return x.toFixed(digits);
}

function pval(p: number | null): string {
  return p === null ? '-' : pValueText(p);
}

function star(p: PairResult, alpha: number): string {
  return p.p_adjusted !== null && p.p_adjusted < alpha ? ' *' : '';
}

function ci(c: [number, number] | null): string {
  return c === null ? '-' : intervalText(c);
}
