// The report's tables a paper prints, as paper tables (paper-table.ts): study A's verdict per pair
// with its robustness, the meta-analysis behind the verdicts, and study B's grid of training task
// x test set x method. They are read from the same analysis the page draws, in the page's order
// (pairs by pooled r, as the forest figure sorts them; study B's rows and columns as its matrices).
import type { PairMeta } from '../analyze/pair-meta.ts';
import { pValueText } from '../analyze/text-cells.ts';
import { sortForestRows } from './forest-chart.ts';
import { verdictLook } from './meta-verdict.ts';
import { decimal, interval, type PaperCell, type PaperColumn, type PaperTable } from './paper-table.ts';
import type { StudyA } from './study-a.ts';
import { rowLabel, STUDY_B_METHODS, type StudyB, type StudyBMethod } from './study-b.ts';

export function paperTables(a: StudyA, b: StudyB): PaperTable[] {
  const tables: PaperTable[] = [];
  if (a.options && a.analysis.meta.pairs.length) tables.push(verdictTable(a), metaAnalysisTable(a));
  if (b.present) tables.push(studyBGrid(b));
  return tables;
}

function byPooledR(pairs: readonly PairMeta[]): PairMeta[] {
  return sortForestRows(pairs.map((p) => ({ ...p, pooled: p.r === null ? null : { r: p.r } })));
}

/** How the runs were pooled, in words shared by both study-A captions. */
function pooling(a: StudyA): string {
  const meta = a.analysis.meta;
  return `partial correlations across checkpoints with ${a.control} regressed out, pooled over runs by a random-effects meta-analysis ` +
    `on Fisher's z (${meta.estimator}${meta.hartung_knapp ? ', Hartung-Knapp' : ''})`;
}

const PAIR: PaperColumn[] = [{ header: 'a' }, { header: 'b' }];

function verdictTable(a: StudyA): PaperTable {
  const pairs = byPooledR(a.analysis.meta.pairs);
  const robust = pairs.some((p) => p.holds !== undefined);
  const columns: PaperColumn[] = [
    ...PAIR,
    { header: 'pooled r', latexHeader: 'pooled $r$', numeric: true },
    { header: '95% CI', latexHeader: '95\\% CI', numeric: true },
    { header: '95% PI', latexHeader: '95\\% PI', numeric: true },
    { header: 'verdict' },
    ...(robust ? [{ header: 'holds under' }] : []),
  ];
  return {
    name: 'study-a-verdicts', title: 'Does each relation between OOD test sets generalise across runs?',
    description: `One row per pair of OOD test sets: ${pooling(a)}; the pooled r with its 95% CI, the 95% prediction interval for ` +
      `a new run (PI), and the verdict (generalises, depends on the model, negligible everywhere or inconclusive)` +
      (robust ? ', with under how many of the analysis choices (Pearson or Spearman, linear or spline residualiser, levels or first ' +
        'differences) it holds; fragile when under half.' : '; robustness to the analysis choices was not computed.'),
    columns,
    rows: pairs.map((p) => {
      const tone = verdictLook(p.verdict).tone;
      const verdict: PaperCell = tone === 'holds' || tone === 'varies' ? { text: p.verdict, strong: true } : p.verdict;
      const robustness = p.holds === undefined ? null : `${p.holds} of ${p.of}${p.fragile ? ', fragile' : ''}`;
      return [p.a, p.b, decimal(p.r, 3), interval(p.ci95, 3), interval(p.prediction95, 3), verdict, ...(robust ? [robustness] : [])];
    }),
  };
}

