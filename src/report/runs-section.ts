// The page's "Runs" section: per run an article with its settings, its score curves, training loss,
// ID-against-OOD figure and partial-correlation heatmap with its table, and before them, for one pair,
// every drawn run's residual scatter. A sweep of hundreds of runs would make that page hundreds of
// megabytes (260 MiB at 30 runs x 50 sets x 200 checkpoints, a RangeError at 300 runs), so
// the runs' figures are drawn in run order until they take RUN_FIGURES_BUDGET characters of the page
// (or for as many runs as --run-figures says); the page then says which runs it does not draw, where
// their numbers are and how to draw them, and a table of every run (its checkpoints, ID score,
// significant pairs) stands in for the figures. No run is left out unsaid.
// The section comes back in parts (one per run's article) that the report writes one after the
// other, never joined into one string (render.ts).
import { lossSpec, renderSvg } from './charts.ts';
import { anchor, esc, figure, fixed, htmlTable } from './html.ts';
import type { ReportData, ReportRun } from './report-data.ts';
import { chosenPair, idVsOodFigure, residualFigure, residualSection } from './run-figures.ts';
import { noCurveNote, planRunCurves, planSteps, runCurveFigures } from './run-curves.ts';
import { runSummary } from './run-summary.ts';
import { runCorrelations } from './study-a-section.ts';
import type { StudyA } from './study-a.ts';
import { methodOf } from './study-b.ts';
import { isSignificant } from './tables.ts';
import type { Cell, Table } from './table.ts';
import type { StoredScore } from '../store/result-store.ts';
import type { RunSeries } from '../analyze/run-series.ts';
import type { RunAnalysis } from '../analyze/analysis.ts';

/**
 * How much of the page (characters, about bytes) the runs' figures may take: runs are drawn in run
 * order while the runs before them took less; the rest are listed, not drawn. About 20 runs of 20 OOD
 * sets and 200 checkpoints, 3 of 50 sets; a study of a few runs is drawn whole.
 */
export const RUN_FIGURES_BUDGET = 8_000_000;

/** How many runs' figures the page draws: every run, the first n, or (undefined) as many as RUN_FIGURES_BUDGET allows. */
export type RunFigures = number | 'all' | undefined;

/** How many names a note lists before it counts the rest. */
const NAMES_LISTED = 6;

export interface RunsSection {
  /** The section's HTML in parts, to be written one after the other with '\n' between them. */
  parts: string[];
  toc: { id: string; label: string }[];
  /** Runs whose figures are drawn (the first `drawn` of data.runs). */
  drawn: number;
}

export async function runSections(data: ReportData, a: StudyA, tables: Map<string, Table>,
  opts: { metric?: string; pair?: readonly [string, string]; runFigures?: RunFigures; budget?: number }): Promise<RunsSection> {
  const budget = opts.budget ?? RUN_FIGURES_BUDGET;
  const pair = chosenPair(a, opts.pair);
  const scoresOf = new Map<string, StoredScore[]>();
  for (const s of data.scores) {
    let list = scoresOf.get(s.run);
    if (!list) scoresOf.set(s.run, (list = []));
    list.push(s);
  }
  const seriesOf = new Map(a.series.map((s) => [s.run, s]));
  const analysisOf = new Map(a.analysis.runs.map((r) => [r.run, r]));
  const ids = data.runs.map((run, index) => anchor('run', run.id, index));

  const articles: string[] = [];
  const residuals: string[] = [];
  let used = 0;
  for (const [index, run] of data.runs.entries()) {
    const limit = opts.runFigures;
    if (limit === undefined ? index > 0 && used >= budget : limit !== 'all' && index >= limit) break;
    const series = seriesOf.get(run.id);
    const article = await runArticle(data, a, tables, run, ids[index], scoresOf.get(run.id) ?? [], series, analysisOf.get(run.id), opts.metric);
    const residual = pair && series ? await residualFigure(series, a, pair) : '';
    articles.push(article);
    residuals.push(residual);
    used += article.length + residual.length;
  }
  const drawn = articles.length;
  const all = data.runs.length;

  const parts = ['<section id="runs">', '<h2>Runs</h2>'];
  const toc = data.runs.slice(0, drawn).map((run, i) => ({ id: ids[i], label: run.id }));
  if (drawn < all) {
    parts.push(notDrawnNote(data.runs, drawn, used, opts.runFigures), runsOverview(data.runs, ids, drawn, a, seriesOf, analysisOf));
    toc.push({ id: 'runs-overview', label: `All ${all} runs (${all - drawn} not drawn)` });
  }
  if (pair) {
    const notDrawn = data.runs.slice(drawn).filter((r) => seriesOf.has(r.id)).length;
    const section = residualSection(a, pair, residuals, notDrawn);
    if (section) parts.push(section);
  }
  parts.push(...articles, '</section>');
  return { parts, toc, drawn };
}

