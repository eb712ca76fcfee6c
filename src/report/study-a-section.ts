// The page's study-A parts: the one-sentence answer with the agreement across runs (table and
// sign-count matrix), and per run the partial-correlation heatmap of its OOD sets with the table
// behind it (runs-section.ts places it in the run's article).
import { signVerdict, type Agreement, type AnalyzeOptions, type RunAnalysis } from '../analyze/analysis.ts';
import { HEATMAP_LABELLED, heatmapLabelled, heatmapSpec, renderSvg, type HeatCell } from './charts.ts';
import { esc, figure, fixed, htmlTable, intervalCell, pairCell, pValue, signed } from './html.ts';
import { checksSection } from './checks-section.ts';
import { metaSection, pooledHeatmap } from './meta-section.ts';
import type { StudyA } from './study-a.ts';
import { isSignificant } from './tables.ts';
import type { Cell, Table } from './table.ts';
import { PAIR_COLUMNS } from '../analyze/pair-columns.ts';

/** Study A's question answered in one sentence (analysis.headline, analyze/verdict.ts: what the CLI prints last). */
export function studyAHeadline(a: StudyA): string {
  if (!a.options) return a.note ?? 'No study-A analysis.';
  if (a.analysis.runs.length === 0) return a.note ?? 'No run could be analysed.';
  return a.analysis.headline.sentence;
}

export async function agreementSection(a: StudyA, tables: Map<string, Table>): Promise<string> {
  const out: string[] = ['<section id="study-a">', '<h2>Do generalisation results generalise?</h2>'];
  out.push(`<p class="headline" id="study-a-answer">${esc(studyAHeadline(a))}</p>`);
  if (!a.options) return out.concat('</section>').join('\n');
  const o = a.options;
  out.push(`<p class="note">For each run, across its checkpoints: the ${esc(o.method)} partial correlation ` +
    'between every pair of OOD test sets with the ' +
    `${esc(a.metric ?? '')} of the in-domain set <b>${esc(a.control ?? '')}</b> regressed out (${esc(o.residualiser)} ` +
    `residualiser${o.representation === 'differences' ? ', first differences' : ''}), ` +
    `p-values corrected over the pairs of the run (${esc(o.correction)}), significant when the adjusted p &lt; ${esc(String(o.alpha))}.</p>`);
  for (const note of a.notes ?? []) out.push(`<p class="note">${esc(note)}.</p>`);
  if (a.skipped.length) {
    const byReason = new Map<string, string[]>();
    for (const s of a.skipped) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.run]);
    out.push('<p class="note">Runs not in this analysis:</p><ul class="small">' +
      [...byReason].map(([reason, runs]) => `<li>${esc(reason)}: ${runs.map(esc).join(', ')}</li>`).join('') + '</ul>');
  }
  if (a.analysis.agreement.length) {
    const sets = [...new Set(a.analysis.agreement.flatMap((g) => [g.a, g.b]))].sort();
    // Two matrices side by side: the pooled effect with its verdict, and the papers' sign counts.
    const labels = heatmapLabelled(sets.length);
    // unlabelled cells shrink with the number of sets (heatmapSpec)
    const cellSize = !labels ? undefined : sets.length <= 8 ? 50 : 40;
    const svg = await renderSvg(heatmapSpec(agreementCells(a.analysis.agreement), {
      rows: sets, cols: sets, extent: 1, legendTitle: '(pos − neg) / runs', cellSize, legendBelow: true, labels,
    }), 'Sign agreement across runs');
    const signs = figure(svg, labels
      ? `The papers' view: per pair, the runs with a significant positive (+) and negative (−) partial ` +
        `correlation; colour = (positive − negative) / runs; outlined: the sign differs between runs.`
      : `The papers' view: per pair, colour = (positive − negative) / runs, counting the runs with a significant positive and ` +
        'negative partial correlation; outlined: the sign differs between runs. ' +
        `${unlabelledText(sets.length, 'the table below has each pair\'s counts')}.`,
    'agreement');
    out.push(`<div class="charts">${await pooledHeatmap(a, cellSize)}${signs}</div>`);
    out.push(htmlTable(tables.get('agreement')!, {
      headers: { none: 'none' }, names: ['a', 'b'],
      rowClass: (row) => `verdict-${String(row[6]).replace(/ /g, '-')}`,
    }));
  }
  out.push(await metaSection(a, tables));
  out.push(checksSection(a, tables));
  out.push('</section>');
  return out.join('\n');
}

/** What a caption says of a matrix too large to write its cells' values in, and where they are. */
export function unlabelledText(sets: number, where: string): string {
  return `Cells carry no numbers (${sets} sets; they are written in a matrix of up to ${HEATMAP_LABELLED}): ${where}`;
}

function agreementCells(agreement: readonly Agreement[]): HeatCell[] {
  const cells: HeatCell[] = [];
  const sets = [...new Set(agreement.flatMap((g) => [g.a, g.b]))];
  for (const s of sets) cells.push({ row: s, col: s, value: null, label: '', outlined: false });
  for (const g of agreement) {
    const value = g.runs ? (g.positive - g.negative) / g.runs : null;
    const label = `${g.positive}+ ${g.negative}−`;
    const outlined = signVerdict(g) === 'sign differs';
    cells.push({ row: g.a, col: g.b, value, label, outlined }, { row: g.b, col: g.a, value, label, outlined });
  }
  return cells;
}

/**
 * The most pairs a run's table shows open beside its heatmap (10 OOD sets); a longer one is folded
 * under it (a <details> a reader opens), so a page of runs with 190 pairs each is not laid out row by row on opening.
 */
export const PAIRS_TABLE_OPEN = 45;

