// What `analyze` and `report` check about the scores against what was asked, before any statistics:
// the named control and test sets exist (an unknown one lists the known ones), and which test sets
// lack the chosen metric (left out, said so, never silently).
import { UserError } from '../errors.ts';
import type { ScoreColumns } from './score-columns.ts';
import { knownNamesText } from '../closest-name.ts';

/** Rejects a --control or --test-set name the input has no scores for, listing the ones it has. */
export function checkNamedTestSets(scores: ScoreColumns, input: string, named: { control?: string; testSets?: readonly string[] }): void {
  const known = [...scores.testSets].sort();
  const has = new Set(known);
  if (named.control !== undefined && !has.has(named.control)) {
    throw new UserError(`${input}: no scores for the control test set "${named.control}" ${knownNamesText(named.control, known)}`);
  }
  const unknown = (named.testSets ?? []).filter((t) => !has.has(t));
  if (unknown.length) {
    throw new UserError(`--test-set ${unknown.join(' ')}: ${input} has no scores for ${unknown.map((t) => `"${t}"`).join(', ')} ` +
      knownNamesText(unknown[0], known));
  }
}

/** Test sets with scores but none for `metric`, each with the metrics it has. */
export function setsLackingMetric(scores: ScoreColumns, metric: string): { testSet: string; metrics: string[] }[] {
  const bySet = new Map<string, Set<string>>();
  const { groupTestSet, groupMetric } = scores.index();
  for (let g = 0; g < groupTestSet.length; g++) {
    const testSet = scores.testSets[groupTestSet[g]];
    let m = bySet.get(testSet);
    if (!m) bySet.set(testSet, (m = new Set()));
    m.add(scores.metrics[groupMetric[g]]);
  }
  return [...bySet]
    .filter(([, m]) => !m.has(metric))
    .map(([testSet, m]) => ({ testSet, metrics: [...m].sort() }))
    .sort((a, b) => (a.testSet < b.testSet ? -1 : 1));
}

/** The note for sets left out for lacking the metric, or undefined when none is. */
export function lackingMetricNote(scores: ScoreColumns, metric: string): string | undefined {
  const lacking = setsLackingMetric(scores, metric);
  if (lacking.length === 0) return undefined;
  const shown = lacking.slice(0, 5).map((l) => `${l.testSet} (has ${l.metrics.join(', ')})`).join(', ');
  return `${lacking.length} test set(s) have no "${metric}" scores and are left out: ` +
    `${shown}${lacking.length > 5 ? ', ...' : ''} (choose another with --metric)`;
}
