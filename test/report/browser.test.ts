// Opens the written report in a real headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core), with every network request blocked and recorded: the page must load with no
// console errors and no request attempted, and each chart must have its marks. At 1400 and 800 px
// wide: every figure is there, drawn at a readable size, inside the page (nothing wider than the
// page, no box whose text overflows it, no table wider than the page or cell whose text spills, every
// verdict cell in view, every chart inside its figure). A full-page screenshot is written for a person to look at
// (its path is printed). A second report, of a study B with 18 test sets and of a score table
// analysed with --test-set, checks the same fit at both widths, that each run's score curves draw
// exactly the analysed sets and put a second metric in its own panel. Skips with a message where
// Chromium is not installed (install it with: apt-get install -y chromium).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ResultStore } from '../../src/store/result-store.ts';
import { writeReport } from '../../src/report/index.ts';
import type { Page } from 'playwright-core';
import { simulateScores } from '../support/simulated-scores.ts';
import { repoRoot, STUDY_A, tempDir, WIDE_STUDY_B_TASKS, writeStudyA, writeStudyB } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
// JPEG: a 1400 x 27000 px page encodes in half PNG's time (1.6 s against 3.3 s at load 12), and a person can read it as well
const SCREENSHOT_COPY = join(tmpdir(), 'genstudy-report-browser-test', 'report.jpg');

interface ChartMarks {
  kind: string; run: string | null; metric: string | null; width: number; height: number; right: number; lines: number; rects: number;
  texts: number; symbols: number; hollow: number; legend: string[]; legendFont: number; yTitle: string; plotWidth: number;
}

type Chromium = typeof import('playwright-core').chromium;

/** playwright-core's Chromium, or undefined when the test cannot run here (it says why). */
async function chromiumOrSkip(t: TestContext): Promise<Chromium | undefined> {
  if (!existsSync(CHROMIUM)) {
    t.skip(`${CHROMIUM} not found: install Chromium (apt-get install -y chromium) to run the browser test`);
    return undefined;
  }
  try {
    return (await import('playwright-core')).chromium;
  } catch {
    t.skip('playwright-core is not installed (it is a dev dependency: npm ci installs it)');
    return undefined;
  }
}

/** Every chart of the page with its marks, as drawn at the current width. */
function chartMarks(page: Page): Promise<ChartMarks[]> {
  return page.$$eval('figure.chart', (figures) => figures.map((f) => {
    const svg = f.querySelector('svg')!;
    const box = svg.getBoundingClientRect();
    const legend = svg.querySelector('g.role-legend-label text');
    return {
      kind: f.getAttribute('data-chart')!,
      run: f.closest('article')?.getAttribute('data-run') ?? null,
      metric: f.getAttribute('data-metric'),
      width: box.width, height: box.height, right: f.getBoundingClientRect().right,
      lines: svg.querySelectorAll('g.mark-line.role-mark > path').length,
      rects: svg.querySelectorAll('g.mark-rect.role-mark > path').length,
      texts: svg.querySelectorAll('g.mark-text.role-mark > text').length,
      symbols: svg.querySelectorAll('g.mark-symbol.role-mark > path').length,
      hollow: svg.querySelectorAll('g.mark-symbol.role-mark.left_out_runs_marks > path').length,
      legend: [...svg.querySelectorAll('g.role-legend-label text')].map((x) => x.textContent!),
      legendFont: legend ? parseFloat(getComputedStyle(legend).fontSize) * (box.width / svg.viewBox.baseVal.width || 1) : 0,
      yTitle: [...svg.querySelectorAll('g.role-axis-title text')].map((x) => x.textContent!).at(-1) ?? '',
      plotWidth: Math.max(0, ...[...svg.querySelectorAll('g.role-axis-domain line')].map((x) => x.getBoundingClientRect().width)),
    };
  }));
}

