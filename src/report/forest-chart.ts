// One forest figure for every OOD pair's meta-analysis across runs, as a Vega-Lite spec (rendered
// by charts.ts like the others): one row per pair, sorted by pooled effect; each run's partial
// correlation as a coloured point (the runs of a row spread a little vertically, so equal values
// stay visible), hollow when the run was left out of that pair's pooling (unstable), so a reader
// does not take it for evidence the diamond rests on; under them the pooled effect as a diamond
// spanning its 95% CI on a line that is the 95% prediction interval for a new run; the pair's name
// left of the row, its verdict right, and under the verdict why a row has no diamond when it has
// none. The figure is as wide as the page's box, most of it the plot. With more run points than
// FOREST_POINTS (pairs x runs: a sweep of hundreds of runs) a row shows its pooled runs' spread
// instead of a point per run: their range, middle half and median, three marks per row.
// The axis is Fisher's z = atanh(r), the scale the meta-analysis pools on, labelled in r: on the r
// scale runs near +-1 pile up on the edge and a pooled CI near 1 becomes a sliver. The axis reaches
// r = +-0.995 for the runs, further (up to +-0.9999) for a pooled CI, so a pair whose runs sit at
// r = +-1 (pooled at 0.999, pair-meta.ts) keeps its diamond; values beyond the axis (r = +-1 has an
// infinite z) sit on its edge as triangles. Rows sit at numeric positions (y quantitative) so the
// diamond can be an area between two lines.
import type { TopLevelSpec } from 'vega-lite';
import { CHART_CONFIG, estimateTextWidth, PALETTE } from './charts.ts';

export interface ForestRow {
  a: string;
  b: string;
  /** Each run's partial correlation (r = +-1 allowed: drawn on the edge); pooled false: left out of the pair's pooling. */
  runs: { run: string; r: number; pooled: boolean }[];
  pooled: { r: number; ci95: [number, number]; prediction95: [number, number] | null } | null;
  /** Why the row has no diamond, shown under its verdict (only for rows without `pooled`). */
  noDiamond?: string;
  verdict: string;
  /** The verdict's mark and colour (meta-verdict.ts). */
  mark: string;
  colour: string;
  strong: boolean;
}

/**
 * Plot-area sizes (px): names, plot and verdicts together fill most of the page's 1180 px box at a wide
 * window (the page scales the figure down on a narrow one); the row height fits a two-line pair name.
 */
const PLOT_WIDTH = 660;
const ROW_HEIGHT = 38;
/** The room left of the plot for the pair names and right of it for the verdicts and why a row has no diamond (px). */
const LEFT = 190;
const RIGHT = 240;
/** The widest axis for the runs and prediction intervals: r = +-0.995. */
const Z_LIMIT = Math.atanh(0.995);
/** The widest axis for a pooled CI: r = +-0.9999 (runs at r = +-1 are pooled at 0.999). */
const POOLED_Z_LIMIT = Math.atanh(0.9999);
/** The narrowest axis: r = +-0.8, so a set of small effects is not blown up. */
const Z_MIN_EXTENT = Math.atanh(0.8);
/** r values labelled on the axis (those inside it). */
const R_TICKS = [0, 0.5, 0.8, 0.95, 0.99, 0.999];
/** A tick's r, as a Vega expression of its z (datum.value). */
const R_OF_Z = '(exp(2 * datum.value) - 1) / (exp(2 * datum.value) + 1)';
/** The legend's words for a run point in and out of the pair's pooling. */
const POOLED = 'run pooled';
const LEFT_OUT = 'run left out of the pooling (unstable)';
/** Where in a row (0 = its centre, rows 1 apart) the run points spread and the diamond sits. */
const RUNS_FROM = -0.34;
const RUNS_TO = -0.1;
const DIAMOND_AT = 0.16;
const DIAMOND_HALF = 0.14;
/** How far above and below a row's centre its verdict and the note under it sit, when it has a note. */
const NOTE_SHIFT = 0.2;

/** Rows sorted by pooled r, largest first; rows without a pooled estimate last, by name. */
export function sortForestRows<T extends { a: string; b: string; pooled: { r: number } | null }>(rows: readonly T[]): T[] {
  return [...rows].sort((x, y) => {
    if (x.pooled && y.pooled) return y.pooled.r - x.pooled.r;
    if (x.pooled || y.pooled) return x.pooled ? -1 : 1;
    return `${x.a} ${x.b}` < `${y.a} ${y.b}` ? -1 : 1;
  });
}

