/** Per-pair and mean ROUGE of id-joined predictions and references, as JSON or a text table. */
import type { JoinedPair } from './idTextJsonl.ts';
import { meanRougeScores, ROUGE_TYPES, RougeScorer, type RougeOptions, type RougeScores } from './rouge.ts';

export type RougePairScores = { id: string | number } & RougeScores;

/** The shape `genstudy metrics rouge --format json` prints. */
export interface RougeReport {
  pairs: RougePairScores[];
  mean: RougeScores;
}

export function scoreRougePairs(pairs: readonly JoinedPair[], options: RougeOptions = {}): RougeReport {
  const scorer = new RougeScorer(options);
  const scored = pairs.map(({ id, prediction, reference }) => ({ id, ...scorer.score(prediction, reference) }));
  return { pairs: scored, mean: meanRougeScores(scored) };
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/** F of each pair, then mean P, R and F of each ROUGE variant; numbers to 4 decimals. */
export function formatRougeTable(report: RougeReport): string {
  const idWidth = Math.max(2, 'mean'.length, ...report.pairs.map((p) => String(p.id).length));
  const columnWidth = Math.max(...ROUGE_TYPES.map((t) => t.length + 2), 8);
  const header = [pad('id', idWidth), ...ROUGE_TYPES.map((t) => pad(`${t} F`, columnWidth, true))].join('  ');
  const lines = [header, '-'.repeat(header.length)];
  for (const pair of report.pairs) {
    lines.push([pad(String(pair.id), idWidth), ...ROUGE_TYPES.map((t) => pad(pair[t].f.toFixed(4), columnWidth, true))].join('  '));
  }
  lines.push('', `mean over ${report.pairs.length} pairs`);
  lines.push([pad('', 10), ...['P', 'R', 'F'].map((h) => pad(h, 8, true))].join('  '));
  for (const t of ROUGE_TYPES) {
    const { p, r, f } = report.mean[t];
    lines.push([pad(t, 10), ...[p, r, f].map((v) => pad(v.toFixed(4), 8, true))].join('  '));
  }
  return lines.join('\n') + '\n';
}
