import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { ResultStore } from '../../src/store/result-store.ts';
import { escapeHtml, renderReport, writeReport } from '../../src/report/index.ts';
import { STUDY_B_TASKS, studyAStore, tempDir, writeStudyA, writeStudyB } from './helpers.ts';
import { loadReportData } from '../../src/report/report-data.ts';
import { studyA } from '../../src/report/study-a.ts';

const HOSTILE = '<script>alert("x")</script> & \'quoted\'';

// A calibration of 20 simulations puts the same tables and sections on the page as the default 200, at a fraction of the CPU;
// a test about neither the calibration nor the robustness table leaves both out.
const SMALL_CALIBRATION = { calibration: 20 };
const NEITHER = { calibration: 0, robustness: false };

function hostileStore(dir: string): string {
  const path = join(dir, 'results.sqlite');
  const store = ResultStore.open(path);
  writeStudyA(store, { runs: 2, steps: 12 });
  // A run and a test set whose names would break the page if they were not escaped.
  store.upsertRun({ id: `run ${HOSTILE}`, model: HOSTILE, method: 'lora', seed: 3, studyFile: `recorded: yes\nnote: ${HOSTILE}\n`,
    versions: { genstudy: HOSTILE }, attributes: { note: HOSTILE } });
  const rows = [];
  for (let step = 0; step < 6; step++) {
    for (const [set, v] of [['in-domain', 0.5 + step / 20], [`set ${HOSTILE}`, 0.4 + Math.sin(step) / 10]] as const) {
      rows.push({ run: `run ${HOSTILE}`, step, testSet: set, metric: 'accuracy', value: v, n: 10 });
    }
  }
  store.writeScores(rows);
  store.upsertTestSet({ id: `set ${HOSTILE}`, contentHash: HOSTILE });
  store.close();
  return path;
}

test('escapeHtml escapes the five characters that matter', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});

