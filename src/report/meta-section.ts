// The study-A part of the page that asks "how much does a relation vary across models?": the
// meta-analysis headline, the per-pair table (pooled r, I^2, Q's adjusted p, prediction interval,
// verdict and why), the moderator table when one was asked for, and one forest figure of every
// pair (the pooled-r matrix beside the sign counts is drawn here too). Its tables
// (meta_analysis, meta_regression) are written as CSV and JSON like the others.
import type { PairMeta } from '../analyze/pair-meta.ts';
import { META_COLUMNS, metaRow, MODERATOR_COLUMNS, moderatorRows } from '../analyze/format-meta.ts';
import { HEATMAP_LABELLED, heatmapLabelled, heatmapSpec, renderSvg, type HeatCell } from './charts.ts';
import { FOREST_POINTS, forestShowsSpread, forestSpec, sortForestRows, type ForestRow } from './forest-chart.ts';
import { metaVerdict, verdictLegend, verdictLook } from './meta-verdict.ts';
import { esc, figure, fixed, htmlTable, intervalCell, pairCell, pValue, signed } from './html.ts';
import type { StudyA } from './study-a.ts';
import type { Cell, Table } from './table.ts';

export function metaTables(a: StudyA): Table[] {
  const meta = a.analysis.meta;
  const how = `${meta.estimator}${meta.hartung_knapp ? ' with Hartung-Knapp' : ''}`;
  const tables: Table[] = [{
    name: 'meta_analysis', title: 'Meta-analysis across runs',
    description: `One row per pair of OOD sets: a random-effects meta-analysis (${how}) of the runs' partial correlations on Fisher's z: ` +
      `pooled r and 95% CI, p adjusted over the pairs, between-run variance tau^2 (z scale) with its Q-profile CI, I^2, Cochran's Q and ` +
      `the 95% prediction interval for a new run.`,
    columns: [...META_COLUMNS], rows: meta.pairs.map(metaRow),
  }];
  if (meta.moderator !== null) {
    tables.push({
      name: 'meta_regression', title: `Meta-regression on "${meta.moderator}"`,
      description: `One row per (pair of OOD sets, coefficient): the runs' Fisher z regressed on the run attribute "${meta.moderator}" ` +
        `(${how}), with the omnibus test that the relation does not depend on it.`,
      columns: [...MODERATOR_COLUMNS], rows: moderatorRows(meta),
    });
  }
  return tables;
}

