// What a reading says about the scores' sampling noise: for how many test sets each score's
// sampling variance is known and from what (a stderr, the number of examples, --sample-size), or a
// warning when the scores are proportions and nothing says over how many examples, since the
// control's sampling noise then goes uncorrected and inflates the partial correlations.
import { samplingVarianceOf } from './run-series.ts';
import { isFractionMetric, type ScoreRow } from './score-row.ts';

type Source = 'stderr' | 'n' | 'sample size';
const RANK: Record<Source, number> = { stderr: 0, n: 1, 'sample size': 2 };

/** Where a test set's variances come from: the best source among its metrics whose every score has one. */
export function samplingSources(rows: readonly ScoreRow[], sampleSize?: number): Map<string, Source> {
  const groups = new Map<string, ScoreRow[]>();
  for (const r of rows) {
    const key = JSON.stringify([r.testSet, r.metric]);
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  const out = new Map<string, Source>();
  for (const group of groups.values()) {
    if (!group.every((r) => samplingVarianceOf(r, sampleSize) !== undefined)) continue;
    const source: Source = group.every((r) => r.stderr !== undefined) ? 'stderr'
      : group.every((r) => r.stderr !== undefined || r.n !== undefined) ? 'n' : 'sample size';
    const earlier = out.get(group[0].testSet);
    if (earlier === undefined || RANK[source] < RANK[earlier]) out.set(group[0].testSet, source);
  }
  return out;
}

/** "sampling variance: from stderr for 3 test set(s), from n for 1", or undefined when no test set has one. */
export function samplingSummary(rows: readonly ScoreRow[], sampleSize?: number): string | undefined {
  const sources = [...samplingSources(rows, sampleSize).values()];
  if (sources.length === 0) return undefined;
  const parts: string[] = [];
  for (const [source, label] of [['stderr', 'stderr'], ['n', 'n'], ['sample size', `--sample-size ${sampleSize}`]] as const) {
    const count = sources.filter((s) => s === source).length;
    if (count) parts.push(`from ${label} for ${count}${parts.length ? '' : ' test set(s)'}`);
  }
  return `sampling variance: ${parts.join(', ')}`;
}

/** The warning when proportions come without any n or stderr, else undefined. */
export function samplingNote(rows: readonly ScoreRow[], sampleSize?: number): string | undefined {
  if (sampleSize !== undefined || !rows.some((r) => isFractionMetric(r.metric))) return undefined;
  if (rows.some((r) => r.n !== undefined || r.stderr !== undefined)) return undefined;
  return 'scores look like proportions but no test-set size (n) or stderr is given: the partial correlations may be biased upward by ' +
    'the control\'s sampling noise; give a column `n` or `stderr`, or --sample-size N';
}
