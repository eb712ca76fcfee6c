// The report's meta-analysis part of study A: the headline, the table (also as CSV / JSON), the
// moderator table when asked for, the pooled-r matrix beside the sign counts, and one forest figure of
// every pair (sorted by pooled r, diamonds, prediction intervals, verdicts), all inside the study-A section.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadReportData } from '../../src/report/report-data.ts';
import { renderReport } from '../../src/report/index.ts';
import { studyA } from '../../src/report/study-a.ts';
import { escapeHtml } from '../../src/report/escape.ts';
import { verdictLegend, verdictLook } from '../../src/report/meta-verdict.ts';
import { PAIR_VERDICTS } from '../../src/analyze/verdict.ts';
import { pairCell } from '../../src/report/html.ts';
import { forestSpec, sortForestRows, zExtent, type ForestRow } from '../../src/report/forest-chart.ts';
import { renderSvg } from '../../src/report/charts.ts';
import { studyAStore } from './helpers.ts';

test('study A shows the meta-analysis table and one forest figure of every pair after the sign counts', async (t) => {
  const storePath = studyAStore(t, { runs: 4, steps: 20 });
  // the runs pooled with their calibrated variances, measured on 20 simulations (the section is drawn the same as on 200)
  const analysis = { hartungKnapp: true, moderator: 'seed', calibration: 20 };
  const report = await renderReport({ storePath, analysis });
  const html = report.html;
  const a = studyA(loadReportData(storePath, ''), { analysis });
  const pairs = a.analysis.meta.pairs.length;
  assert.equal(pairs, 10);
  const section = html.slice(html.indexOf('<section id="study-a">'), html.indexOf('</section>', html.indexOf('<section id="study-a">')));
  assert.ok(section.indexOf('data-chart="agreement"') < section.indexOf('id="study-a-meta"'), 'after the sign-count matrix');
  assert.ok(section.includes(escapeHtml(a.analysis.headline.sentence)), 'the headline computed by analyze');
  assert.match(section, /REML, Hartung-Knapp t test on runs − 1 df/);
  // One forest figure for all pairs: rows sorted by pooled r, each with its name and its verdict.
  const forests = [...section.matchAll(/<figure class="chart" data-chart="forest"[^>]*>(.*?)<\/figure>/gs)].map((m) => m[1]);
  assert.equal(forests.length, 1);
  const forest = forests[0];
  const sorted = [...a.analysis.meta.pairs].sort((x, y) => y.r! - x.r!);
  const names = [...forest.matchAll(/aria-label="row (\d+): ([^"]+)"/g)].map((m) => [Number(m[1]), m[2]]);
  assert.deepEqual(names, sorted.map((p, i) => [i + 1, escapeHtml(`${p.a} – ${p.b}`)]), 'one row per pair, largest pooled r first');
  const verdicts = [
    ...forest.matchAll(/aria-label="row (\d+) verdict: ([^"]+)"/g)].map((m) => [Number(m[1]), m[2]]).sort((x, y) => Number(x[0]) - Number(y[0]));
  assert.deepEqual(verdicts, sorted.map((p, i) => [i + 1, `${verdictLook(p.verdict).mark} ${p.verdict}`]), 'the verdict beside each row');
  assert.equal([...forest.matchAll(/aria-roledescription="area mark"/g)].length, pairs, 'a pooled diamond per pair');
  assert.match(forest, />0\.5<\/text>/, 'the Fisher-z axis is labelled in r');
  assert.match(forest, /<figcaption>.*Fisher&#39;s z.*<\/figcaption>/);
  // the pooled-r matrix beside the papers' sign counts, every pair's verdict marked in it
  const pooled = section.match(/<figure class="chart" data-chart="pooled"[^>]*>(.*?)<\/figure>/s)?.[1] ?? '';
  for (const p of a.analysis.meta.pairs) assert.ok(pooled.includes(`<tspan x="0" dy="14">${verdictLook(p.verdict).mark}</tspan>`) ||
    pooled.includes(`>${verdictLook(p.verdict).mark}</tspan>`), `${p.a}–${p.b}: its mark`);
  assert.match(section, /<figcaption>The papers&#39; view: per pair/);
  // the table's rows are the meta_analysis table, also written as CSV and JSON
  const json = report.tables.meta_analysis.json as Record<string, unknown>[];
  assert.equal(json.length, pairs);
  for (const row of json) {
    const p = a.analysis.meta.pairs.find((x) => x.a === row.a && x.b === row.b)!;
    assert.equal(row.r, p.r);
    assert.equal(row.verdict, p.verdict);
    assert.ok((PAIR_VERDICTS as readonly string[]).includes(p.verdict), `${p.a}–${p.b}: one of the four verdicts`);
    assert.ok(section.includes(`<span class="why">${escapeHtml(p.why)}</span>`), `${p.a}–${p.b}: why, under its verdict`);
    assert.ok(section.includes(`<tr class="meta-${verdictLook(p.verdict).tone}"><td class="name">${pairCell(p.a, p.b)}</td>`),
      `${p.a}–${p.b}: its row, marked by its verdict`);
  }
  assert.match(report.tables.meta_analysis.csv, /^a,b,runs,excluded,r,ci95_low,ci95_high,p,p_adjusted,/);
  assert.ok(report.tables.meta_regression, 'a moderator gives the meta-regression table');
  assert.match(section, /Does the relation depend on “seed”\?/);
  assert.match(section, /F\(1, 2\) = /, 'Hartung-Knapp: an F test on 1 and 4 - 2 df');
});

test('without a moderator there is no meta-regression table; two runs have no prediction interval', async (t) => {
  const storePath = studyAStore(t, { runs: 2, steps: 15 });
  // the line: with 15 checkpoints the default spline leaves one pair's runs unpooled, and this test is about the diamonds
  // no calibration or robustness table: the diamonds and prediction intervals are drawn from the pooling alone
  const report = await renderReport({ storePath, analysis: { hartungKnapp: false, residualiser: 'linear', calibration: 0, robustness: false } });
  assert.equal(report.tables.meta_regression, undefined);
  assert.ok(report.html.includes('two runs: tau^2 rests on one degree of freedom'));
  const forest = report.html.match(/data-chart="forest"[^>]*>(.*?)<\/figure>/s)![1];
  assert.equal([...forest.matchAll(/aria-roledescription="area mark"/g)].length, 10, 'a diamond per pair');
  assert.equal([...forest.matchAll(/aria-roledescription="rule mark"/g)].length, 1, 'no prediction interval below three runs (only the zero line)');
});

test('the forest figure: rows by pooled r (unpooled last), an axis on Fisher z that fits the data, a run at r = ±1 a triangle on its edge', () => {
  const row = (a: string, r: number | null, runs: number[]): ForestRow => ({
    a, b: 'x', runs: runs.map((v, i) => ({ run: `run${i}`, r: v, pooled: true })), verdict: 'inconclusive', mark: '?', colour: '#555', strong: false,
    pooled: r === null ? null : { r, ci95: [r - 0.1, r + 0.1], prediction95: null },
  });
  const rows = [row('low', -0.3, [-0.3, -0.2]), row('none', null, [0.1]), row('high', 0.85, [0.4, 1])];
  assert.deepEqual(sortForestRows(rows).map((r) => r.a), ['high', 'low', 'none']);
  assert.ok(Math.abs(zExtent([row('s', 0.1, [0.1, 0.2])]) - Math.atanh(0.8)) < 1e-12, 'small effects: the axis stays at least ±0.8 wide');
  assert.ok(Math.abs(zExtent(rows) - Math.atanh(0.95) * 1.05) < 1e-12, 'the largest finite value fits, r = 1 does not stretch the axis');
  assert.ok(Math.abs(zExtent([row('big', 0.999, [0.9999])]) - Math.atanh(0.995)) < 1e-12, 'at most ±0.995');
  const spec = forestSpec(rows) as unknown as { layer: { data: { values: Record<string, unknown>[] }; mark: { type: string } }[] };
  const points = spec.layer.find((l) => l.mark.type === 'point')!.data.values;
  const edge = points.find((p) => p.r === 1)!;
  assert.equal(edge.shape, 'triangle-right');
  assert.ok(Math.abs((edge.z as number) - zExtent(rows)) < 1e-12, 'on the right edge');
  assert.equal(points.filter((p) => p.shape === 'circle').length, 4);
});

test('the forest figure: runs left out of the pooling hollow with a legend, why a row has no diamond, a diamond kept for ' +
  'runs at r = ±1', async () => {
  const runs = (rs: number[], pooled: boolean[]) => rs.map((r, i) => ({ run: `run${i}`, r, pooled: pooled[i] }));
  const rows: ForestRow[] = [
    // every run at r = 1 or nearly: pooled at 0.999 (pair-meta.ts), its CI beyond r = 0.995
    { a: 'mirror', b: 'x', runs: runs([1, 1, 0.9995], [true, true, true]), pooled: { r: 0.999, ci95: [0.9962, 0.99973], prediction95: null },
      verdict: 'generalises', mark: '✓', colour: '#1f5fa8', strong: true },
    { a: 'shaky', b: 'x', runs: runs([0.62, 0.2, 0.7], [true, false, false]), pooled: null, noDiamond: 'no diamond: one run pooled (2 unstable)',
      verdict: 'inconclusive', mark: '?', colour: '#555', strong: false },
  ];
  assert.ok(zExtent(rows) >= Math.atanh(0.99973), 'the axis reaches the pooled CI, so the diamond is not squeezed onto the edge');
  const svg = await renderSvg(forestSpec(rows), 'forest');
  const group = (name: string) => svg.match(new RegExp(`<g class="mark-symbol role-mark ${name}_marks".*?</g>`, 's'))?.[0] ?? '';
  const hollow = [...group('left_out_runs').matchAll(/aria-label="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(hollow,
    ['shaky – x, run1: r 0.200, left out of the pooling (unstable)', 'shaky – x, run2: r 0.700, left out of the pooling (unstable)']);
  assert.equal([...group('pooled_runs').matchAll(/aria-roledescription="point"/g)].length, 4, 'the pooled runs drawn filled');
  assert.match(svg, /Symbol legend for fill color with 2 values: run pooled, run left out of the pooling \(unstable\)/,
    'a legend says what hollow means');
  assert.match(svg, />no diamond: one run pooled \(2 unstable\)</, 'why the row has no diamond, under its verdict');
  assert.match(svg, />0\.999</, 'ticks near 1 keep three decimals');
  const plain = await renderSvg(forestSpec([rows[0]]), 'forest');
  assert.doesNotMatch(plain, /left out of the pooling/, 'no legend for hollow points where there are none');
});

test('each of the four verdicts has its own mark, colour and tone; the legend lists them in the headline\'s order', () => {
  const looks = PAIR_VERDICTS.map(verdictLook);
  for (const key of ['mark', 'colour', 'tone'] as const) assert.equal(new Set(looks.map((l) => l[key])).size, 4, `distinct ${key}s`);
  assert.deepEqual(verdictLegend(['inconclusive', 'generalises', 'inconclusive', 'negligible everywhere']).map((x) => x.verdict),
    ['generalises', 'negligible everywhere', 'inconclusive']);
  assert.deepEqual(verdictLook('heterogeneous'), verdictLook('inconclusive'), 'a name that is not a verdict is drawn as inconclusive');
});
