// A run's "score against step" charts: which test sets and metrics they draw, and the panels that
// draw them. A study-A run shows exactly what was analysed (the control and the OOD sets, in the
// analysis's metric), so the curves read against the ID-vs-OOD figure and the heatmap beside them;
// a run study A does not cover (a study-B run, a report without a control) shows each of its sets
// in the metric the set is shown with elsewhere. One metric per axis: scores on different scales
// (an accuracy and a likelihood difference) on one axis flatten each other, so each metric gets
// its own panel on the same step axis.
import { curvesSpec, MARKED_SCORES, marksEachScore, renderSvg, type CurvePoint } from './charts.ts';
import { esc, figure } from './html.ts';
import { metricForTestSet, metricsByTestSet, type ReportData, type ReportRun } from './report-data.ts';
import type { StudyA } from './study-a.ts';
import { methodOf } from './study-b.ts';
import type { StoredScore } from '../store/result-store.ts';

/** What a run's curves draw: per metric, its scores; and the sets of the run left undrawn, with why. */
export interface RunCurvePlan {
  panels: { metric: string; scores: StoredScore[] }[];
  /** Test sets the run has scores for that no panel draws. */
  leftOut: string[];
  /** Why they are left out (empty when none is). */
  why: string;
}

/** How many names a note lists before it counts the rest. */
const NAMES_LISTED = 6;

/**
 * The panels of one run: for a run in study A's scope, the control and the analysed OOD sets (the
 * --test-set list, else every set with the analysis's metric) in that metric; otherwise every set
 * of the run in its shown metric (metricForTestSet), one panel per metric, panels in metric order.
 * `own`: the run's scores, when the caller has them grouped already.
 */
export function planRunCurves(data: ReportData, a: StudyA, run: ReportRun, requestedMetric?: string,
  own: readonly StoredScore[] = data.scores.filter((s) => s.run === run.id)): RunCurvePlan {
  const sets = [...new Set(own.map((s) => s.testSet))].sort();
  const inStudyA = a.options !== null && a.control !== null && a.metric !== null && methodOf(run) === null;
  if (inStudyA) {
    const metric = a.metric!;
    const named = a.options!.testSets;
    const drawn = new Set(named ? [a.control!, ...named] : sets);
    const scores = own.filter((s) => s.metric === metric && drawn.has(s.testSet));
    const shown = new Set(scores.map((s) => s.testSet));
    const leftOut = sets.filter((t) => !shown.has(t));
    const why = named ? 'not among the analysed sets (the control and --test-set)' : `no ${metric} scores, the metric analysed`;
    return { panels: scores.length ? [{ metric, scores }] : [], leftOut, why: leftOut.length ? why : '' };
  }
  const metrics = metricsByTestSet(own);
  const specs = new Map(data.testSets.map((t) => [t.id, t.spec]));
  const byMetric = new Map<string, StoredScore[]>();
  for (const s of own) {
    if (s.metric !== metricForTestSet(metrics.get(s.testSet)!, specs.get(s.testSet), requestedMetric ?? a.metric ?? undefined)) continue;
    let list = byMetric.get(s.metric);
    if (!list) byMetric.set(s.metric, (list = []));
    list.push(s);
  }
  const panels = [...byMetric].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([metric, scores]) => ({ metric, scores }));
  return { panels, leftOut: [], why: '' };
}

/** The steps a run's curves are drawn over (every panel and the loss share this axis). */
export function planSteps(plan: RunCurvePlan): number[] {
  return [...new Set(plan.panels.flatMap((p) => p.scores.map((s) => s.step)))].sort((x, y) => x - y);
}

/** One figure per panel, each with its metric on the y axis; none when the plan draws nothing. */
export async function runCurveFigures(run: ReportRun, plan: RunCurvePlan, control: string | null): Promise<string[]> {
  const steps = planSteps(plan);
  const figures: string[] = [];
  for (const [i, panel] of plan.panels.entries()) {
    const points: CurvePoint[] = panel.scores.map((s) => ({
      step: s.step, series: s.testSet === control ? `${s.testSet} (ID)` : s.testSet, value: s.value, isControl: s.testSet === control,
    }));
    const markers = marksEachScore(points.length);
    const svg = await renderSvg(curvesSpec(points, panel.metric, steps, markers), `${run.id}: ${panel.metric} against training step`);
    const count = new Set(panel.scores.map((s) => s.testSet)).size;
    const hasControl = points.some((p) => p.isControl);
    const parts = [`${run.id}: ${panel.metric} of ${count} test set${count === 1 ? '' : 's'} against training step`];
    if (hasControl) parts.push(`the in-domain (ID) set "${control}" in black`);
    // the line passes through every score; only the marker on each is left off, and the caption says so
    if (!markers) parts.push(`lines without a marker per checkpoint (${points.length} scores; markers are drawn up to ${MARKED_SCORES})`);
    if (plan.panels.length > 1) parts.push(`panel ${i + 1} of ${plan.panels.length}, one per metric`);
    if (i === plan.panels.length - 1 && plan.leftOut.length) parts.push(`not drawn: ${leftOutText(plan)}`);
    figures.push(figure(svg, `${parts.join('; ')}.`, 'curves', { metric: panel.metric }));
  }
  return figures;
}

/** The run's sets not drawn, named (the first few) and counted, with why: the curves never drop a set unsaid. */
export function leftOutText(plan: RunCurvePlan): string {
  const n = plan.leftOut.length;
  const names = plan.leftOut.slice(0, NAMES_LISTED).join(', ') + (n > NAMES_LISTED ? `, ... (${n})` : '');
  return `${n} test set${n === 1 ? '' : 's'} ${plan.why} (${names}); scores.csv has their scores`;
}

/** A note for a run with scores but no curve to draw (one checkpoint scored, or none of its sets analysed). */
export function noCurveNote(plan: RunCurvePlan, steps: number[], studyB: boolean): string {
  if (plan.panels.length === 0) return `<p class="note">No curve drawn: ${esc(leftOutText(plan))}.</p>`;
  return `<p class="note">${steps.length} checkpoint scored (step ${esc(steps.join(', '))}): no curve to draw; its scores are ` +
    `in scores.csv${studyB ? ' and in the study B matrices above' : ''}.</p>`;
}
