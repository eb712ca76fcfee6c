// What a reading says about the scores' sampling noise: for how many test sets each score's
// sampling variance is known and from what (a stderr, the number of examples, --sample-size), or a
// warning when the scores are proportions and nothing says over how many examples, since the
// control's sampling noise then goes uncorrected and inflates the partial correlations.
import { isFractionMetric } from './score-row.ts';
import type { ScoreColumns } from './score-columns.ts';

type Source = 'stderr' | 'n' | 'sample size';
const RANK: Record<Source, number> = { stderr: 0, n: 1, 'sample size': 2 };

/** Where a test set's variances come from: the best source among its metrics whose every score has one. */
export function samplingSources(scores: ScoreColumns, sampleSize?: number): Map<string, Source> {
  const metrics = scores.metrics.length;
  const fraction = scores.metrics.map((m) => isFractionMetric(m));
  // per (test set, metric): scored at all, every score's variance known, every score with a stderr, every one with a stderr or n
  const [seen, known, stderrs, stderrsOrNs] = [0, 1, 1, 1].map((fill) => new Uint8Array(scores.testSets.length * metrics).fill(fill));
  for (let i = 0; i < scores.length; i++) {
    const metric = scores.metricOf(i), k = scores.testSetOf(i) * metrics + metric;
    const stderr = scores.stderrOf(i) !== undefined, n = scores.nOf(i) !== undefined;
    seen[k] = 1;
    if (!stderr && !((n || sampleSize !== undefined) && fraction[metric])) known[k] = 0;
    if (!stderr) stderrs[k] = 0;
    if (!stderr && !n) stderrsOrNs[k] = 0;
  }
  const out = new Map<string, Source>();
  for (let k = 0; k < seen.length; k++) {
    if (!seen[k] || !known[k]) continue;
    const source: Source = stderrs[k] ? 'stderr' : stderrsOrNs[k] ? 'n' : 'sample size';
    const set = scores.testSets[Math.floor(k / metrics)];
    const earlier = out.get(set);
    if (earlier === undefined || RANK[source] < RANK[earlier]) out.set(set, source);
  }
  return out;
}

/** "sampling variance: from stderr for 3 test set(s), from n for 1", or undefined when no test set has one. */
export function samplingSummary(scores: ScoreColumns, sampleSize?: number): string | undefined {
  const sources = [...samplingSources(scores, sampleSize).values()];
  if (sources.length === 0) return undefined;
  const parts: string[] = [];
  for (const [source, label] of [['stderr', 'stderr'], ['n', 'n'], ['sample size', `--sample-size ${sampleSize}`]] as const) {
    const count = sources.filter((s) => s === source).length;
    if (count) parts.push(`from ${label} for ${count}${parts.length ? '' : ' test set(s)'}`);
  }
  return `sampling variance: ${parts.join(', ')}`;
}

/** The warning when proportions come without any n or stderr, else undefined. */
export function samplingNote(scores: ScoreColumns, sampleSize?: number): string | undefined {
  if (sampleSize !== undefined || !scores.metrics.some((m) => isFractionMetric(m))) return undefined;
  if (scores.anyN || scores.anyStderr) return undefined;
  return 'scores look like proportions but no test-set size (n) or stderr is given: the partial correlations may be biased upward by ' +
    'the control\'s sampling noise; give a column `n` or `stderr`, or --sample-size N';
}
