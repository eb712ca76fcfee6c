// The per-pair meta-analysis across runs, with each pair's verdict and why, as text and as CSV.
import type { MetaAcrossRuns, PairMeta } from './pair-meta.ts';
import { PAIR_VERDICTS } from './verdict.ts';
import { csvText, intervalText, pValueText } from './text-cells.ts';
import { alignColumns } from '../text-table.ts';

export const META_COLUMNS = [
  'a', 'b', 'runs', 'excluded', 'r', 'ci95_low', 'ci95_high', 'p', 'p_adjusted', 'z', 'se',
  'tau2', 'tau2_ci95_low', 'tau2_ci95_high', 'i2', 'i2_ci95_low', 'i2_ci95_high', 'q', 'q_df', 'q_p',
  'prediction95_low', 'prediction95_high', 'verdict', 'notes', 'q_p_adjusted', 'why', 'unstable_runs', 'holds', 'of', 'fragile',
] as const;

/** One row per pair, in META_COLUMNS order (shared by the CSV and the report's table); holds / of / fragile empty without robustness. */
export function metaRow(p: PairMeta): (string | number | boolean | null)[] {
  return [
    p.a, p.b, p.runs, p.excluded, p.r, p.ci95?.[0] ?? null, p.ci95?.[1] ?? null, p.p, p.p_adjusted, p.z, p.se,
    p.tau2, p.tau2_ci95?.[0] ?? null, p.tau2_ci95?.[1] ?? null, p.i2, p.i2_ci95?.[0] ?? null, p.i2_ci95?.[1] ?? null,
    p.q, p.q_df, p.q_p, p.prediction95?.[0] ?? null, p.prediction95?.[1] ?? null, p.verdict, p.notes.join('; ') || null,
    p.q_p_adjusted, p.why, p.unstable.map((u) => u.run).join('; ') || null, p.holds ?? null, p.of ?? null, p.fragile ?? null,
  ];
}

export const MODERATOR_COLUMNS = ['a', 'b', 'attribute', 'kind', 'runs', 'statistic', 'df1', 'df2', 'distribution', 'p', 'tau2_residual',
  'r2', 'term', 'estimate', 'se', 'term_p', 'ci95_low', 'ci95_high', 'notes'] as const;

/** One row per (pair, coefficient) of the meta-regression; a pair without a fit has one row with its notes. */
export function moderatorRows(meta: MetaAcrossRuns): (string | number | null)[][] {
  const rows: (string | number | null)[][] = [];
  for (const p of meta.pairs) {
    const m = p.moderator;
    if (!m) continue;
    const head = [p.a, p.b, m.attribute, m.kind, m.runs, m.test?.statistic ?? null, m.test?.df1 ?? null, m.test?.df2 ?? null,
      m.test?.distribution ?? null, m.test?.p ?? null, m.tau2, m.r2];
    const notes = m.notes.join('; ') || null;
    if (!m.coefficients.length) rows.push([...head, null, null, null, null, null, null, notes]);
    for (const c of m.coefficients) rows.push([...head, c.name, c.estimate, c.se, c.p, c.ci95[0], c.ci95[1], notes]);
  }
  return rows;
}

export function formatMetaCsv(meta: MetaAcrossRuns): string {
  return csvText([...META_COLUMNS], meta.pairs.map(metaRow));
}

export function formatModeratorCsv(meta: MetaAcrossRuns): string {
  return csvText([...MODERATOR_COLUMNS], moderatorRows(meta));
}

/** The table's lines: the verdict per pair from its pooled effect, then the moderator tests when asked for. */
export function formatMetaTable(meta: MetaAcrossRuns): string[] {
  const out: string[] = [];
  const k = Math.max(0, ...meta.pairs.map((p) => p.runs));
  out.push(`The verdict per pair across ${k} run${k === 1 ? '' : 's'} (${PAIR_VERDICTS.join(' / ')}): random-effects meta-analysis per ` +
    `pair (Fisher z, ${meta.estimator}${meta.hartung_knapp ? ', Hartung-Knapp' : ''}; p and Q p adjusted over the pairs; the 95% CI is ` +
    `unadjusted)`);
  const header = ['a', 'b', 'runs', 'pooled r', '95% CI', 'p adj', 'tau', 'I2', 'Q p adj', '95% prediction', 'verdict', 'why'];
  const rows = meta.pairs.map((p) => [
    p.a, p.b, String(p.runs), num(p.r, 3), ci(p.ci95), pval(p.p_adjusted), p.tau2 === null ? '-' : Math.sqrt(p.tau2).toFixed(3),
    p.i2 === null ? '-' : `${(100 * p.i2).toFixed(0)}%`, pval(p.q_p_adjusted), ci(p.prediction95), p.verdict, p.why,
  ]);
  out.push(...alignColumns([header, ...rows], { indent: 2 }));
  const notes = [...new Set(meta.pairs.flatMap((p) => p.notes))];
  for (const n of notes) out.push(`  note: ${n}`);
  if (meta.moderator !== null) {
    out.push('', `Does the relation depend on "${meta.moderator}"? Meta-regression of each pair's z on it`);
    const fits = meta.pairs.filter((p) => p.moderator);
    // A note every pair shares (the attribute missing or constant in every run) is said once, not per row.
    const shared = fits.length ? fits[0].moderator!.notes.filter((n) => fits.every((p) => p.moderator!.notes.includes(n))) : [];
    const own = (notes: readonly string[]) => notes.filter((n) => !shared.includes(n)).join('; ');
    if (fits.some((p) => p.moderator!.test !== null || own(p.moderator!.notes) !== '')) {
      const mrows = fits.map((p) => {
        const m = p.moderator!;
        const test = m.test === null
          ? '-'
          : `${m.test.distribution === 'F' ? `F(${m.test.df1}, ${m.test.df2})` : `QM(${m.test.df1})`} = ${m.test.statistic.toFixed(2)}`;
        const detail = m.levels
          ? m.levels.map((l) => `${l.level} ${num(l.r, 2)}`).join(', ')
          : m.coefficients.length ? `slope ${m.coefficients[1].estimate.toPrecision(3)} z per unit of ${m.attribute}` : own(m.notes) || '-';
        return [p.a, p.b, String(m.runs), test, pval(m.test?.p ?? null), m.r2 === null ? '-' : `${(100 * m.r2).toFixed(0)}%`, detail];
      });
      out.push(...alignColumns(
        [['a', 'b', 'runs', 'test', 'p', 'R2', moderatorKind(meta) === 'categorical' ? 'pooled r per level' : 'effect'], ...mrows],
        { indent: 2 }));
    } else {
      out.push(`  no pair could be tested (${fits.length} pairs).`);
    }
    for (const n of shared) out.push(`  note: ${n}`);
  }
  return out;
}

function moderatorKind(meta: MetaAcrossRuns): string | undefined {
  return meta.pairs.find((p) => p.moderator)?.moderator?.kind;
}

function num(x: number | null, digits: number): string {
  return x === null ? '-' : x.toFixed(digits);
}

function pval(p: number | null): string {
  return p === null ? '-' : pValueText(p);
}

function ci(c: [number, number] | null): string {
  return c === null ? '-' : intervalText(c);
}
