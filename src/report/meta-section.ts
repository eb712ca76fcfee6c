// The study-A part of the page that asks "how much does a relation vary across models?": the
// meta-analysis headline, the per-pair table (pooled r, tau, I^2, Q, prediction interval,
// verdict), the moderator table when one was asked for, and one forest plot per pair. Its tables
// (meta_analysis, meta_regression) are written as CSV and JSON like the others.
import { fisherZVariance, type PairMeta } from '../analyze/pair-meta.ts';
import { META_COLUMNS, metaRow, MODERATOR_COLUMNS, moderatorRows } from '../analyze/format-meta.ts';
import { renderSvg } from './charts.ts';
import { forestSpec, type ForestRun } from './forest-chart.ts';
import { esc, figure, fixed, htmlTable, pValue } from './html.ts';
import type { StudyA } from './study-a.ts';
import type { Table } from './table.ts';

export function metaTables(a: StudyA): Table[] {
  const meta = a.analysis.meta;
  const how = `${meta.estimator}${meta.hartung_knapp ? ' with Hartung-Knapp' : ''}`;
  const tables: Table[] = [{
    name: 'meta_analysis', title: 'Meta-analysis across runs',
    description: `One row per pair of OOD sets: a random-effects meta-analysis (${how}) of the runs' partial correlations on Fisher's z: pooled r and 95% CI, p adjusted over the pairs, between-run variance tau^2 (z scale) with its Q-profile CI, I^2, Cochran's Q and the 95% prediction interval for a new run.`,
    columns: [...META_COLUMNS], rows: meta.pairs.map(metaRow),
  }];
  if (meta.moderator !== null) {
    tables.push({
      name: 'meta_regression', title: `Meta-regression on "${meta.moderator}"`,
      description: `One row per (pair of OOD sets, coefficient): the runs' Fisher z regressed on the run attribute "${meta.moderator}" (${how}), with the omnibus test that the relation does not depend on it.`,
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
  out.push(`<p class="note">Each run's partial correlation enters as Fisher's z = atanh(r) with the variance of its own 95% CI; the runs' true z are taken as normal around a pooled mean with between-run variance tau² (${esc(meta.estimator)}${meta.hartung_knapp ? ', Hartung-Knapp t test on runs − 1 df' : ', z test'}). ` +
    `A pair is <b>negligible everywhere</b> when its 95% prediction interval for a new run lies inside ±${esc(String(a.options.equivalenceMargin))}; it <b>generalises</b> when the pooled effect is significant (p adjusted over the pairs, ${esc(a.options.correction)}, &lt; ${esc(String(alpha))}) and that interval has one sign; ` +
    `it <b>depends on the model</b> when Cochran's Q (adjusted the same way) has p &lt; ${esc(String(alpha))} and the interval spans both signs; otherwise it is <b>inconclusive</b> (the why column says which). The 95% CI shown is unadjusted. With few runs tau² is imprecise: see its interval.</p>`);
  out.push(htmlTable(tables.get('meta_analysis')!, {
    columns: ['a', 'b', 'runs', 'r', 'ci95_low', 'ci95_high', 'p_adjusted', 'tau2', 'i2', 'q_p_adjusted', 'prediction95_low', 'prediction95_high', 'verdict', 'why'],
    headers: { r: 'pooled r', ci95_low: '95% CI low', ci95_high: '95% CI high', p_adjusted: 'p adjusted', tau2: 'tau', i2: 'I²', q_p_adjusted: 'Q p adjusted', prediction95_low: '95% PI low', prediction95_high: '95% PI high' },
    format: {
      r: (v) => fixed(v as number | null, 3), ci95_low: (v) => fixed(v as number | null, 3), ci95_high: (v) => fixed(v as number | null, 3),
      p_adjusted: (v) => pValue(v as number | null), q_p_adjusted: (v) => pValue(v as number | null),
      tau2: (v) => (v === null ? '–' : fixed(Math.sqrt(v as number), 3)),
      i2: (v) => (v === null ? '–' : `${fixed(100 * (v as number), 0)}%`),
      prediction95_low: (v) => fixed(v as number | null, 3), prediction95_high: (v) => fixed(v as number | null, 3),
    },
    rowClass: (row) => `meta-${String(row[META_COLUMNS.indexOf('verdict')]).replace(/ /g, '-')}`,
  }));
  const notes = [...new Set(meta.pairs.flatMap((p) => p.notes))];
  if (notes.length) out.push(`<ul class="small">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
  if (tables.has('meta_regression')) out.push(moderatorHtml(meta.pairs, meta.moderator!));
  const charts: string[] = [];
  for (const p of meta.pairs) {
    const runs = forestRuns(a, p);
    if (runs.length === 0) continue;
    const pooled = p.r !== null && p.ci95 !== null && p.runs > 1
      ? { r: p.r, ci95: p.ci95, prediction95: p.prediction95, label: `pooled (${meta.estimator}${meta.hartung_knapp ? '+HK' : ''})` }
      : null;
    const svg = await renderSvg(forestSpec(runs, pooled), `${p.a} and ${p.b}: partial correlation per run and pooled`);
    const caption = `${p.a} – ${p.b}: each run's partial correlation with its 95% CI (square area: weight in the pooled estimate)` +
      (pooled ? `; diamond: pooled r ${fixed(p.r, 2)} and its 95% CI` : '') +
      (p.prediction95 ? `; dashed: 95% prediction interval for a new run` : '') + `; verdict: ${p.verdict}.`;
    charts.push(figure(svg, caption, 'forest'));
  }
  if (charts.length) out.push(`<div class="charts">${charts.join('\n')}</div>`);
  return out.join('\n');
}

/** The runs of one pair with a defined r, each with its relative weight 1 / (v + tau^2). */
function forestRuns(a: StudyA, p: PairMeta): ForestRun[] {
  const tau2 = p.tau2 ?? 0;
  const runs: ForestRun[] = [];
  for (const run of a.analysis.runs) {
    const pair = run.pairs.find((x) => x.a === p.a && x.b === p.b);
    if (!pair || pair.r === null || pair.ci95 === null || Math.abs(pair.r) >= 1) continue; // as pooled (pair-meta.ts)
    runs.push({ run: run.run, r: pair.r, ci95: pair.ci95, weight: 1 / (fisherZVariance(pair) + tau2) });
  }
  const total = runs.reduce((s, r) => s + r.weight, 0);
  return runs.map((r) => ({ ...r, weight: r.weight / total }));
}

function moderatorHtml(pairs: readonly PairMeta[], attribute: string): string {
  const rows = pairs.filter((p) => p.moderator).map((p) => {
    const m = p.moderator!;
    const test = m.test === null ? '–' : `${m.test.distribution === 'F' ? `F(${m.test.df1}, ${m.test.df2})` : `χ²(${m.test.df1})`} = ${fixed(m.test.statistic, 2)}`;
    const detail = m.levels
      ? m.levels.map((l) => `${esc(l.level)}: ${fixed(l.r, 2)} [${fixed(l.ci95[0], 2)}, ${fixed(l.ci95[1], 2)}] (${l.runs} run${l.runs === 1 ? '' : 's'})`).join('<br>')
      : m.coefficients.length ? `slope ${esc(m.coefficients[1].estimate.toPrecision(3))} z per unit` : esc(m.notes.join('; '));
    return `<tr><td>${esc(p.a)}</td><td>${esc(p.b)}</td><td>${m.runs}</td><td>${test}</td><td>${pValue(m.test?.p ?? null)}</td><td>${m.r2 === null ? '–' : `${fixed(100 * m.r2, 0)}%`}</td><td>${detail}</td></tr>`;
  });
  return `<h4>Does the relation depend on “${esc(attribute)}”?</h4>` +
    `<p class="note">Meta-regression of each pair's z on the run attribute; the test asks whether the pooled relation differs with it; R² is the share of the between-run variance it accounts for.</p>` +
    `<table><thead><tr><th>a</th><th>b</th><th>runs</th><th>test</th><th>p</th><th>R²</th><th>${pairs.some((p) => p.moderator?.levels) ? 'pooled r per level [95% CI]' : 'effect'}</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
