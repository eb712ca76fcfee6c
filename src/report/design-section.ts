// The report's "designed against found" part, shown when the caller knows the correlation signs
// the test sets were built with (a study on the synthetic suite: the pipeline compares them with
// the analysis in synth/design-check.ts, which also words the verdict for the demo's printout).
// The report only renders that comparison.
import { esc, htmlTable } from './html.ts';
import type { Table } from './table.ts';

/** One OOD pair: the sign it was built to have, the runs that found each sign, and the outcome. */
export interface DesignComparisonRow { a: string; b: string; designed: string; positive: number; negative: number; runs: number;
  outcome: string; why: string }

export interface DesignComparison { rows: readonly DesignComparisonRow[]; verdict: string }

export function designComparisonTable(c: DesignComparison): Table {
  return {
    name: 'designed_vs_found', title: 'Designed against found',
    description: 'One row per pair of OOD test sets: the sign its partial correlation was built to have, the runs with a significant ' +
      'positive / negative one, and the outcome.',
    columns: ['a', 'b', 'designed', 'positive', 'negative', 'runs', 'outcome', 'why'],
    rows: c.rows.map((r) => [r.a, r.b, r.designed, r.positive, r.negative, r.runs, r.outcome, r.why]),
  };
}

export function designSection(c: DesignComparison, table: Table): string {
  return [
    '<section id="designed-vs-found">',
    '<h2>Designed against found</h2>',
    `<p class="headline" id="design-verdict">${esc(c.verdict)}</p>`,
    '<p class="note">The test sets were built so that some pairs must move together or against each other in every run (a twin: ' +
      'the same items with other words; a mirror: the same items, each with an edit that flips the label and no cue sees), or, in ' +
      'the artifact design, with a sign that follows the run\'s training variant (a recast: the same items with each cue word ' +
      'swapped for one whose lean differs between the variants); the other pairs have no designed relation. A pair designed to ' +
      'keep its sign is recovered when its verdict across runs is "generalises" with that sign; one designed to follow the variant ' +
      'when its verdict is "depends on the model" and no run is significant with the other variant\'s sign; a pair with no ' +
      'designed relation is spurious when it generalises (docs/synthetic.md).</p>',
    htmlTable(table, {
      columns: ['a', 'b', 'designed', 'positive', 'negative', 'runs', 'outcome'], names: ['a', 'b'],
      rowClass: (row) => `outcome-${String(row[6]).replace(/ /g, '-')}`,
    }),
    '</section>',
  ].join('\n');
}
