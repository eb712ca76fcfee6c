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
const CONFIG = {
  font: FONT,
  background: 'white',
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal' as const },
  legend: { labelFontSize: 11, titleFontSize: 11, labelLimit: 260 },
  view: { stroke: '#ddd' },
};
/** The look every chart shares (forest-chart.ts builds its spec outside this file). */
export { CONFIG as CHART_CONFIG };

export interface CurvePoint { step: number; series: string; value: number; isControl: boolean }

/** Scores against training step, one line per test set; the control (ID) set drawn thicker in black. */
export function curvesSpec(points: readonly CurvePoint[], yTitle: string): TopLevelSpec {
  const series = [...new Set(points.map((p) => p.series))];
  const control = points.find((p) => p.isControl)?.series;
  const others = series.filter((s) => s !== control).sort();
  const domain = control === undefined ? others : [control, ...others];
  const palette = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#ff9da6', '#9d755d', '#bab0ac', '#eeca3b'];
  const range = domain.map((s, i) => (s === control ? '#111111' : palette[(control === undefined ? i : i - 1) % palette.length]));
  const steps = new Set(points.map((p) => p.step)).size;
  return {
    width: 460, height: 220, config: CONFIG,
    data: { values: points.map((p) => ({ ...p })) },
    mark: { type: 'line', point: steps <= 20, interpolate: 'linear' },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: 'training step' },
      y: { field: 'value', type: 'quantitative', title: yTitle, scale: { zero: false } },
      color: { field: 'series', type: 'nominal', title: null, scale: { domain, range }, sort: domain },
      strokeWidth: { condition: { test: 'datum.isControl', value: 3 }, value: 1.6 },
    },
  };
}

/** Training loss against step. */
export function lossSpec(points: readonly { step: number; loss: number }[]): TopLevelSpec {
  return {
    width: 460, height: 140, config: CONFIG,
    data: { values: points.map((p) => ({ ...p })) },
    mark: { type: 'line', color: '#555', point: points.length <= 20 },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: 'training step' },
      y: { field: 'loss', type: 'quantitative', title: 'training loss', scale: { zero: false } },
    },
  };
}

export interface HeatCell { row: string; col: string; value: number | null; label: string; outlined: boolean }

/**
 * A matrix as coloured cells on a diverging red-white-blue scale over [-extent, extent]; cells
 * without a value are grey; outlined cells get a black border; each cell shows its label.
 */
export function heatmapSpec(cells: readonly HeatCell[], opts: { rows: string[]; cols: string[]; extent: number; legendTitle: string; rowTitle?: string; colTitle?: string }): TopLevelSpec {
  const cellSize = Math.max(34, Math.min(56, Math.floor(440 / Math.max(opts.cols.length, 1))));
  const values = cells.map((c) => ({ ...c, strong: c.value !== null && Math.abs(c.value) > 0.6 * opts.extent }));
  const x = { field: 'col', type: 'nominal' as const, sort: opts.cols, title: opts.colTitle ?? null, axis: { labelAngle: -40, labelLimit: 0 } };
  const y = { field: 'row', type: 'nominal' as const, sort: opts.rows, title: opts.rowTitle ?? null, axis: { labelLimit: 0 } };
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
            scale: { scheme: 'redblue', domain: [-opts.extent, opts.extent] },
          },
        },
      },
      { transform: [{ filter: 'datum.value === null' }], mark: { type: 'rect', color: '#e4e4e4' } },
      {
        transform: [{ filter: 'datum.outlined' }],
        mark: { type: 'rect', fillOpacity: 0, stroke: '#000', strokeWidth: 2.5 },
      },
      {
        mark: { type: 'text', fontSize: 11 },
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