/** One run's article: its settings, curves, loss, ID-against-OOD figure, heatmap and table, and the notes on what is not analysed. */
async function runArticle(data: ReportData, a: StudyA, tables: Map<string, Table>, run: ReportRun, id: string, own: readonly StoredScore[],
  series: RunSeries | undefined, analysis: RunAnalysis | undefined, metric: string | undefined): Promise<string> {
  const out = [`<article class="run" id="${id}" data-run="${esc(run.id)}">`, `<h3>${esc(run.id)}</h3>`, runSummary(run)];
  const plan = planRunCurves(data, a, run, metric, own);
  const steps = planSteps(plan);
  const charts: string[] = [];
  if (steps.length >= 2) charts.push(...await runCurveFigures(run, plan, a.control));
  else if (plan.panels.length || plan.leftOut.length) out.push(noCurveNote(plan, steps, methodOf(run) !== null));
  else out.push('<p class="note">No scores for this run.</p>');
  const loss = run.trainingLog.filter((l) => l.loss !== null && l.loss !== undefined && Number.isFinite(l.loss))
    .map((l) => ({ step: l.step, loss: l.loss! }));
  if (loss.length >= 2) {
    const svg = await renderSvg(lossSpec(loss, steps.length ? steps : undefined), `${run.id}: training loss`);
    charts.push(figure(svg, `${run.id}: training loss (${loss.length} logged steps).`, 'loss'));
  }
  if (series) charts.push(await idVsOodFigure(series, a));
  if (charts.length) out.push(`<div class="charts">${charts.filter(Boolean).join('\n')}</div>`);
  if (analysis && a.options) out.push(await runCorrelations(analysis, a.options, tables.get('partial_correlations')!));
  const skipped = a.skipped.find((s) => s.run === run.id);
  // Study-B runs are not expected to have the study-A control; say nothing for them.
  if (skipped && steps.length >= 2 && methodOf(run) === null) out.push(`<p class="note">Not analysed: ${esc(skipped.reason)}.</p>`);
  const incomplete = series?.incompleteSteps ?? [];
  if (incomplete.length) {
    out.push(`<p class="note">${incomplete.length} step(s) left out of the analysis because some test set has no score there (e.g. ` +
      `step ${incomplete[0].step}: ${incomplete[0].missing.map(esc).join(', ')}).</p>`);
  }
  out.push('</article>');
  return out.join('\n');
}

function megabytes(chars: number): string {
  return (chars / 1e6).toFixed(chars < 1e7 ? 1 : 0);
}

/** What the page does not draw, where those numbers are, and how to have them drawn. */
function notDrawnNote(runs: readonly ReportRun[], drawn: number, used: number, limit: RunFigures): string {
  const rest = runs.slice(drawn).map((r) => r.id);
  const names = rest.slice(0, NAMES_LISTED).map(esc).join(', ') + (rest.length > NAMES_LISTED ? `, … (${rest.length})` : '');
  const why = limit === undefined
    ? `the first ${drawn} in run order, until their figures took ${megabytes(used)} MB of this page`
    : `the first ${drawn} in run order (<code>--run-figures ${esc(String(limit))}</code>)`;
  const perRun = drawn ? used / drawn : 0;
  const estimate = perRun ? ` (about ${megabytes(perRun * runs.length)} MB of page for all ${runs.length}, at ${megabytes(perRun)} MB a run)` : '';
  return `<p class="note" id="runs-not-drawn"><b>Not drawn: the figures of ${rest.length} of the ${runs.length} runs</b> (${names}). ` +
    `This page draws the figures of ${drawn} run${drawn === 1 ? '' : 's'}, ${why}; for the others it draws no score curves, training ` +
    'loss, ID-against-OOD figure, residual scatter or partial-correlation heatmap and table. Every run is a row of the table below; ' +
    'their numbers are in the tables beside this page: scores.csv (every score), partial_correlations.csv (every pair of every run), ' +
    'training_log.csv. To draw them: <code>genstudy report --run-figures all</code>' + estimate +
    ', or <code>--run-figures N</code> for the first N runs; with <code>--figures DIR</code> each figure drawn is also written ' +
    'as its own SVG and PDF.</p>';
}

/**
 * Every run in one row: its checkpoints, its ID score at the first and last of them, its pairs and
 * how many are significant, and whether its figures are drawn.
 */
function runsOverview(runs: readonly ReportRun[], ids: readonly string[], drawn: number, a: StudyA,
  seriesOf: Map<string, RunSeries>, analysisOf: Map<string, RunAnalysis>): string {
  const control = a.control;
  const alpha = a.options?.alpha ?? 0.05;
  const rows: Cell[][] = runs.map((run, i) => {
    const id = control === null ? undefined : seriesOf.get(run.id)?.values.get(control);
    const pairs = analysisOf.get(run.id)?.pairs ?? [];
    const tested = pairs.filter((p) => p.r !== null);
    const significant = tested.filter((p) => isSignificant(p, alpha));
    return [
      run.id, run.checkpoints.length, id ? id[0] : null, id ? id[id.length - 1] : null,
      pairs.length ? tested.length : null, pairs.length ? significant.filter((p) => p.r! > 0).length : null,
      pairs.length ? significant.filter((p) => p.r! < 0).length : null, i < drawn ? ids[i] : '',
    ];
  });
  const idHeader = control === null ? 'ID' : `${control} (ID)`;
  const orDash = (v: Cell) => (v === null ? '–' : String(v));
  const table = htmlTable({ columns: ['run', 'checkpoints', 'first', 'last', 'pairs', 'positive', 'negative', 'figures'], rows }, {
    headers: { first: `${idHeader} at the first`, last: 'at the last checkpoint', pairs: 'pairs with an r', positive: 'significant +',
      negative: 'significant −' },
    names: ['run'],
    format: {
      first: (v) => fixed(v as number | null, 3), last: (v) => fixed(v as number | null, 3),
      pairs: orDash, positive: orDash, negative: orDash,
      figures: (v) => (v ? `<a href="#${esc(String(v))}">drawn</a>` : 'not drawn'),
    },
  });
  return `<h3 id="runs-overview">All ${runs.length} runs</h3>` +
    `<p class="note">One row per run: its checkpoints, its ${esc(idHeader)} score at the first and the last of them, how many of its ` +
    `pairs of OOD sets have a partial r and how many are significantly positive and negative (adjusted p &lt; ${esc(String(alpha))}), ` +
    'and whether this page draws its figures.</p>' + table;
}