/**
 * The axis's half-width on the z scale: everything finite fits, within [atanh 0.8, atanh 0.995],
 * and every pooled CI within atanh 0.9999 (a diamond squeezed onto the edge would vanish).
 */
export function zExtent(rows: readonly Pick<ForestRow, 'runs' | 'pooled'>[]): number {
  const widest = (rs: readonly number[]) => Math.max(0, ...rs.filter((r) => Math.abs(r) < 1).map((r) => Math.abs(Math.atanh(r))));
  const spread = widest(rows.flatMap((row) => [...row.runs.map((x) => x.r), ...(row.pooled?.prediction95 ?? [])]));
  const pooled = widest(rows.flatMap((row) => row.pooled?.ci95 ?? []));
  return Math.max(Z_MIN_EXTENT, Math.min(Z_LIMIT, spread * 1.05), Math.min(POOLED_Z_LIMIT, pooled * 1.05));
}

/**
 * The most run points the figure draws one by one (pairs x runs): above it each row shows its
 * pooled runs' spread instead (forestShowsSpread), so 300 runs x 190 pairs is 190 rows of three
 * marks, not 57,000 points with a legend of 300 runs.
 */
export const FOREST_POINTS = 3000;

/** Whether the forest of these rows draws each row's spread of runs rather than a point per run. */
export function forestShowsSpread(rows: readonly Pick<ForestRow, 'runs'>[]): boolean {
  return rows.reduce((n, row) => n + row.runs.length, 0) > FOREST_POINTS;
}

/** The q-quantile of sorted values, interpolated between neighbours. */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return lo + 1 < sorted.length ? sorted[lo] + (at - lo) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

