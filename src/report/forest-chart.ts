// A forest plot of one OOD pair's meta-analysis across runs, as a Vega-Lite spec (rendered by
// charts.ts like the others): one row per run with its partial correlation (a square sized by
// its weight in the pooled estimate) and 95% CI; below them the pooled effect as a diamond
// spanning its 95% CI, and the 95% prediction interval for a new model as a dashed bar. Rows sit
// at numeric positions (y quantitative) so the diamond can be an area between two lines.
import type { TopLevelSpec } from 'vega-lite';
import { CHART_CONFIG } from './charts.ts';

export interface ForestRun { run: string; r: number; ci95: [number, number]; weight: number }
export interface ForestPooled { r: number; ci95: [number, number]; prediction95: [number, number] | null; label: string }

/** Half the diamond's height, in rows. */
const DIAMOND = 0.4;

export function forestSpec(runs: readonly ForestRun[], pooled: ForestPooled | null): TopLevelSpec {
  const rows = runs.map((r, i) => ({ ...r, pos: i + 1, lo: r.ci95[0], hi: r.ci95[1] }));
  const pooledPos = runs.length + 1.5;
  const piPos = pooledPos + 0.9;
  const labels: { pos: number; text: string }[] = rows.map((r) => ({ pos: r.pos, text: r.run }));
  if (pooled) labels.push({ pos: pooledPos, text: pooled.label });
  if (pooled?.prediction95) labels.push({ pos: piPos, text: '95% prediction' });
  const x = { type: 'quantitative' as const, scale: { domain: [-1, 1] }, title: 'partial correlation r', axis: { values: [-1, -0.5, 0, 0.5, 1] } };
  // the row labels: an axis at the row positions, each label looked up from its position (every
  // layer carries the same y definition, since layers share one axis)
  const lookup = labels.map((l) => `datum.value === ${l.pos} ? ${JSON.stringify(l.text)}`).join(' : ') + ' : ""';
  const y = {
    type: 'quantitative' as const, title: null,
    scale: { domain: [0.3, (pooled?.prediction95 ? piPos : pooledPos) + 0.7], reverse: true, nice: false, zero: false },
    axis: { values: labels.map((l) => l.pos), labelExpr: lookup, grid: false, ticks: false, domain: false, labelLimit: 220 },
  };
  const spec = {
    width: 360, height: Math.max(90, 22 * (runs.length + 3)), config: CHART_CONFIG,
    // room for run names longer than the label-width estimate allows for
    padding: { left: 16, top: 5, right: 5, bottom: 5 },
    layer: [
      { data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#999', strokeDash: [3, 3] }, encoding: { x: { field: 'zero', ...x } } },
      {
        data: { values: rows },
        mark: { type: 'rule', color: '#333' },
        encoding: { x: { field: 'lo', ...x }, x2: { field: 'hi' }, y: { field: 'pos', ...y } },
      },
      {
        data: { values: rows },
        mark: { type: 'square', filled: true, color: '#333' },
        encoding: {
          x: { field: 'r', ...x }, y: { field: 'pos', ...y },
          size: { field: 'weight', type: 'quantitative', scale: { domain: [0, 1], range: [20, 260] }, legend: null },
        },
      },
    ] as unknown[],
  };
  if (pooled) {
    const [lo, hi] = pooled.ci95;
    const diamond = [
      { x: lo, y: pooledPos, y2: pooledPos },
      { x: pooled.r, y: pooledPos - DIAMOND, y2: pooledPos + DIAMOND },
      { x: hi, y: pooledPos, y2: pooledPos },
    ];
    spec.layer.push({
      data: { values: diamond },
      mark: { type: 'area', color: '#4c78a8', stroke: '#1f3f66', strokeWidth: 1 },
      encoding: { x: { field: 'x', ...x }, y: { field: 'y', ...y }, y2: { field: 'y2' } },
    });
    if (pooled.prediction95) {
      spec.layer.push({
        data: { values: [{ lo: pooled.prediction95[0], hi: pooled.prediction95[1], pos: piPos }] },
        mark: { type: 'rule', color: '#e45756', strokeWidth: 2, strokeDash: [6, 3] },
        encoding: { x: { field: 'lo', ...x }, x2: { field: 'hi' }, y: { field: 'pos', ...y } },
      });
    }
  }
  return spec as unknown as TopLevelSpec;
}
