// Per-run figures beside the score curves, for what a researcher checks before trusting a partial
// correlation: each OOD score against the in-domain score (is an OOD set just tracking ID
// progress?), and, for one chosen pair, the two residual series against each other (the points
// whose correlation the analysis reports, coloured by training step).
import type { TopLevelSpec } from 'vega-lite';
import { UserError } from '../errors.ts';
import { signVerdict } from '../analyze/analysis.ts';
import { pairResiduals } from '../analyze/pair-residuals.ts';
import type { RunSeries } from '../analyze/run-series.ts';
import { CONFIG, MARKED_SCORES, marksEachScore, SIZE, renderSvg, seriesLegend, seriesStyles } from './charts.ts';
import { esc, figure, signed } from './html.ts';
import type { StudyA } from './study-a.ts';

export interface IdOodPoint { step: number; id: number; value: number; series: string }

/**
 * Every OOD score against the in-domain score across checkpoints, one coloured trajectory per OOD
 * set: a point per checkpoint while there are at most MARKED_SCORES (charts.ts), else each set's
 * scores joined in step order, one path per set.
 */
export function idVsOodSpec(points: readonly IdOodPoint[], idName: string, metric: string, markers = marksEachScore(points.length)): TopLevelSpec {
  // each OOD set in the colour, dash and marker it has in the run's score curves (charts.ts)
  const style = seriesStyles([...new Set(points.map((p) => p.series))]);
  const series = { field: 'series', type: 'nominal' as const, title: null, sort: style.domain };
  const color = { ...series, scale: { domain: style.domain, range: style.colour }, legend: seriesLegend(style.domain, SIZE.curves.width) };
  const x = { field: 'id', type: 'quantitative' as const, title: `${metric} on ${idName} (ID)`, scale: { zero: false } };
  const y = { field: 'value', type: 'quantitative' as const, title: `${metric} on the OOD set`, scale: { zero: false } };
  return {
    ...SIZE.curves, config: CONFIG,
    data: { values: points.map((p) => ({ ...p, marker: p.series })) },
    layer: [
      markers ? {
        mark: { type: 'point', filled: false, size: 45, strokeWidth: 1.5, opacity: 0.9 },
        encoding: { x, y, color, shape: { field: 'marker', type: 'nominal', scale: { domain: style.domain, range: style.shape }, legend: null } },
      } : {
        // too many points to mark one by one: each set's path through its checkpoints, thin and solid under its dashed fitted line
        mark: { type: 'line', strokeWidth: 1, opacity: 0.6 },
        encoding: { x, y, color, order: { field: 'step', type: 'quantitative' } },
      },
      // Each set's least-squares line on the ID score: its slope is how closely it tracks ID progress.
      {
        transform: [{ regression: 'value', on: 'id', groupby: ['series'] }],
        mark: { type: 'line', strokeWidth: 2 },
        encoding: {
          x: { field: 'id', type: 'quantitative' }, y: { field: 'value', type: 'quantitative' }, color,
          strokeDash: { ...series, scale: { domain: style.domain, range: style.dash } },
        },
      },
    ],
  };
}

export interface ResidualPoint { step: number; x: number; y: number }

/** One run's residuals of OOD set a against those of b, coloured by step, with the least-squares line. */
export function residualScatterSpec(points: readonly ResidualPoint[], a: string, b: string): TopLevelSpec {
  return {
    ...SIZE.small, config: CONFIG,
    data: { values: points.map((p) => ({ ...p })) },
    layer: [
      {
        mark: { type: 'point', filled: true, size: 60, opacity: 0.9 },
        encoding: {
          x: { field: 'x', type: 'quantitative', title: `residual of ${a}` },
          y: { field: 'y', type: 'quantitative', title: `residual of ${b}` },
          color: { field: 'step', type: 'quantitative', title: 'step', scale: { scheme: 'viridis' },
            legend: { orient: 'bottom', direction: 'horizontal', gradientLength: 200 } },
        },
      },
      {
        transform: [{ regression: 'y', on: 'x' }],
        mark: { type: 'line', color: '#444', strokeDash: [5, 3], strokeWidth: 1.5 },
        encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
      },
    ],
  };
}

/**
 * The pair whose residuals are drawn: the one asked for; else the first pair whose sign differs
 * between runs; else the pair with the largest mean |r| across runs.
 */
