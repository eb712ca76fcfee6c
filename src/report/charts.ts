// The report's charts: Vega-Lite specs compiled to Vega and rendered to SVG strings in Node
// (renderer 'none', no canvas, no DOM), inlined into the page. The SVG uses the generic
// "sans-serif" font family and no external resources. Vega numbers its clip paths from 1 in every
// render, so each chart's ids are prefixed to keep them unique in one page.
// Without a canvas Vega estimates a label's width as 0.8 em per character, about 1.5 times the
// width of a real sans-serif label, which leaves wide gaps around rotated axis labels; a
// per-character estimate closer to DejaVu Sans / Helvetica is put in its place (only when Vega
// would estimate; with node-canvas installed it measures, and that is left alone).
import * as vega from 'vega';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { escapeHtml, isolateBidi } from './escape.ts';

const FONT = 'sans-serif';

// vega re-exports vega-scenegraph's textMetrics; its type declarations leave it out.
type WidthFn = (item: { fontSize?: number; limit?: number }, text: unknown) => number;
const textMetrics = (vega as unknown as { textMetrics: { width: WidthFn; estimateWidth: WidthFn } }).textMetrics;
if (textMetrics.width === textMetrics.estimateWidth) {
  textMetrics.width = (item, text) => {
    const size = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
    const width = estimateTextWidth(text == null ? '' : String(text).trim(), size);
    return item.limit && item.limit > 0 ? Math.min(width, item.limit) : width;
  };
}