function metaAnalysisTable(a: StudyA): PaperTable {
  const p = (x: number | null) => (x === null ? null : pValueText(x));
  return {
    name: 'study-a-meta-analysis', title: 'Meta-analysis of each pair of OOD test sets across runs',
    description: `One row per pair of OOD test sets: ${pooling(a)}. Runs pooled, pooled r with its 95% CI, p adjusted over the pairs ` +
      `(${a.options!.correction}), the between-run standard deviation tau (z scale), I squared, Cochran's Q with its df and its ` +
      'adjusted p, and the 95% prediction interval for a new run (PI).',
    columns: [
      ...PAIR,
      { header: 'runs', numeric: true },
      { header: 'pooled r', latexHeader: 'pooled $r$', numeric: true },
      { header: '95% CI', latexHeader: '95\\% CI', numeric: true },
      { header: 'p adjusted', latexHeader: '$p$ adj.', numeric: true },
      { header: 'τ', latexHeader: '$\\tau$', numeric: true },
      { header: 'I²', latexHeader: '$I^2$', numeric: true },
      { header: 'Q', latexHeader: '$Q$', numeric: true },
      { header: 'df', numeric: true },
      { header: 'Q p adjusted', latexHeader: '$Q$ $p$ adj.', numeric: true },
      { header: '95% PI', latexHeader: '95\\% PI', numeric: true },
    ],
    rows: byPooledR(a.analysis.meta.pairs).map((m) => [
      m.a, m.b, String(m.runs), decimal(m.r, 3), interval(m.ci95, 3), p(m.p_adjusted), decimal(m.tau2 === null ? null : Math.sqrt(m.tau2), 3),
      m.i2 === null ? null : `${decimal(100 * m.i2, 0)}%`, decimal(m.q, 2), m.q_df === null ? null : String(m.q_df), p(m.q_p_adjusted),
      interval(m.prediction95, 3),
    ]),
  };
}

const METHOD_NAMES: Record<StudyBMethod, string> = { base: 'base', ft: 'FT', fticl: 'FTICL' };

/** Study B: per model, a row per method and training setting, a column per test set; each cell its score and difference from base. */
function studyBGrid(b: StudyB): PaperTable {
  const task = (t: string) => b.cells.find((c) => c.testSet === t)?.testSetTask ?? null;
  const metricOf = (t: string) => b.cells.find((c) => c.testSet === t)!.metric;
  const metrics = [...new Set(b.testSets.map(metricOf))];
  const header = (t: string) => {
    const what = [task(t), metrics.length > 1 ? metricOf(t) : null].filter((x) => x !== null);
    return what.length ? `${t} (${what.join(', ')})` : t;
  };
  const several = b.models.length > 1;
  const rows: PaperCell[][] = [];
  for (const model of b.models) {
    for (const method of STUDY_B_METHODS) {
      const cells = b.cells.filter((c) => c.model === model && c.method === method);
      for (const label of [...new Set(cells.map(rowLabel))]) {
        const row: PaperCell[] = b.testSets.map((t) => {
          const c = cells.find((x) => rowLabel(x) === label && x.testSet === t);
          if (!c) return null;
          const text = method === 'base' || c.delta === null ? decimal(c.score, 3)! : `${decimal(c.score, 3)} (${signedDecimal(c.delta, 3)})`;
          return c.role === 'in-domain' ? { text, strong: true } : text;
        });
        rows.push([...(several ? [model] : []), METHOD_NAMES[method], method === 'base' ? label.replace(/^base ?/, '') || null : label,
          ...row]);
      }
    }
  }
  return {
    name: 'study-b-grid', title: 'Training task x test set x method',
    description: `Each cell: the final checkpoint's ${metrics.length === 1 ? metrics[0] : 'score'} on the test set, averaged over runs of ` +
      'the same setting, and in brackets its difference from the base model (same model, same number of demonstrations; none where ' +
      'there is no such base run). Rows: the method and the task fine-tuned on; bold: in-domain.',
    columns: [...(several ? [{ header: 'model' }] : []), { header: 'method' }, { header: 'trained on' },
      ...b.testSets.map((t) => ({ header: header(t), numeric: true }))],
    rows,
  };
}

function signedDecimal(x: number, digits: number): string {
  const t = decimal(x, digits)!;
  return Number(t) > 0 ? `+${t}` : t;
}