export function chosenPair(a: StudyA, requested?: readonly [string, string]): { a: string; b: string; why: string } | undefined {
  const agreement = a.analysis.agreement;
  if (agreement.length === 0) return undefined;
  if (requested) {
    const [x, y] = [...requested].sort();
    if (agreement.some((g) => g.a === x && g.b === y)) return { a: x, b: y, why: 'the pair asked for (--pair)' };
    const known = [...new Set(agreement.flatMap((g) => [g.a, g.b]))].sort();
    const unknown = requested.filter((s) => !known.includes(s));
    throw new UserError(`--pair ${requested.join(' ')}: ` +
      `${unknown.length ? `${unknown.join(' and ')} is not an OOD test set of this analysis` : 'expected two different OOD test sets'}; ` +
      `the OOD test sets are ${known.join(', ')}`);
  }
  const differs = agreement.find((g) => signVerdict(g) === 'sign differs');
  if (differs) return { a: differs.a, b: differs.b, why: 'the first pair whose sign differs between runs' };
  let best: { a: string; b: string; m: number } | undefined;
  for (const g of agreement) {
    const rs = a.analysis.runs.flatMap((r) => r.pairs.filter((p) => p.a === g.a && p.b === g.b && p.r !== null).map((p) => Math.abs(p.r!)));
    const m = rs.length ? rs.reduce((s, x) => s + x, 0) / rs.length : 0;
    if (!best || m > best.m) best = { a: g.a, b: g.b, m };
  }
  return best && { a: best.a, b: best.b, why: 'the pair with the largest mean |r| across runs' };
}

/** The ID-against-OOD figure of one run, or '' when it has no control scores. */
export async function idVsOodFigure(series: RunSeries, a: StudyA): Promise<string> {
  const control = a.control;
  const id = control === null ? undefined : series.values.get(control);
  if (!id || control === null) return '';
  const points: IdOodPoint[] = [];
  for (const [set, values] of series.values) {
    if (set === control || (a.options?.testSets && !a.options.testSets.includes(set))) continue;
    series.steps.forEach((step, i) => points.push({ step, id: id[i], value: values[i], series: set }));
  }
  if (points.length === 0) return '';
  const metric = a.metric ?? 'score';
  const markers = marksEachScore(points.length);
  const svg = await renderSvg(idVsOodSpec(points, control, metric, markers), `${series.run}: each OOD score against the in-domain score`);
  const per = markers ? 'one point per checkpoint'
    : `each set's checkpoints joined in step order (${points.length} points; drawn one by one up to ${MARKED_SCORES})`;
  return figure(svg, `${series.run}: ${metric} of each OOD set against ${control} (ID), ${per}, with each set's ` +
    'least-squares line. A set that only tracks ID progress lies close to its line; the partial correlations are about what is left off it.',
    'id-vs-ood');
}

/** The residual scatter of the chosen pair in one run, or '' when the run has no result for it. */
export async function residualFigure(series: RunSeries, a: StudyA, pair: { a: string; b: string }): Promise<string> {
  const run = a.analysis.runs.find((r) => r.run === series.run);
  const result = run?.pairs.find((p) => p.a === pair.a && p.b === pair.b);
  if (!run || !result || !a.options) return '';
  const res = pairResiduals(series, pair.a, pair.b, a.options, result.representation);
  if (!res) return '';
  const points = res.steps.map((step, i) => ({ step, x: res.a[i], y: res.b[i] }));
  const svg = await renderSvg(residualScatterSpec(points, pair.a, pair.b), `${series.run}: residuals of ${pair.a} against ${pair.b}`);
  const per = result.representation === 'differences' ? 'difference between consecutive checkpoints' : 'checkpoint';
  const r = result.r === null ? `r undefined (${result.reason ?? ''})` : `partial r ${signed(result.r, 2)}`;
  return figure(svg, `${series.run}: ${r}; one point per ${per} (colour: step; dashed: least squares).`, 'residuals');
}

/**
 * The residual scatter of the chosen pair side by side, one per run drawn (residualFigure of each;
 * runs-section.ts says which runs are drawn), with which pair and why; `notDrawn` runs' scatters are
 * counted, not drawn.
 */
export function residualSection(a: StudyA, pair: { a: string; b: string; why: string }, figures: readonly string[], notDrawn = 0): string {
  const drawn = figures.filter(Boolean);
  if (drawn.length === 0) return '';
  const heading = notDrawn ? `Residuals of ${esc(pair.a)} and ${esc(pair.b)} in ${drawn.length} runs`
    : `Residuals of ${esc(pair.a)} and ${esc(pair.b)} in each run`;
  return `<h3 id="residuals">${heading}</h3>` +
    `<p class="note">The points whose correlation each run's partial r is: ${esc(pair.a)} and ${esc(pair.b)} with ` +
    `${esc(a.control ?? '')} regressed out; ` +
    `${esc(pair.why)}. Another pair: <code>genstudy report --pair A B</code>.` +
    `${notDrawn ? ` Drawn for the runs whose figures this page draws; not for the other ${notDrawn} (see <a href="#runs-not-drawn">` +
      'the note on the runs not drawn</a>).' : ''}</p>` +
    `<div class="charts">${drawn.join('\n')}</div>`;
}