/** What sticks out at the current width: the page, a box's text, a table past its box, a cell's text, a chart past its figure. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // (no named functions in here: tsx would wrap them in a helper the page does not have)
    const out: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1) out.push(`page ${doc.scrollWidth} > ${doc.clientWidth}`);
    for (const el of document.querySelectorAll('pre, dl.run-summary, p, figcaption, h1, h2, h3, h4')) {
      if (el.scrollWidth > el.clientWidth + 1)
        out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} ${el.scrollWidth} > ${el.clientWidth}: ${el.textContent!.slice(0, 60)}`);
    }
    for (const w of document.querySelectorAll('.table-wrap')) {
      if (w.scrollWidth > w.clientWidth + 1) {
        out.push(`table in #${w.closest('article, section')?.id}: ${w.scrollWidth} > ${w.clientWidth} ` +
          `(${[...w.querySelectorAll('th')].map((t) => t.textContent).join('|').slice(0, 80)})`);
      }
    }
    for (const cell of document.querySelectorAll('td, th')) {
      if (cell.scrollWidth > cell.clientWidth + 1)
        out.push(`cell in #${cell.closest('article, section')?.id}: "${cell.textContent!.slice(0, 40)}" ${cell.scrollWidth} > ${cell.clientWidth}`);
    }
    for (const f of document.querySelectorAll('figure')) {
      const box = f.getBoundingClientRect();
      const svg = f.querySelector('svg')?.getBoundingClientRect();
      const parent = f.parentElement!.getBoundingClientRect();
      if (svg && (svg.right > box.right + 1 || svg.left < box.left - 1)) {
        out.push(`figure ${f.getAttribute('data-chart')} in #${f.closest('article, section')?.id}: ` +
          `chart ${svg.left}..${svg.right} outside its figure ${box.left}..${box.right}`);
      }
      if (box.right > parent.right + 1) out.push(
        `figure ${f.getAttribute('data-chart')} in #${f.closest('article, section')?.id}: right edge ${box.right} > its container's ${parent.right}`);
    }
    return out;
  });
}

/** A fresh profile (removed by tempDir only after the browser has closed), every request but the page's own blocked. */
function launch(chromium: Chromium, dir: string) {
  return chromium.launchPersistentContext(mkdtempSync(join(dir, 'chromium-profile-')), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

test('the report opens offline in headless Chromium with no console errors, and every chart has its marks', { timeout: 120_000 }, async (t) => {
  const chromium = await chromiumOrSkip(t);
  if (!chromium) return;
  const dir = tempDir(t);
  const storePath = join(dir, 'results.sqlite');
  const store = ResultStore.open(storePath);
  // one OOD set of one run stuck at a value: its pairs in that run are unstable, left out of the pooling
  writeStudyA(store, { stuck: 'vocabulary-shift' });
  writeStudyB(store, { seeds: [0, 1] });
  store.close();
  const { html, report } = await writeReport(join(dir, 'report'), {
    storePath, title: 'Browser test report', studyFile: join(repoRoot, 'examples', 'study-a.yaml'),
    // a calibration of 20 simulations puts the same rows and notes on the page as the default 200 (2.7 CPU-s for this report against 6.8)
    analysis: { bootstrap: 50, permutations: 50, calibration: 20 },
  });
  const url = pathToFileURL(html).href;
  // The forest draws a point for each run whose pair has an r; the default test leaves a pair's r
  // empty where its effective sample size is too small for the spline's degrees of freedom.
  const pairRows = report.tables.partial_correlations.json as { a: string; b: string; r: number | null; unstable: string | null }[];
  const runPoints = pairRows.filter((row) => row.r !== null).length;
  assert.ok(runPoints >= 10, `most runs of most pairs have an r (${runPoints} of 30)`);
  const leftOut = pairRows.filter((row) => row.r !== null && row.unstable).length;
  assert.ok(leftOut >= 1, `the stuck set makes some run's pairs unstable (${leftOut})`);
  // a pair pooled from fewer than two runs has no diamond, and its row says why
  const pooledRuns = report.tables.meta_analysis.json as { a: string; b: string; runs: number }[];
  const bare = pooledRuns.filter((m) => m.runs < 2 && pairRows.some((p) => p.a === m.a && p.b === m.b && p.r !== null)).length;

  const context = await launch(chromium, dir);
  try {
    const requests: string[] = [];
    await context.route('**/*', (route) => {
      const u = route.request().url();
      if (u === url) return route.continue();
      requests.push(u);
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
    const response = await page.goto(url, { waitUntil: 'load' });
    assert.ok(response === null || response.ok(), 'the page loads');

    assert.equal(await page.title(), 'Browser test report');
    const answer = await page.locator('#study-a-answer').innerText();
    assert.match(answer, /^Across 3 runs, of 10 pairs of OOD test sets .*: \d+ generalises?/);

    for (const width of [1400, 800]) {
      await page.setViewportSize({ width, height: 900 });
      const at = `at ${width} px`;
      const charts = await chartMarks(page);
      const ofKind = (k: string) => charts.filter((c) => c.kind === k);
      assert.equal(ofKind('curves').length, STUDY_A.runs + 12 * 2, 'study-A runs and the 12 fine-tuned study-B runs (two checkpoints each), ' +
        'these with a panel for accuracy and one for rougeL');
      assert.equal(ofKind('loss').length, STUDY_A.runs);
      assert.equal(ofKind('heatmap').length, STUDY_A.runs);
      assert.equal(ofKind('id-vs-ood').length, STUDY_A.runs, 'ID against each OOD score, per analysed run');
      assert.equal(ofKind('residuals').length, STUDY_A.runs, 'the chosen pair\'s residual scatter, per analysed run');
      assert.equal(ofKind('agreement').length, 1);
      assert.equal(ofKind('pooled').length, 1, 'the pooled-r matrix beside the sign counts');
      assert.equal(ofKind('forest').length, 1, 'one forest figure for all pairs');
      assert.equal(ofKind('study-b-ft').length, 1);
      assert.equal(ofKind('study-b-fticl').length, 1);
      const main = await page.$eval('main',
        (m) => { const r = m.getBoundingClientRect(); const s = getComputedStyle(m); return r.right - parseFloat(s.paddingRight); });
      for (const c of charts) {
        assert.ok(c.width > 100 && c.height > 80, `${c.kind} ${c.run}: drawn at ${c.width}x${c.height} ${at}`);
        assert.ok(c.right <= main + 1, `${c.kind} ${c.run}: inside the page ${at} (right edge ${c.right}, page content ends at ${main})`);
        if (c.kind === 'curves') {
          // Study A runs: the in-domain set and five OOD sets; study-B runs: five accuracy sets, then two rougeL sets in a panel of their own.
          const expected = c.run?.startsWith('model-') ? 6 : c.metric === 'rougeL' ? 2 : 5;
          assert.equal(c.lines, expected, `${c.run} ${c.metric}: one line per test set`);
          assert.equal(c.yTitle, c.metric, `${c.run}: the panel's axis is its one metric`);
          const steps = c.run?.startsWith('model-') ? STUDY_A.steps : 2;
          assert.equal(c.symbols, expected * steps, `${c.run}: a marker on every checkpoint of every curve`);
        }
        if (c.kind === 'loss') assert.equal(c.lines, 1);
        if (c.kind === 'forest') {
          // 10 pairs: a name and a verdict per row, the verdict column's header, why a row has no diamond; a point per run with an r
          assert.equal(c.texts, 10 + 10 + 1 + bare);
          assert.equal(c.symbols, runPoints);
          assert.equal(c.hollow, leftOut, 'the runs left out of a pair\'s pooling drawn hollow');
          assert.ok(c.legend.includes('run left out of the pooling (unstable)'), 'a legend says what a hollow point is');
          // the plot uses the page: at 1400 px over half of its 1180 px box (it was 330 px)
          if (width === 1400) assert.ok(c.plotWidth >= 600, `forest plot ${c.plotWidth} px wide ${at}`);
        }
        if (c.kind === 'heatmap' || c.kind === 'agreement' || c.kind === 'pooled') {
          // 5 OOD sets: 20 coloured cells + 5 grey diagonal cells (+ outlines), a label in each.
          assert.ok(c.rects >= 25, `${c.kind} ${c.run}: ${c.rects} cells`);
          assert.equal(c.texts, 25);
        }
        if (c.kind === 'id-vs-ood') {
          assert.equal(c.symbols, 5 * STUDY_A.steps, `${c.run}: one point per OOD set and checkpoint`);
          assert.equal(c.lines, 5, `${c.run}: a least-squares line per OOD set`);
        }
        if (c.kind === 'residuals') assert.ok([STUDY_A.steps, STUDY_A.steps - 1].includes(c.symbols),
          `${c.run}: one point per checkpoint (or per difference between checkpoints): ${c.symbols}`);
        if (c.kind.startsWith('study-b-')) {
          // 3 training tasks x 7 test sets, 3 in-domain outlines.
          assert.equal(c.rects, 21 + 3);
          assert.equal(c.texts, 21);
        }
        if (width === 1400 && (c.kind === 'curves' || c.kind === 'id-vs-ood')) {
          assert.ok(c.width >= 700, `${c.kind} ${c.run}: ${c.width} px wide ${at}, a readable size`);
          assert.ok(c.legendFont >= 13, `${c.kind} ${c.run}: legend text ${c.legendFont} px ${at}`);
        }
      }
      // Nothing widens the page or spills out of its box; every table fits the page (no sideways
      // scrolling, no cell whose text spills or is cut) and every figure its box: the verdict
      // columns above all must be readable without scrolling.
      assert.deepEqual(await overflowing(page), [], `nothing overflows ${at}`);
      const forestText = await page.$eval('figure[data-chart="forest"]', (f) => {
        const box = f.getBoundingClientRect();
        return [...f.querySelectorAll('svg text')].filter((t) => {
          const r = t.getBoundingClientRect();
          return r.left < box.left - 1 || r.right > box.right + 1;
        }).map((t) => t.textContent);
      });
      assert.deepEqual(forestText, [], `every pair name and verdict of the forest figure inside it ${at}`);
      const verdicts = await page.$$eval('table', (tables) => tables.flatMap((t) => {
        const i = [...t.querySelectorAll('th')].findIndex((th) => th.textContent === 'verdict');
        if (i < 0) return [];
        const wrap = t.closest('.table-wrap')!.getBoundingClientRect();
        return [...t.querySelectorAll('tbody tr')].map((tr) => {
          const r = tr.children[i].getBoundingClientRect();
          return r.right <= wrap.right + 1 && r.width > 20;
        });
      }));
      assert.ok(verdicts.length >= 20 && verdicts.every(Boolean), `every verdict cell in view ${at} (${verdicts.length} checked)`);
      assert.ok(await page.$('#study-file'), 'the study file is shown');
      const tableHeads = await page.$$eval('article.run th', (ths) => ths.map((t) => t.textContent));
      assert.ok(tableHeads.includes('block bootstrap 95% CI') && tableHeads.includes('permutation p'),
        'bootstrap and permutation results, when asked for, are in the page');
      const summary = await page.$eval('article.run dl.run-summary', (d) => d.textContent!);
      assert.doesNotMatch(summary, /null|undefined|NaN/, 'run summaries show no empty fields');
    }

    await page.setViewportSize({ width: 1400, height: 900 });
    const screenshot = join(dir, 'report.jpg');
    await page.screenshot({ path: screenshot, fullPage: true, type: 'jpeg', quality: 80 });
    mkdirSync(join(tmpdir(), 'genstudy-report-browser-test'), { recursive: true });
    copyFileSync(screenshot, SCREENSHOT_COPY);
    t.diagnostic(`screenshot: ${SCREENSHOT_COPY}`);

    assert.deepEqual(errors, [], 'no console errors or warnings');
    assert.deepEqual(requests, [], 'no network request attempted');
  } finally {
    await context.close();
  }
});

test('at 1400 and 800 px a study-B grid of 18 test sets fits; each run\'s curves draw exactly the analysed sets, a second metric in its own panel',
  { timeout: 120_000 }, async (t) => {
    const chromium = await chromiumOrSkip(t);
    if (!chromium) return;
    const dir = tempDir(t);
    // study B alone, 18 test sets with names that break nowhere: 2 accuracy tasks and 1 rougeL task of 6 sets each
    const storePath = join(dir, 'results.sqlite');
    const store = ResultStore.open(storePath);
    writeStudyB(store, { seeds: [0], tasks: WIDE_STUDY_B_TASKS });
    store.close();
    const wide = await writeReport(join(dir, 'study-b'), { storePath });
    // a hand-made score table with more sets than --test-set names, and a second metric
    const rows = simulateScores({ seed: 5, runs: 2, steps: 12 });
    const csvPath = join(dir, 'scores.csv');
    writeFileSync(csvPath, 'run,step,test_set,metric,value\n' + rows.flatMap((r) => [
      `${r.run},${r.step},${r.test_set},accuracy,${r.value}`, `${r.run},${r.step},${r.test_set},f1,${r.value / 2}`,
    ]).join('\n') + '\n');
    const named = ['overlap-broken', 'negation-broken'];
    const table = await writeReport(join(dir, 'table'), { storePath: csvPath, control: 'in-domain', analysis: { testSets: named, calibration: 20 } });

    const context = await launch(chromium, dir);
    try {
      await context.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
      const page = await context.newPage();
      for (const width of [1400, 800]) {
        await page.setViewportSize({ width, height: 900 });
        const at = `at ${width} px`;

        await page.goto(pathToFileURL(wide.html).href);
        assert.deepEqual(await overflowing(page), [], `the study-B report: nothing overflows ${at}`);
        assert.equal(await page.$('#study-a'), null, 'no study-A section in a study-B report without a control');
        const grid = await page.$$eval('table.study-b', (ts) => ts.map((x) => x.querySelectorAll('tbody tr').length));
        assert.deepEqual(grid, [WIDE_STUDY_B_TASKS.flatMap((x) => x.sets).length], 'the 18 test sets down the page, one table');
        const charts = await chartMarks(page);
        const fineTuned = 2 * WIDE_STUDY_B_TASKS.length;
        for (const metric of ['accuracy', 'rougeL']) {
          const panels = charts.filter((c) => c.kind === 'curves' && c.metric === metric);
          const sets = WIDE_STUDY_B_TASKS.filter((x) => x.metric === metric).flatMap((x) => x.sets.map((s) => s.id)).sort();
          assert.equal(panels.length, fineTuned, `a ${metric} panel per fine-tuned run`);
          for (const c of panels) {
            assert.deepEqual([...c.legend].sort(), sets, `${c.run}: the ${metric} panel draws the ${metric} sets, no other`);
            assert.equal(c.yTitle, metric);
          }
        }

        await page.goto(pathToFileURL(table.html).href);
        assert.deepEqual(await overflowing(page), [], `the score-table report: nothing overflows ${at}`);
        const curves = (await chartMarks(page)).filter((c) => c.kind === 'curves');
        assert.equal(curves.length, 2, 'one panel per run: the metric analysed');
        for (const c of curves) {
          assert.deepEqual(c.legend, ['in-domain (ID)', ...[...named].sort()], `${c.run}: exactly the control and --test-set`);
          assert.equal(c.lines, 1 + named.length);
          assert.equal(c.yTitle, 'accuracy');
        }
      }
    } finally {
      await context.close();
    }
  });