test('the page is self-contained: no scripts, no external resources, every stored name escaped', async (t) => {
  const dir = tempDir(t);
  const storePath = hostileStore(dir);
  const studyFile = join(dir, 'study.yaml');
  writeFileSync(studyFile, `name: demo\nnote: "${HOSTILE}"\n`);
  const { html } = await renderReport({ storePath, title: `Title ${HOSTILE}`, studyFile, generatedAt: new Date('2026-01-02T03:04:05Z'),
    analysis: SMALL_CALIBRATION });
  assert.ok(!/<script/i.test(html), 'no script element (the hostile name is escaped)');
  assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
  assert.ok(!/<link\b|<img\b|<iframe\b|<object\b|@import|@font-face|\bsrc=/i.test(html), 'no element or rule that loads anything');
  // URLs appear only as SVG namespace names, never as something to fetch.
  const urls = html.match(/https?:\/\/[^"'\s)]*/g) ?? [];
  assert.deepEqual([...new Set(urls)].sort(), ['http://www.w3.org/1999/xlink', 'http://www.w3.org/2000/svg']);
  assert.ok(!/url\((?!#)/.test(html), 'only in-page url(#id) references');
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'/);
  // SVG ids are unique across the page's charts.
  const ids = [...html.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(new Set(ids).size, ids.length, 'element ids are unique');
  for (const m of html.matchAll(/url\(#([^)]+)\)/g)) assert.ok(ids.includes(m[1]), `url(#${m[1]}) points at an element of the page`);
  assert.ok(html.includes('2026-01-02T03:04:05.000Z'));
  assert.ok(html.includes('<pre id="study-file">name: demo\nnote: &quot;&lt;script&gt;'), 'the study file is embedded, escaped');
  assert.match(html, /Recorded with the runs \(sha256 <code>[0-9a-f]{64}<\/code>\):<\/p><pre>recorded: yes\nnote: &lt;script&gt;/,
    'a study file stored as text is shown as a block');
});

test('the answer comes first, then study B, runs and provenance with versions, seeds and hashes', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'results.sqlite');
  const store = ResultStore.open(path);
  writeStudyA(store, { runs: 2, steps: 12 });
  writeStudyB(store, { seeds: [0] });
  store.close();
  const { html, headline } = await renderReport({ storePath: path, analysis: NEITHER });
  const at = (s: string) => {
    const i = html.indexOf(s);
    assert.ok(i >= 0, `page lacks ${s}`);
    return i;
  };
  assert.ok(at('id="study-a-answer"') < at('id="study-b"'));
  assert.ok(at('id="study-b"') < at('id="runs"'));
  assert.ok(at('id="runs"') < at('id="provenance"'));
  assert.ok(html.includes(escapeHtml(headline)));
  assert.ok(html.includes('sha256:in-domain-content'), 'test-set hashes');
  assert.ok(html.includes('tfjs-core'), 'versions recorded with the runs');
  assert.match(html, /genstudy 0\.1\.0 on Node \d+/);
  assert.match(html, /vega 6\.\d+\.\d+, vega-lite 6\.\d+\.\d+/);
  // One curves chart per run with at least two checkpoints, one loss chart per logged run,
  // one heatmap per analysed run, one agreement matrix, two study-B matrices.
  const kinds = [...html.matchAll(/data-chart="([^"]+)"/g)].map((m) => m[1]);
  const count = (k: string) => kinds.filter((x) => x === k).length;
  assert.equal(count('loss'), 2);
  assert.equal(count('heatmap'), 2);
  assert.equal(count('agreement'), 1);
  assert.equal(count('study-b-ft'), 1);
  assert.equal(count('study-b-fticl'), 1);
  // study-B runs: one panel per metric (accuracy, rougeL), each on its own axis
  const metrics = new Set(STUDY_B_TASKS.map((x) => x.metric)).size;
  assert.equal(count('curves'), 2 + 6 * metrics, 'study-A runs and the fine-tuned study-B runs (two checkpoints each), a panel per metric');
  const panels = [...html.matchAll(/data-chart="curves" data-metric="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(new Set(panels), new Set(['accuracy', 'rougeL']));
});

test('writeReport writes report.html and a CSV and JSON per table, with no temporary files left', async (t) => {
  const storePath = studyAStore(t, { runs: 2, steps: 12 });
  const out = join(dirname(storePath), 'out', 'nested');
  const written = await writeReport(out, { storePath, analysis: SMALL_CALIBRATION });
  const names = readdirSync(out).sort();
  const tables = Object.keys(written.report.tables).sort();
  assert.deepEqual(names, [...tables.flatMap((n) => [`${n}.csv`, `${n}.json`]), 'report.html'].sort());
  assert.deepEqual(tables,
    ['agreement', 'calibration', 'meta_analysis', 'partial_correlations', 'robustness', 'runs', 'scores', 'test_sets', 'training_log']);
  assert.equal(readFileSync(join(out, 'report.html'), 'utf8'), written.report.html);
  assert.deepEqual(JSON.parse(readFileSync(join(out, 'agreement.json'), 'utf8')), written.report.tables.agreement.json);
  assert.equal(readFileSync(join(out, 'scores.csv'), 'utf8'), written.report.tables.scores.csv);
  // Rendering again over the same folder replaces the files.
  await writeReport(out, { storePath, analysis: SMALL_CALIBRATION });
  assert.deepEqual(readdirSync(out).sort(), names);
});

test('study A shows each run\'s calibration and the robustness of each verdict, from the analysis', async (t) => {
  const storePath = studyAStore(t, { runs: 3, steps: 20 });
  const data = loadReportData(storePath, '');
  const a = studyA(data, { analysis: SMALL_CALIBRATION });
  const report = await renderReport({ storePath, analysis: SMALL_CALIBRATION });
  const calibration = report.tables.calibration.json as Record<string, unknown>[];
  assert.deepEqual(calibration.map((r) => r.run), a.analysis.runs.map((r) => r.run));
  for (const [i, row] of calibration.entries()) {
    const c = a.analysis.runs[i].calibration!;
    assert.equal(row.false_positive_rate, c.false_positive_rate);
    assert.equal(row.power, c.power);
    assert.equal(row.distinct, a.analysis.runs[i].distinct);
    assert.equal(row.variance_ratio, c.variance_ratio);
    assert.equal(row.variance_ratio_se, c.variance_ratio_se);
  }
  const first = a.analysis.runs[0].calibration!;
  const shown = `${first.variance_ratio.toFixed(2)} (${first.variance_ratio_se.toFixed(2)})`;
  assert.ok(report.html.includes(shown), `the ratio and its error on the page: ${shown}`);
  const robustness = report.tables.robustness.json as Record<string, unknown>[];
  assert.equal(robustness.length, a.analysis.agreement.length);
  assert.deepEqual(robustness.map((r) => `${r.holds}/${r.of}`), a.analysis.robustness!.pairs.map((p) => `${p.holds}/${p.of}`));
  assert.match(report.html, /id="study-a-calibration"/);
  assert.match(report.html, /id="study-a-robustness"/);
  assert.match(report.html, /<td[^>]*>\d of 8<\/td>/);
});