export async function metaSection(a: StudyA, tables: Map<string, Table>): Promise<string> {
  const meta = a.analysis.meta;
  if (!a.options || meta.pairs.length === 0) return '';
  const alpha = a.options.alpha;
  const out: string[] = ['<h3 id="study-a-meta">How much does each relation vary across runs?</h3>'];
  out.push(`<p class="headline" id="study-a-meta-answer">${esc(a.analysis.headline.sentence)}</p>`);
  out.push(`<p class="note">Each run's partial correlation enters as Fisher's z = atanh(r) with the variance of its own 95% CI; ` +
    `the runs' true z are taken as normal around a pooled mean with between-run variance tau² ` +
    `(${esc(meta.estimator)}${meta.hartung_knapp ? ', Hartung-Knapp t test on runs − 1 df' : ', z test'}). ` +
    `A pair is <b>negligible everywhere</b> when its 95% prediction interval for a new run lies inside ` +
    `±${esc(String(a.options.equivalenceMargin))}; it <b>generalises</b> when the pooled effect is significant (p adjusted over the ` +
    `pairs, ${esc(a.options.correction)}, &lt; ${esc(String(alpha))}) and that interval has one sign; ` +
    `it <b>depends on the model</b> when Cochran's Q (adjusted the same way) has p &lt; ${esc(String(alpha))} and the interval spans ` +
    `both signs; otherwise it is <b>inconclusive</b> (the reason under each verdict says which). The 95% CI shown is unadjusted. With ` +
    `few runs tau² is imprecise: see its interval.</p>`);
  out.push(metaTableHtml(tables.get('meta_analysis')!));
  const notes = [...new Set(meta.pairs.flatMap((p) => p.notes))];
  if (notes.length) out.push(`<ul class="small">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
  if (tables.has('meta_regression')) out.push(moderatorHtml(meta.pairs, meta.moderator!));
  out.push(await forestFigure(a));
  return out.join('\n');
}

/**
 * The meta-analysis table as the page shows it: in the forest figure's order, the pair as one
 * cell, each interval as one cell, the verdict with its reason; tau, z, se, Q itself and its
 * unadjusted p are in the CSV (the verdict rests on the adjusted p, the prediction interval and
 * Q's adjusted p, which are here). Never wider than the page.
 */
function metaTableHtml(table: Table): string {
  const col = (name: string) => table.columns.indexOf(name);
  const num = (row: Cell[], name: string) => row[col(name)] as number | null;
  const interval = (row: Cell[], lo: string, hi: string) => intervalCell(num(row, lo), num(row, hi));
  const byPooled = sortForestRows(table.rows.map((row) => ({ row, a: String(row[col('a')]), b: String(row[col('b')]),
    pooled: num(row, 'r') === null ? null : { r: num(row, 'r')! } })))
    .map((x) => x.row);
  return htmlTable({ columns: table.columns, rows: byPooled }, {
    // the runs column only when pairs pooled different numbers of runs (else the headline says how many)
    columns: ['a', ...(new Set(table.rows.map((row) => row[col('runs')])).size > 1 ? ['runs'] : []), 'r', 'ci95_low', 'p_adjusted', 'i2',
      'q_p_adjusted', 'prediction95_low', 'verdict'],
    headers: { a: 'pair', r: 'pooled r', ci95_low: '95% CI', p_adjusted: 'p adjusted', i2: 'I²', q_p_adjusted: 'Q p adjusted',
      prediction95_low: '95% prediction' },
    names: ['a'],
    format: {
      a: (v, row) => pairCell(String(v), String(row[col('b')])),
      r: (v) => signed(v as number | null, 3),
      ci95_low: (_, row) => interval(row, 'ci95_low', 'ci95_high'),
      p_adjusted: (v) => pValue(v as number | null), q_p_adjusted: (v) => pValue(v as number | null),
      i2: (v) => (v === null ? '–' : `${fixed(100 * (v as number), 0)}%`),
      prediction95_low: (_, row) => interval(row, 'prediction95_low', 'prediction95_high'),
      // the verdict with its reason under it (the reason wraps; the verdict stays on one line)
      verdict: (v, row) => `<span class="verdict">${esc(`${verdictLook(String(v)).mark} ${String(v)}`)}</span>` +
        (row[col('fragile')] === true ? `<span class="why"><b class="fragile">fragile</b>: holds under ${esc(String(row[col('holds')]))} ` +
          `of ${esc(String(row[col('of')]))} analysis choices</span>` : '') +
        (row[col('why')] ? `<span class="why">${esc(String(row[col('why')]))}</span>` : ''),
    },
    rowClass: (row) => `meta-${verdictLook(String(row[col('verdict')])).tone}`,
  });
}

/** Every pair in one forest figure, sorted by pooled effect, with its verdict beside its row. */
async function forestFigure(a: StudyA): Promise<string> {
  const meta = a.analysis.meta;
  const rows: ForestRow[] = meta.pairs.map((p) => {
    const verdict = metaVerdict(p);
    const look = verdictLook(verdict);
    const pooled = p.r !== null && p.ci95 !== null && p.runs > 1 ? { r: p.r, ci95: p.ci95, prediction95: p.prediction95 } : null;
    return {
      a: p.a, b: p.b, runs: runsOfPair(a, p), verdict, mark: look.mark, colour: look.colour, strong: look.tone === 'holds' || look.tone === 'varies',
      pooled, ...(pooled ? {} : { noDiamond: noDiamondReason(p, a.options?.keepUnstable ?? false) }),
    };
  }).filter((r) => r.runs.length > 0);
  if (rows.length === 0) return '';
  const spread = forestShowsSpread(rows);
  const svg = await renderSvg(forestSpec(rows, spread), 'Forest plot: each pair of OOD sets, its runs\' partial correlations and the pooled effect');
  const how = `${meta.estimator}${meta.hartung_knapp ? ' with Hartung-Knapp' : ''}`;
  const leftOut = rows.some((r) => r.runs.some((x) => !x.pooled));
  const bare = rows.filter((r) => !r.pooled).length;
  const points = rows.reduce((n, r) => n + r.runs.length, 0);
  const runs = spread
    ? `the spread of the runs pooled (not a point per run: ${points} run results, drawn one by one up to ${FOREST_POINTS}; ` +
      `each run's r is in partial_correlations.csv): their range (thin grey line), middle half (thick bar) and median (black tick)` +
      `${leftOut ? '; runs left out of a pair\'s pooling as unstable are not in its spread and are listed under the table' : ''}`
    : `each run's r (points, one colour per run${leftOut ? '; hollow: left out of that pair\'s pooling as unstable, listed under the table' : ''})`;
  const caption = `Every pair of OOD sets, sorted by pooled partial correlation: ${runs}, ` +
    `the pooled r with its 95% CI (diamond, ${how}) on its 95% prediction interval for a new run (line; three runs or more), ` +
    `and the verdict${bare ? `; a row without a diamond (${bare}) says why under its verdict (a diamond needs two pooled runs)` : ''}. ` +
    'The axis is Fisher\'s z, the scale the runs are pooled on, labelled in r; ' +
    `${spread ? 'a spread that reaches its edge has' : 'a triangle on its edge is'} ` +
    `a run beyond it (r = ±1 has an infinite z).`;
  return `<div class="charts">${figure(svg, caption, 'forest')}</div>`;
}

/** The pooled r of every pair as a matrix, each cell marked with its verdict; '' when nothing was pooled. */
export async function pooledHeatmap(a: StudyA, cellSize: number | undefined): Promise<string> {
  const meta = a.analysis.meta;
  const pooled = meta.pairs.filter((p) => p.r !== null && p.runs > 1);
  if (pooled.length === 0) return '';
  const sets = [...new Set(meta.pairs.flatMap((p) => [p.a, p.b]))].sort();
  const cells: HeatCell[] = sets.map((s) => ({ row: s, col: s, value: null, label: '', outlined: false }));
  for (const p of meta.pairs) {
    const look = verdictLook(metaVerdict(p));
    const has = p.r !== null && p.runs > 1;
    const cell = {
      value: has ? p.r : null, label: has ? [signed(p.r, 2), look.mark] : look.mark,
      outlined: look.tone === 'holds' || look.tone === 'varies', dashed: look.tone === 'varies',
    };
    cells.push({ row: p.a, col: p.b, ...cell }, { row: p.b, col: p.a, ...cell });
  }
  const labels = heatmapLabelled(sets.length);
  const svg = await renderSvg(
    heatmapSpec(cells, { rows: sets, cols: sets, extent: 1, legendTitle: 'pooled r', cellSize, legendBelow: true, labels }),
    'Pooled partial correlation per pair of OOD sets, with its verdict');
  const marks = verdictLegend(meta.pairs.map(metaVerdict)).map(({ verdict, look }) =>
    `${look.mark} ${verdict}${look.tone === 'holds' ? ' (solid outline)' : look.tone === 'varies' ? ' (dashed outline)' : ''}`);
  const caption = 'Pooled partial correlation of each pair across runs (random-effects meta-analysis, ' +
    `${meta.estimator}${meta.hartung_knapp ? ' with Hartung-Knapp' : ''}), and its verdict: ${labels ? marks.join('; ')
      : 'solid outline: generalises; dashed: depends on the model. ' +
      `Cells carry no numbers or marks (${sets.length} sets; they are written in a matrix of up to ${HEATMAP_LABELLED}): the table below ` +
      'has each pair\'s pooled r and verdict'}.`;
  return figure(svg, caption, 'pooled');
}

/**
 * Each run's partial correlation for one pair (r = +-1 included: the figure puts it on the edge),
 * and whether the meta-analysis pooled it: a run listed unstable was left out unless --keep-unstable.
 */
function runsOfPair(a: StudyA, p: PairMeta): ForestRow['runs'] {
  const keep = a.options?.keepUnstable ?? false;
  const unstable = new Set(p.unstable.map((u) => u.run));
  const runs: ForestRow['runs'] = [];
  for (const run of a.analysis.runs) {
    const pair = run.pairs.find((x) => x.a === p.a && x.b === p.b);
    if (pair && pair.r !== null) runs.push({ run: run.run, r: pair.r, pooled: keep || !unstable.has(run.run) });
  }
  return runs;
}

/** Why a pair has no diamond, in a few words: how many runs were pooled, and what kept the others out. */
function noDiamondReason(p: PairMeta, keepUnstable: boolean): string {
  const unstable = keepUnstable ? 0 : p.unstable.length;
  const out = [unstable ? `${unstable} unstable` : '', p.excluded > unstable ? `${p.excluded - unstable} without r` : ''].filter(Boolean).join(', ');
  const pooled = p.runs === 0 ? 'no run pooled' : p.runs === 1 ? 'one run pooled' : 'no pooled r';
  return `no diamond: ${pooled}${out ? ` (${out})` : ''}`;
}

function moderatorHtml(pairs: readonly PairMeta[], attribute: string): string {
  const rows = pairs.filter((p) => p.moderator).map((p) => {
    const m = p.moderator!;
    const test = m.test === null
      ? '–'
      : `${m.test.distribution === 'F' ? `F(${m.test.df1}, ${m.test.df2})` : `χ²(${m.test.df1})`} = ${fixed(m.test.statistic, 2)}`;
    const detail = m.levels
      ? m.levels.map((l) => `${esc(l.level)}: ${fixed(l.r, 2)} [${fixed(l.ci95[0], 2)}, ${fixed(l.ci95[1], 2)}] ` +
        `(${l.runs} run${l.runs === 1 ? '' : 's'})`).join('<br>')
      : m.coefficients.length ? `slope ${esc(m.coefficients[1].estimate.toPrecision(3))} z per unit` : esc(m.notes.join('; '));
    return `<tr><td>${esc(p.a)}</td><td>${esc(p.b)}</td><td>${m.runs}</td><td>${test}</td><td>${pValue(m.test?.p ?? null)}</td>` +
      `<td>${m.r2 === null ? '–' : `${fixed(100 * m.r2, 0)}%`}</td><td>${detail}</td></tr>`;
  });
  return `<h4>Does the relation depend on “${esc(attribute)}”?</h4>` +
    `<p class="note">Meta-regression of each pair's z on the run attribute; the test asks whether the pooled relation differs with it; ` +
    `R² is the share of the between-run variance it accounts for.</p>` +
    '<table><thead><tr><th>a</th><th>b</th><th>runs</th><th>test</th><th>p</th><th>R²</th>' +
    `<th>${pairs.some((p) => p.moderator?.levels) ? 'pooled r per level [95% CI]' : 'effect'}</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`;
}
