// The report's meta-analysis part of study A: the headline, the table (also as CSV / JSON), the
// moderator table when asked for, and one forest plot per pair with its diamond and prediction
// interval, all inside the study-A section after the sign-count table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadReportData } from '../../src/report/report-data.ts';
import { renderReport } from '../../src/report/index.ts';
import { studyA } from '../../src/report/study-a.ts';
import { escapeHtml } from '../../src/report/escape.ts';
import { studyAStore } from './helpers.ts';

test('study A shows the meta-analysis table and a forest plot per pair after the sign counts', async (t) => {
  const storePath = studyAStore(t, { runs: 4, steps: 20 });
  const report = await renderReport({ storePath, analysis: { hartungKnapp: true, moderator: 'seed' } });
  const html = report.html;
  const a = studyA(loadReportData(storePath, ''), { analysis: { hartungKnapp: true, moderator: 'seed' } });
  const pairs = a.analysis.meta.pairs.length;
  assert.equal(pairs, 10);
  const section = html.slice(html.indexOf('<section id="study-a">'), html.indexOf('</section>', html.indexOf('<section id="study-a">')));
  assert.ok(section.indexOf('data-chart="agreement"') < section.indexOf('id="study-a-meta"'), 'after the sign-count matrix');
  assert.ok(section.includes(escapeHtml(a.analysis.headline.sentence)), 'the headline computed by analyze');
  assert.match(section, /REML, Hartung-Knapp t test on runs − 1 df/);
  const forests = [...section.matchAll(/<figure class="chart" data-chart="forest"[^>]*>(.*?)<\/figure>/gs)].map((m) => m[1]);
  assert.equal(forests.length, pairs);
  for (const f of forests) {
    for (const run of ['model-a', 'model-b', 'model-c', 'model-d']) assert.ok(f.includes(`>${run}</text>`), `row label ${run}`);
    assert.ok(f.includes('>pooled (REML+HK)</text>'), 'the diamond row');
    assert.ok(f.includes('>95% prediction</text>'), 'the prediction interval row (4 runs)');
    assert.match(f, /<figcaption>.*verdict: (generalises|depends on the model|negligible everywhere|inconclusive)\.<\/figcaption>/);
  }
  // the table's rows are the meta_analysis table, also written as CSV and JSON
  const json = report.tables.meta_analysis.json as Record<string, unknown>[];
  assert.equal(json.length, pairs);
  for (const row of json) {
    const p = a.analysis.meta.pairs.find((x) => x.a === row.a && x.b === row.b)!;
    assert.equal(row.r, p.r);
    assert.equal(row.verdict, p.verdict);
    assert.ok(section.includes(`<tr class="meta-${p.verdict.replace(/ /g, '-')}"><td>${escapeHtml(p.a)}</td><td>${escapeHtml(p.b)}</td>`));
  }
  assert.match(report.tables.meta_analysis.csv, /^a,b,runs,excluded,r,ci95_low,ci95_high,p,p_adjusted,/);
  assert.ok(report.tables.meta_regression, 'a moderator gives the meta-regression table');
  assert.match(section, /Does the relation depend on “seed”\?/);
  assert.match(section, /F\(1, 2\) = /, 'Hartung-Knapp: an F test on 1 and 4 - 2 df');
});

test('without a moderator there is no meta-regression table; two runs have no prediction interval', async (t) => {
  const storePath = studyAStore(t, { runs: 2, steps: 15 });
  const report = await renderReport({ storePath, analysis: { hartungKnapp: false } });
  assert.equal(report.tables.meta_regression, undefined);
  assert.ok(report.html.includes('two runs: tau^2 rests on one degree of freedom'));
  const forests = [...report.html.matchAll(/data-chart="forest"[^>]*>(.*?)<\/figure>/gs)].map((m) => m[1]);
  assert.equal(forests.length, 10);
  assert.ok(forests.every((f) => f.includes('>pooled (REML)</text>') && !f.includes('>95% prediction</text>')));
});
