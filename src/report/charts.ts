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
import { escapeHtml } from './escape.ts';

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
export const SIZE = { curves: { width: 640, height: 300 }, loss: { width: 640, height: 170 }, small: { width: 250, height: 220 } };

/** The series colours; the control (in-domain) set is drawn in black. */
export const PALETTE = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#ff9da6', '#9d755d', '#bab0ac', '#eeca3b'];

/**
 * The x scale for training steps: a symmetric log scale (step 0 stays on it) when the checkpoints
 * are log-spaced, so the dense early checkpoints are not squashed into the left edge; linear
 * otherwise. Log-spaced: at least 8 positive steps, the largest 30 times the smallest, and half
 * of them in the first fifth of the range.
 */
export function stepAxis(steps: readonly number[]): { scale: Record<string, unknown>; axis: Record<string, unknown>; title: string; logSpaced: boolean } {
  const positive = [...new Set(steps)].filter((s) => s > 0).sort((a, b) => a - b);
  const max = positive.at(-1) ?? 0;
  const early = positive.filter((s) => s <= max / 5).length;
  const logSpaced = positive.length >= 8 && max >= 30 * positive[0] && early >= positive.length / 2;
  if (!logSpaced) return { scale: { type: 'linear', nice: true }, axis: {}, title: 'training step', logSpaced };
  // Ticks at 0, 1, 2, 5, 10, 20, 50, ... up to the last step: a log axis's own ticks crowd its right end.
  const ticks = [0];
  for (let decade = 1; decade <= max; decade *= 10) for (const m of [1, 2, 5]) if (m * decade <= max) ticks.push(m * decade);
  return { scale: { type: 'symlog', constant: 1, domain: [0, max], nice: false }, axis: { values: ticks, grid: true }, title: 'training step (log scale)', logSpaced };
}

export interface CurvePoint { step: number; series: string; value: number; isControl: boolean }

/** Scores against training step, one line per test set; the control (ID) set drawn thicker in black. */
export function curvesSpec(points: readonly CurvePoint[], yTitle: string): TopLevelSpec {
  const series = [...new Set(points.map((p) => p.series))];
  const control = points.find((p) => p.isControl)?.series;
  const others = series.filter((s) => s !== control).sort();
  const domain = control === undefined ? others : [control, ...others];
  const range = domain.map((s, i) => (s === control ? '#111111' : PALETTE[(control === undefined ? i : i - 1) % PALETTE.length]));
  const axis = stepAxis(points.map((p) => p.step));
  return {
    ...SIZE.curves, config: CONFIG,
    data: { values: points.map((p) => ({ ...p })) },
    // Every checkpoint is marked on its curve: the scores exist only there.
    mark: { type: 'line', point: { filled: true, size: 30 }, interpolate: 'linear' },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: axis.title, scale: axis.scale, axis: axis.axis },
      y: { field: 'value', type: 'quantitative', title: yTitle, scale: { zero: false } },
      color: { field: 'series', type: 'nominal', title: null, scale: { domain, range }, sort: domain, legend: { orient: 'right' } },
      strokeWidth: { condition: { test: 'datum.isControl', value: 3 }, value: 1.8 },
    },
  };
}

/** Training loss against step. */
export function lossSpec(points: readonly { step: number; loss: number }[], checkpointSteps: readonly number[] = points.map((p) => p.step)): TopLevelSpec {
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
 * A matrix as coloured cells on a diverging red-white-blue scale over [-extent, extent]; cells
 * without a value are grey; outlined cells get a black border (dashed ones a dashed border); each
 * cell shows its label. `cellSize` fixes the cells' side (else it shrinks as columns are added);
 * the colour legend sits right of the matrix, or below it with `legendBelow` (two matrices side by side).
 */
export function heatmapSpec(cells: readonly HeatCell[], opts: {
  rows: string[]; cols: string[]; extent: number; legendTitle: string; rowTitle?: string; colTitle?: string; cellSize?: number; legendBelow?: boolean;
}): TopLevelSpec {
  const cellSize = opts.cellSize ?? Math.max(40, Math.min(64, Math.floor(520 / Math.max(opts.cols.length, 1))));
  const values = cells.map((c) => ({ ...c, dashed: c.dashed ?? false, strong: c.value !== null && Math.abs(c.value) > 0.6 * opts.extent }));
  const x = { field: 'col', type: 'nominal' as const, sort: opts.cols, title: opts.colTitle ?? null, axis: { labelAngle: -40, labelLimit: 0 } };
  const y = { field: 'row', type: 'nominal' as const, sort: opts.rows, title: opts.rowTitle ?? null, axis: { labelLimit: 0 } };
  const legend = opts.legendBelow ? { orient: 'bottom' as const, direction: 'horizontal' as const, gradientLength: Math.min(220, cellSize * opts.cols.length) } : {};
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
        mark: { type: 'rect', fillOpacity: 0, stroke: '#000', strokeWidth: 2.5 },
      },
      {
        transform: [{ filter: 'datum.outlined && datum.dashed' }],
        mark: { type: 'rect', fillOpacity: 0, stroke: '#000', strokeWidth: 2, strokeDash: [5, 3] },
      },
      {
        mark: { type: 'text', fontSize: 12, lineHeight: 14 },
        encoding: {
          text: { field: 'label', type: 'nominal' },
          color: { condition: { test: 'datum.strong', value: 'white' }, value: 'black' },
        },
      },
    ],
  };
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
  svg = svg.replace(/\bid="([^"]+)"/g, `id="${prefix}$1"`).replace(/url\(#([^)]+)\)/g, `url(#${prefix}$1)`).replace(/href="#([^"]+)"/g, `href="#${prefix}$1"`);
  // Label the chart for screen readers; the caption outside says the same.
  return svg.replace(/^<svg /, `<svg role="img" aria-label="${escapeHtml(ariaLabel)}" `);
}