/** A run's partial-correlation heatmap of its OOD sets, with its table and why a pair has no r. */
export async function runCorrelations(run: RunAnalysis, opts: Pick<AnalyzeOptions, 'alpha' | 'representation'>, table: Table): Promise<string> {
  const { alpha, representation } = opts;
  const sets = [...new Set(run.pairs.flatMap((p) => [p.a, p.b]))].sort();
  const cells: HeatCell[] = sets.map((s) => ({ row: s, col: s, value: null, label: '', outlined: false }));
  for (const p of run.pairs) {
    const sig = isSignificant(p, alpha);
    const label = p.r === null ? 'n/a' : `${signed(p.r, 2)}${sig ? '*' : ''}`;
    cells.push({ row: p.a, col: p.b, value: p.r, label, outlined: sig }, { row: p.b, col: p.a, value: p.r, label, outlined: sig });
  }
  const labels = heatmapLabelled(sets.length);
  const svg = await renderSvg(heatmapSpec(cells, { rows: sets, cols: sets, extent: 1, legendTitle: 'partial r', labels }),
    `${run.run}: partial correlations between OOD test sets`);
  const caption = `${run.run}: partial correlation between OOD test sets, ${run.control} regressed out, ` +
    `${observationsText(run, representation)}; ${labels ? '* and outline' : 'outline'}: adjusted p < ${alpha}` +
    `${labels ? '' : `. ${unlabelledText(sets.length, 'the table below and partial_correlations.csv have each pair\'s r')}`}.`;
  const col = (name: string) => table.columns.indexOf(name);
  const rows = table.rows.filter((r) => r[col('run')] === run.run);
  const interval = (row: Cell[], lo: string) => intervalCell(row[col(lo)] as number | null, row[col(lo.replace('_low', '_high'))] as number | null);
  // The page shows what a reader weighs (what was correlated, its effective n, r, its interval, the
  // adjusted p); n, df and the unadjusted p are in partial_correlations.csv. The pair is one cell.
  const shown = [
    'a', 'representation', 'n_eff', 'r', 'ci95_low', 'p_adjusted', 'significant',
    // The checks that respect checkpoint order, when they were asked for (--bootstrap, --permutations).
    ...(table.columns.includes('bootstrap_ci95_low') ? ['bootstrap_ci95_low'] : []),
    ...(table.columns.includes('permutation_p') ? ['permutation_p'] : []),
  ];
  const headers = Object.fromEntries(PAIR_COLUMNS.map((c) => [c.name, c.label]));
  const tableHtml = htmlTable({ columns: table.columns, rows }, {
    columns: shown,
    headers: { ...headers, a: 'pair', ci95_low: '95% CI', bootstrap_ci95_low: 'block bootstrap 95% CI' },
    names: ['a'],
    format: {
      a: (v, row) => pairCell(String(v), String(row[col('b')])),
      n_eff: (v) => fixed(v as number, 1),
      r: (v) => (v === null ? '–' : fixed(v as number, 3)),
      ci95_low: (_, row) => interval(row, 'ci95_low'),
      bootstrap_ci95_low: (_, row) => interval(row, 'bootstrap_ci95_low'),
      p_adjusted: (v) => pValue(v as number | null),
      permutation_p: (v) => pValue(v as number | null),
      significant: (v) => (v ? '<span class="sig">yes</span>' : 'no'),
    },
  });
  // Why a pair has no r, under the table: a column of sentences would widen it past a narrow page.
  const untested = run.pairs.filter((p) => p.r === null && p.reason);
  const reasons = untested.length === 0 ? '' : `<p class="note">No r for ${untested.length} pair${untested.length === 1 ? '' : 's'}:</p>` +
    `<ul class="note">${untested.map((p) => `<li>${esc(p.a)} – ${esc(p.b)}: ${esc(p.reason!)}</li>`).join('')}</ul>`;
  const heading = '<h4>Partial correlations of OOD test sets</h4>';
  if (run.pairs.length <= PAIRS_TABLE_OPEN) return `${heading}<div class="charts">${figure(svg, caption, 'heatmap')}${tableHtml}</div>${reasons}`;
  // a long table under its heatmap, folded: the browser lays it out only when a reader opens it
  return `${heading}<div class="charts">${figure(svg, caption, 'heatmap')}</div><details class="pairs"><summary>The table of its ` +
    `${run.pairs.length} pairs (n_eff, r, 95% CI, adjusted p)</summary>${tableHtml}</details>${reasons}`;
}

/**
 * What the run's pairs were tested on, in words: each pair correlates levels or first differences
 * and its test counts its effective observations, so "across 21 checkpoints" alone would overstate it.
 */
export function observationsText(run: RunAnalysis, representation: AnalyzeOptions['representation']): string {
  const tested = run.pairs.filter((p) => p.r !== null);
  const on = (rep: string) => tested.filter((p) => p.representation === rep).length;
  const levels = on('levels'), diffs = on('differences');
  const what = diffs === 0 ? 'on levels'
    : levels === 0 ? 'on first differences'
    : `${diffs} pair${diffs === 1 ? '' : 's'} on first differences, ${levels} on levels`;
  const nEff = tested.map((p) => p.n_eff).filter(Number.isFinite);
  const range = nEff.length === 0 ? '' : Math.min(...nEff).toFixed(0) === Math.max(...nEff).toFixed(0)
    ? `, effective n ${Math.min(...nEff).toFixed(0)}` : `, effective n ${Math.min(...nEff).toFixed(0)}–${Math.max(...nEff).toFixed(0)}`;
  // run.n counts differences when every pair was asked to be on differences, else checkpoints
  const across = representation === 'differences' ? `${run.n} differences between ${run.n + 1} checkpoints` : `${run.n} checkpoints`;
  return `across ${across}, ${what}${range}`;
}