/** Approximate width in pixels of `text` set in a sans-serif font of `size` pixels. */
export function estimateTextWidth(text: string, size: number): number {
  let em = 0;
  for (const ch of text) {
    if (/[iljI.,:;'|!()[\] ]/.test(ch)) em += 0.3;
    else if (/[mwMW@%]/.test(ch)) em += 0.88;
    else if (/[A-Z]/.test(ch)) em += 0.68;
    else if (/[0-9]/.test(ch)) em += 0.58;
    else em += 0.55;
  }
  return em * size;
}
export const CONFIG = {
  font: FONT,
  background: 'white',
  axis: { labelFontSize: 13, titleFontSize: 14, titleFontWeight: 'normal' as const },
  legend: { labelFontSize: 14, titleFontSize: 14, symbolSize: 140, labelLimit: 320, rowPadding: 5 },
  view: { stroke: '#ddd' },
};
/** The look every chart shares (forest-chart.ts builds its spec outside this file). */
export { CONFIG as CHART_CONFIG };

/** Chart sizes (plot area, px): wide enough to read at the page's width; the page scales them down on narrow screens. */
export const SIZE = { curves: { width: 660, height: 300 }, loss: { width: 640, height: 170 }, small: { width: 250, height: 220 } };

/** The series colours; the control (in-domain) set is drawn in black. */
export const PALETTE = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#ff9da6', '#9d755d', '#bab0ac', '#eeca3b'];

/**
 * The x scale for training steps: a symmetric log scale (step 0 stays on it) when the checkpoints
 * are log-spaced, so the dense early checkpoints are not squashed into the left edge; linear
 * otherwise. Log-spaced: at least 8 positive steps, the largest 30 times the smallest, and half
 * of them in the first fifth of the range. Either way the last step has a tick of its own: it is
 * the checkpoint a reader looks for, and a "nice" axis often ends short of it or past it.
 */
export function stepAxis(steps: readonly number[]): {
  scale: Record<string, unknown>; axis: Record<string, unknown>; title: string; logSpaced: boolean;
} {
  const positive = [...new Set(steps)].filter((s) => s > 0).sort((a, b) => a - b);
  const max = positive.at(-1) ?? 0;
  const min = Math.min(0, ...steps);
  const early = positive.filter((s) => s <= max / 5).length;
  const logSpaced = positive.length >= 8 && max >= 30 * positive[0] && early >= positive.length / 2;
  if (!logSpaced) {
    if (max <= min) return { scale: { type: 'linear', nice: true }, axis: {}, title: 'training step', logSpaced };
    return { scale: { type: 'linear', domain: [min, max], nice: false },
      axis: { values: withLast(linearTicks(min, max), max, (max - min) / 12) }, title: 'training step', logSpaced };
  }
  // Ticks at 0, 1, 2, 5, 10, 20, 50, ... up to the last step: a log axis's own ticks crowd its right end.
  const ticks = [0];
  for (let decade = 1; decade <= max; decade *= 10) for (const m of [1, 2, 5]) if (m * decade <= max) ticks.push(m * decade);
  // on a log axis "close" is a ratio: a tick within 30% of the last step would collide with its label
  return { scale: { type: 'symlog', constant: 1, domain: [0, max], nice: false },
    axis: { values: withLast(ticks, max, 0, 1.3), grid: true }, title: 'training step (log scale)', logSpaced };
}

/** Round ticks from min to max, about six of them (steps of 1, 2 or 5 times a power of ten). */
function linearTicks(min: number, max: number): number[] {
  const raw = (max - min) / 6;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** The ticks with the last step added, dropping a round tick too close to it (within `gap`, or a factor `ratio` on a log axis). */
function withLast(ticks: number[], last: number, gap: number, ratio = 0): number[] {
  const kept = ticks.filter((t) => t < last && last - t > gap && !(ratio && t > 0 && last / t < ratio));
  return [...kept, last];
}

export interface CurvePoint { step: number; series: string; value: number; isControl: boolean }

/** Line dashes and marker shapes, one per series with its colour, so series drawn on top of each other (equal scores) stay visible. */
const DASHES: number[][] = [[], [7, 3], [2, 2], [10, 3, 2, 3], [4, 4], [1, 3], [12, 4], [6, 2, 2, 2, 2, 2]];
const SHAPES = ['circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down', 'triangle-right', 'triangle-left'];

/**
 * The colour, dash and marker shape of each series: the control (ID) set first, black, solid, a
 * filled circle; the others from the palette, each with its own dash and (hollow) shape, so two
 * series with equal scores still show both their dashes and both their markers.
 */
export function seriesStyles(series: readonly string[], control?: string): {
  domain: string[]; colour: string[]; dash: number[][]; shape: string[];
} {
  const others = series.filter((s) => s !== control).sort();
  const domain = control !== undefined && series.includes(control) ? [control, ...others] : others;
  const offset = domain[0] === control ? 1 : 0;
  return {
    domain,
    colour: domain.map((s, i) => (s === control ? '#111111' : PALETTE[(i - offset) % PALETTE.length])),
    dash: domain.map((s, i) => (s === control ? [] : DASHES[(i - offset + 1) % DASHES.length])),
    shape: domain.map((s, i) => (s === control ? 'circle' : SHAPES[(i - offset + 1) % SHAPES.length])),
  };
}

/**
 * Per series, how wide its line and how large its markers: a series that coincides with series
 * drawn after it (equal scores at most checkpoints: the demo's paired sets, sets stuck at chance)
 * is drawn wider and larger, one step per series on top of it, so each shows at the edges of the
 * next; every other series keeps the plain size. Drawing order is the domain's.
 */
export function seriesSizes(domain: readonly string[], points: readonly { series: string; step: number; value: number }[],
  control?: string): Map<string, { lineWidth: number; markerSize: number }> {
  const bySeries = new Map<string, Map<number, number>>();
  for (const p of points) {
    let m = bySeries.get(p.series);
    if (!m) bySeries.set(p.series, (m = new Map()));
    m.set(p.step, p.value);
  }
  const coincide = (x: string, y: string) => {
    const a = bySeries.get(x)!, b = bySeries.get(y)!;
    let same = 0;
    for (const [step, v] of a) if (b.has(step) && Math.abs(b.get(step)! - v) < 1e-9) same++;
    return same * 2 > Math.max(a.size, b.size);
  };
  const sizes = new Map<string, { lineWidth: number; markerSize: number }>();
  domain.forEach((s, i) => {
    const above = Math.min(4, domain.slice(i + 1).filter((t) => bySeries.has(s) && bySeries.has(t) && coincide(s, t)).length);
    sizes.set(s, s === control ? { lineWidth: 3, markerSize: 36 } : { lineWidth: 1.8 + 1.2 * above, markerSize: 34 + 40 * above });
  });
  return sizes;
}

/**
 * The legend under a chart, in as many columns as fit its width; each entry a stretch of its
 * series' line, in its colour and dash (the chart's strokeDash scale), long enough to show the dash.
 */
export function seriesLegend(series: readonly string[], width: number): Record<string, unknown> {
  const widest = Math.max(0, ...series.map((n) => estimateTextWidth(n, 14)));
  return {
    orient: 'bottom', direction: 'horizontal', columns: Math.max(1, Math.min(series.length, Math.floor(width / (widest + 60)))),
    // every series named: Vega's default (30) would end the legend in "...58 entries"
    symbolLimit: 0,
    symbolType: 'stroke', symbolSize: 700, symbolStrokeWidth: 2.5,
    encode: { symbols: { update: { strokeDash: { scale: 'strokeDash', field: 'value' } } } },
  };
}

/**
 * The most scores a trajectory chart marks one by one (a marker per checkpoint per series; the ID
 * against OOD figure's points): above it each series is its line alone, one path, so a run of 200
 * checkpoints on 20 sets is 21 paths rather than 4,200 markers (the page's size and the browser's
 * time to open it grow with the marks, not with the lines' points).
 */
export const MARKED_SCORES = 1200;

/** Whether a chart of `scores` scores marks each one (MARKED_SCORES). */
export function marksEachScore(scores: number): boolean {
  return scores <= MARKED_SCORES;
}

/**
 * Scores against training step, one line per test set: the control (ID) set thicker in black,
 * every other set its own colour, dash and hollow marker, wider where it hides under a later one
 * (seriesSizes: equal series stay visible);
 * a marker on every checkpoint while the chart has at most MARKED_SCORES scores (else the lines
 * alone, one path per set: the caption says so); the legend under the chart, so the plot keeps its width on a narrow page.
 */
export function curvesSpec(points: readonly CurvePoint[], yTitle: string,
  axisSteps: readonly number[] = points.map((p) => p.step), markers = marksEachScore(points.length)): TopLevelSpec {
  const control = points.find((p) => p.isControl)?.series;
  const style = seriesStyles([...new Set(points.map((p) => p.series))], control);
  const sizes = seriesSizes(style.domain, points, control);
  // a run's panels (one per metric) share one step axis, so they read against each other
  const axis = stepAxis(axisSteps);
  const series = { field: 'series', type: 'nominal' as const, title: null, sort: style.domain };
  const x = { field: 'step', type: 'quantitative' as const, title: axis.title, scale: axis.scale, axis: axis.axis };
  const y = { field: 'value', type: 'quantitative' as const, title: yTitle, scale: { zero: false } };
  return {
    ...SIZE.curves, config: CONFIG,
    data: { values: points.map((p) => ({ ...p, ...sizes.get(p.series)! })) },
    layer: [
      {
        mark: { type: 'line', interpolate: 'linear' },
        encoding: {
          x, y,
          color: { ...series, scale: { domain: style.domain, range: style.colour }, legend: seriesLegend(style.domain, SIZE.curves.width) },
          strokeDash: { ...series, scale: { domain: style.domain, range: style.dash } },
          strokeWidth: { field: 'lineWidth', type: 'quantitative', scale: null, legend: null },
        },
      },
      // Every checkpoint is marked on its curve: the scores exist only there (unless there are too many to mark).
      ...(markers ? [{
        // the shape keyed by a copy of the series field, so the legend (colour and dash, merged) does not take it up
        transform: [{ calculate: 'datum.series', as: 'marker' }],
        mark: { type: 'point', filled: false, strokeWidth: 1.5, opacity: 1 },
        encoding: {
          x, y,
          size: { field: 'markerSize', type: 'quantitative', scale: null, legend: null },
          color: { ...series, scale: { domain: style.domain, range: style.colour } },
          shape: { field: 'marker', type: 'nominal', scale: { domain: style.domain, range: style.shape }, legend: null },
          fill: { condition: { test: 'datum.isControl', value: '#111111' }, value: 'white' },
        },
      }] : []),
    ],
  } as TopLevelSpec;
}

/** Training loss against step. */
export function lossSpec(points: readonly { step: number; loss: number }[],
  checkpointSteps: readonly number[] = points.map((p) => p.step)): TopLevelSpec {
  // The same step axis as the run's score curves, so the two read against each other.
  const axis = stepAxis(checkpointSteps);
  return {
    ...SIZE.loss, config: CONFIG,
    data: { values: points.map((p) => ({ ...p })) },
    mark: { type: 'line', color: '#555', point: points.length <= 40 },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: axis.title, scale: axis.scale, axis: axis.axis },
      y: { field: 'loss', type: 'quantitative', title: 'training loss', scale: { zero: false } },
    },
  };
}

export interface HeatCell {
  row: string; col: string; value: number | null;
  /** The cell's text; an array is drawn as lines. */
  label: string | string[];
  /** A black border: solid, or dashed when `dashed` is set. */
  outlined: boolean;
  dashed?: boolean;
}

/**
 * The most test sets a matrix of them writes each cell's label in (its r, its verdict mark, its sign
 * counts): past it a cell is too small to read a label in once the page scales the matrix down, and
 * the labels would be most of the page's marks (50 sets: 2,450 of them per matrix). Unlabelled, the
 * cells shrink so the matrix fits the page; the caption says where the numbers are.
 */
export const HEATMAP_LABELLED = 24;

/** Whether a matrix of `sets` test sets writes its cells' labels (HEATMAP_LABELLED). */
export function heatmapLabelled(sets: number): boolean {
  return sets <= HEATMAP_LABELLED;
}

/**
 * A matrix as coloured cells on a diverging red-white-blue scale over [-extent, extent]; cells
 * without a value are grey; outlined cells get a black border (dashed ones a dashed border); each
 * cell shows its label, unless `labels` is false. `cellSize` fixes the cells' side (else it shrinks as columns are added,
 * further without labels, so that a matrix of 50 sets is about 900 px wide);
 * the colour legend sits right of the matrix, or below it with `legendBelow` (two matrices side by side).
 */
export function heatmapSpec(cells: readonly HeatCell[], opts: {
  rows: string[]; cols: string[]; extent: number; legendTitle: string; rowTitle?: string; colTitle?: string; cellSize?: number; legendBelow?: boolean;
  labels?: boolean;
}): TopLevelSpec {
  const labels = opts.labels ?? true;
  const columns = Math.max(opts.cols.length, 1);
  const cellSize = opts.cellSize
    ?? (labels ? Math.max(40, Math.min(64, Math.floor(520 / columns))) : Math.max(10, Math.min(40, Math.floor(900 / columns))));
  const values = cells.map((c) => ({ ...c, dashed: c.dashed ?? false, strong: c.value !== null && Math.abs(c.value) > 0.6 * opts.extent }));
  const x = { field: 'col', type: 'nominal' as const, sort: opts.cols, title: opts.colTitle ?? null, axis: { labelAngle: -40, labelLimit: 0 } };
  const y = { field: 'row', type: 'nominal' as const, sort: opts.rows, title: opts.rowTitle ?? null, axis: { labelLimit: 0 } };
  const legend = opts.legendBelow ? { orient: 'bottom' as const, direction: 'horizontal' as const,
    gradientLength: Math.min(220, cellSize * opts.cols.length) } : {};
  return {
    width: cellSize * opts.cols.length, height: cellSize * opts.rows.length, config: CONFIG,
    data: { values },
    encoding: { x, y },
    layer: [
      {
        transform: [{ filter: 'datum.value !== null' }],
        mark: { type: 'rect' },
        encoding: {
          color: {
            field: 'value', type: 'quantitative', title: opts.legendTitle,
            scale: { scheme: 'redblue', domain: [-opts.extent, opts.extent] }, legend,
          },
        },
      },
      { transform: [{ filter: 'datum.value === null' }], mark: { type: 'rect', color: '#e4e4e4' } },
      {
        transform: [{ filter: 'datum.outlined && !datum.dashed' }],
        mark: { type: 'rect', fillOpacity: 0, stroke: '#000', strokeWidth: cellSize >= 30 ? 2.5 : 1.5 },
      },
      {
        transform: [{ filter: 'datum.outlined && datum.dashed' }],
        mark: { type: 'rect', fillOpacity: 0, stroke: '#000', strokeWidth: cellSize >= 30 ? 2 : 1.3, strokeDash: cellSize >= 30 ? [5, 3] : [3, 2] },
      },
      ...(labels ? [{
        mark: { type: 'text', fontSize: 12, lineHeight: 14 },
        encoding: {
          text: { field: 'label', type: 'nominal' },
          color: { condition: { test: 'datum.strong', value: 'white' }, value: 'black' },
        },
      }] : []),
    ],
  } as TopLevelSpec;
}

let chartCounter = 0;

/** Renders a Vega-Lite spec to an SVG string whose ids are unique within the page. */
export async function renderSvg(spec: TopLevelSpec, ariaLabel: string): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  let svg: string;
  try {
    svg = await view.toSVG();
  } finally {
    view.finalize();
  }
  const prefix = `g${++chartCounter}-`;
  svg = svg.replace(/\bid="([^"]+)"/g, `id="${prefix}$1"`)
    .replace(/url\(#([^)]+)\)/g, `url(#${prefix}$1)`)
    .replace(/href="#([^"]+)"/g, `href="#${prefix}$1"`);
  // Vega writes names into text and descriptions as they are: each is isolated as escapeHtml isolates them.
  svg = svg.replace(/>([^<]+)</g, (_m, text: string) => `>${isolateBidi(text)}<`).replace(/="([^"]*)"/g, (_m, v: string) => `="${isolateBidi(v)}"`);
  // Label the chart for screen readers; the caption outside says the same.
  return svg.replace(/^<svg /, `<svg role="img" aria-label="${escapeHtml(ariaLabel)}" `);
}