export function forestSpec(rowsIn: readonly ForestRow[], spreadOnly = forestShowsSpread(rowsIn)): TopLevelSpec {
  const rows = sortForestRows(rowsIn);
  const extent = zExtent(rows);
  const toZ = (r: number) => Math.max(-extent, Math.min(extent, Math.abs(r) >= 1 ? Math.sign(r) * Infinity : Math.atanh(r)));
  const runNames = [...new Set(rows.flatMap((r) => r.runs.map((x) => x.run)))];
  const spread = runNames.length > 1 ? (RUNS_TO - RUNS_FROM) / (runNames.length - 1) : 0;
  const points = spreadOnly ? [] : rows.flatMap((row, i) => row.runs.map((x) => {
    const z = Math.abs(x.r) >= 1 ? Math.sign(x.r) * Infinity : Math.atanh(x.r);
    return {
      run: x.run, r: x.r, z: toZ(x.r), pooled: x.pooled,
      label: `${row.a} – ${row.b}, ${x.run}: r ${x.r.toFixed(3)}${x.pooled ? '' : `, ${LEFT_OUT.replace(/^run /, '')}`}`,
      pos: i + (runNames.length > 1 ? RUNS_FROM + spread * runNames.indexOf(x.run) : (RUNS_FROM + RUNS_TO) / 2),
      shape: Math.abs(z) <= extent ? 'circle' : z > 0 ? 'triangle-right' : 'triangle-left',
    };
  }));
  const diamonds = rows.flatMap((row, i) => (row.pooled ? [
    { pair: i, z: toZ(row.pooled.ci95[0]), y: i + DIAMOND_AT, y2: i + DIAMOND_AT },
    { pair: i, z: toZ(row.pooled.r), y: i + DIAMOND_AT - DIAMOND_HALF, y2: i + DIAMOND_AT + DIAMOND_HALF },
    { pair: i, z: toZ(row.pooled.ci95[1]), y: i + DIAMOND_AT, y2: i + DIAMOND_AT },
  ] : []));
  const intervals = rows.flatMap((row, i) => (row.pooled?.prediction95
    ? [{ lo: toZ(row.pooled.prediction95[0]), hi: toZ(row.pooled.prediction95[1]), pos: i + DIAMOND_AT }] : []));
  const labels = rows.map((row, i) => ({
    pos: i, name: [row.a, `– ${row.b}`], verdict: `${row.mark} ${row.verdict}`, colour: row.colour, strong: row.strong,
    pairText: `row ${i + 1}: ${row.a} – ${row.b}`, verdictText: `row ${i + 1} verdict: ${row.mark} ${row.verdict}`,
    // the verdict moves up to make room for the note under it
    note: row.pooled ? '' : row.noDiamond ?? '', verdictAt: !row.pooled && row.noDiamond ? i - NOTE_SHIFT : i,
    noteAt: i + NOTE_SHIFT, noteText: `row ${i + 1} has no diamond: ${row.noDiamond ?? ''}`,
  }));
  const leftOut = !spreadOnly && points.some((p) => !p.pooled);
  // with many runs: per row, its pooled runs' range (thin), middle half (thick) and median (tick), on the z scale
  const spreads = rows.flatMap((row, i) => {
    const rs = row.runs.filter((x) => x.pooled).map((x) => x.r).sort((p, q) => p - q);
    if (rs.length === 0) return [];
    const pos = i + (RUNS_FROM + RUNS_TO) / 2;
    const [lo, q1, median, q3, hi] = [0, 0.25, 0.5, 0.75, 1].map((q) => quantile(rs, q));
    return [{ pos, lo: toZ(lo), q1: toZ(q1), median: toZ(median), q3: toZ(q3), hi: toZ(hi), top: pos - 0.09, bottom: pos + 0.09,
      label: `${row.a} – ${row.b}: ${rs.length} pooled run${rs.length === 1 ? '' : 's'}, r from ${lo.toFixed(3)} to ${hi.toFixed(3)}, ` +
        `middle half ${q1.toFixed(3)} to ${q3.toFixed(3)}, median ${median.toFixed(3)}` }];
  });
  const bands = rows.map((_, i) => ({ from: i - 0.5, to: i + 0.5 })).filter((_, i) => i % 2 === 0);

  const ticks = R_TICKS.flatMap((r) => (r === 0 ? [0] : [-r, r])).map(Math.atanh).filter((z) => Math.abs(z) <= extent + 1e-9).sort((p, q) => p - q);
  const x = {
    type: 'quantitative' as const, scale: { domain: [-extent, extent], nice: false, zero: false },
    title: 'partial correlation r (on Fisher\'s z scale)',
    // r from z; three decimals near ±1, where two would print 0.999 as 1
    axis: { values: ticks, labelExpr: `format(${R_OF_Z}, abs(datum.value) > ${Math.atanh(0.995)} ? '.3~f' : '.2~f')`, grid: true, gridColor: '#eee' },
  };
  const y = { type: 'quantitative' as const, scale: { domain: [-0.6, rows.length - 0.4], reverse: true, nice: false, zero: false }, axis: null };
  const runColour = { field: 'run', type: 'nominal' as const, title: 'run',
    scale: { domain: runNames, range: runNames.map((_, i) => PALETTE[i % PALETTE.length]) },
    legend: { orient: 'bottom' as const, direction: 'horizontal' as const, columns: legendColumns(runNames), labelLimit: 260 } };
  const layer: unknown[] = [
    // alternate rows shaded across the names, the plot and the verdicts, so a row reads across
    { data: { values: bands }, mark: { type: 'rect', color: '#f4f6f9' },
      encoding: { x: { value: -LEFT }, x2: { value: PLOT_WIDTH + RIGHT }, y: { field: 'from', ...y }, y2: { field: 'to' } } },
    { data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#888', strokeDash: [3, 3] }, encoding: { x: { field: 'zero', ...x } } },
    {
      data: { values: intervals },
      mark: { type: 'rule', color: '#1f3f66', strokeWidth: 1.5 },
      encoding: { x: { field: 'lo', ...x }, x2: { field: 'hi' }, y: { field: 'pos', ...y } },
    },
    {
      data: { values: diamonds },
      mark: { type: 'area', color: '#4c78a8', stroke: '#1f3f66', strokeWidth: 1, opacity: 1 },
      encoding: { x: { field: 'z', ...x }, y: { field: 'y', ...y }, y2: { field: 'y2' }, detail: { field: 'pair', type: 'nominal' } },
    },
    ...(spreadOnly ? [
      { data: { values: spreads }, mark: { type: 'rule', color: '#9a9a9a', strokeWidth: 1.5 },
        encoding: { x: { field: 'lo', ...x }, x2: { field: 'hi' }, y: { field: 'pos', ...y }, description: { field: 'label' } } },
      { data: { values: spreads }, mark: { type: 'rule', color: '#6b6b6b', strokeWidth: 7 },
        encoding: { x: { field: 'q1', ...x }, x2: { field: 'q3' }, y: { field: 'pos', ...y } } },
      { data: { values: spreads }, mark: { type: 'rule', color: '#111111', strokeWidth: 2 },
        encoding: { x: { field: 'median', ...x }, y: { field: 'top', ...y }, y2: { field: 'bottom' } } },
    ] : [{
      name: 'pooled_runs',
      data: { values: points.filter((p) => p.pooled) },
      mark: { type: 'point', filled: true, size: 46, opacity: 0.9, stroke: 'white', strokeWidth: 0.6 },
      encoding: {
        x: { field: 'z', ...x }, y: { field: 'pos', ...y }, color: runColour,
        shape: { field: 'shape', type: 'nominal', scale: null, legend: null }, description: { field: 'label' },
      },
    }]),
    // runs left out of the pair's pooling: hollow, in the run's colour, with a legend of their own above the plot
    ...(leftOut ? [{
      name: 'left_out_runs',
      data: { values: points.filter((p) => !p.pooled).map((p) => ({ ...p, status: LEFT_OUT })) },
      mark: { type: 'point', filled: false, size: 46, opacity: 1, strokeWidth: 1.6 },
      encoding: {
        x: { field: 'z', ...x }, y: { field: 'pos', ...y }, color: runColour,
        shape: { field: 'shape', type: 'nominal', scale: null, legend: null }, description: { field: 'label' },
        fill: { field: 'status', type: 'nominal', title: null, scale: { domain: [POOLED, LEFT_OUT], range: ['#777777', 'white'] },
          legend: { orient: 'top', direction: 'horizontal', symbolStrokeColor: '#555', symbolStrokeWidth: 1.4, labelLimit: 400 } },
      },
    }] : []),
    {
      data: { values: labels },
      mark: { type: 'text', align: 'right', baseline: 'middle', fontSize: 12.5, lineHeight: 14 },
      encoding: { x: { value: -10 }, y: { field: 'pos', ...y }, text: { field: 'name' }, description: { field: 'pairText' } },
    },
    // the verdicts, bold where the relation holds or varies across runs (the two that answer the question)
    ...[true, false].map((strong) => ({
      data: { values: labels.filter((l) => l.strong === strong) },
      mark: { type: 'text', align: 'left', baseline: 'middle', fontSize: 13, fontWeight: strong ? 'bold' : 'normal' },
      encoding: { x: { value: PLOT_WIDTH + 12 }, y: { field: 'verdictAt', ...y }, text: { field: 'verdict' },
        description: { field: 'verdictText' }, fill: { field: 'colour', type: 'nominal', scale: null, legend: null } },
    })),
    // why a row has no diamond, under its verdict: a row of points alone must not read as a pooled result
    {
      data: { values: labels.filter((l) => l.note) },
      mark: { type: 'text', align: 'left', baseline: 'middle', fontSize: 11.5, color: '#555', limit: RIGHT - 16 },
      encoding: { x: { value: PLOT_WIDTH + 12 }, y: { field: 'noteAt', ...y }, text: { field: 'note' }, description: { field: 'noteText' } },
    },
    {
      data: { values: [{ pos: -0.6 }] },
      mark: { type: 'text', align: 'left', baseline: 'bottom', fontSize: 12, color: '#555', dy: -4 },
      encoding: { x: { value: PLOT_WIDTH + 12 }, y: { field: 'pos', ...y }, text: { value: 'verdict' } },
    },
  ];
  return {
    width: PLOT_WIDTH, height: ROW_HEIGHT * rows.length, config: { ...CHART_CONFIG, legend: { ...CHART_CONFIG.legend, symbolSize: 80 } },
    // the pair names and the verdicts are text marks outside the plot; 'pad' sizes the view to them
    padding: 5,
    autosize: { type: 'pad' },
    // the verdicts' text colours and the left-out runs' hollow fill are separate uses of fill
    resolve: { scale: { fill: 'independent' }, legend: { fill: 'independent' } },
    layer,
  } as unknown as TopLevelSpec;
}

/** As many legend columns as fit under the figure, so the legend never makes it wider. */
function legendColumns(names: readonly string[]): number {
  const widest = Math.max(0, ...names.map((n) => estimateTextWidth(n, 14)));
  return Math.max(1, Math.min(names.length, Math.floor((LEFT + PLOT_WIDTH + RIGHT) / (widest + 40))));
}
