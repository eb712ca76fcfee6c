// What `genstudy run` and `demo` print when a study ends: the answer and one line per pair, fitting
// a 120-column terminal. The full tables (per-run pairs, calibration, sign counts, robustness, the
// meta-analysis) are in the analysis folder and the report; repeating them on the terminal made
// 150 lines, most wider than the screen, with the headline twice.
import type { AnalysisResult } from './analysis.ts';
import { alignColumns, middleTruncate, wrapText } from '../text-table.ts';
import { intervalText } from './text-cells.ts';

export const SUMMARY_WIDTH = 120;

export function formatSummary(result: AnalysisResult, fullTables: string | undefined, width = SUMMARY_WIDTH): string[] {
  const out = wrapText(result.headline.sentence, width);
  const k = Math.max(0, ...result.meta.pairs.map((p) => p.runs));
  out.push('', `Per pair, pooled over the runs (${k} at most)${fullTables ? `; every table in ${fullTables}` : ''}:`);
  const rows = result.meta.pairs.map((p) => [
    p.r === null ? '-' : p.r.toFixed(3),
    p.prediction95 ? intervalText(p.prediction95) : '-',
    p.verdict,
    p.holds !== undefined && p.of !== undefined ? `${p.holds}/${p.of}${p.fragile ? ' fragile' : ''}` : '',
  ]);
  const header = ['r', '95% prediction', 'verdict', ...(result.robustness ? ['holds'] : [])];
  const rest = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length))).reduce((s, w) => s + w + 2, 0);
  // the pair gets what the other columns leave of the line; long names lose their middle
  const pairWidth = Math.max(24, width - 2 - rest);
  const half = Math.floor((pairWidth - 3) / 2);
  const pair = (a: string, b: string) => {
    const joined = `${a} – ${b}`;
    return joined.length <= pairWidth ? joined : `${middleTruncate(a, half)} – ${middleTruncate(b, half)}`;
  };
  out.push(...alignColumns([['pair', ...header], ...result.meta.pairs.map((p, i) => [pair(p.a, p.b), ...rows[i].slice(0, header.length)])],
    { indent: 2, rightAligned: [1] }));
  for (const r of result.left_out) out.push(...wrapText(`left out: run ${r.run}: ${r.reason}`, width, '  '));
  const liberal = result.runs.filter((r) => r.calibration && r.calibration.false_positive_rate > 2 * r.calibration.alpha);
  if (liberal.length) {
    out.push(...wrapText(`calibration: in ${liberal.length} of ${result.runs.length} runs the test's simulated false-positive rate is more than ` +
      `twice alpha (see the run's calibration line in the full tables)`, width, '  '));
  }
  return out;
}
