// Opens the written report in a real headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core), with every network request blocked and recorded: the page must load with no
// console errors and no request attempted, and each chart must have its marks. A full-page
// screenshot is written for a person to look at (its path is printed). Skips with a message where
// Chromium is not installed (install it with: apt-get install -y chromium).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ResultStore } from '../../src/store/result-store.ts';
import { writeReport } from '../../src/report/index.ts';
import { STUDY_A, tempDir, writeStudyA, writeStudyB } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT_COPY = join(tmpdir(), 'genstudy-report-browser-test', 'report.png');

interface ChartMarks { kind: string; run: string | null; width: number; height: number; lines: number; rects: number; texts: number }

test('the report opens offline in headless Chromium with no console errors, and every chart has its marks', { timeout: 120_000 }, async (t) => {
  if (!existsSync(CHROMIUM)) {
    t.skip(`${CHROMIUM} not found: install Chromium (apt-get install -y chromium) to run the browser test`);
    return;
  }
  let chromium: typeof import('playwright-core').chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    t.skip('playwright-core is not installed (it is a dev dependency: npm ci installs it)');
    return;
  }
  const dir = tempDir(t);
  const storePath = join(dir, 'results.sqlite');
  const store = ResultStore.open(storePath);
  writeStudyA(store);
  writeStudyB(store, { seeds: [0, 1] });
  store.close();
  const { html } = await writeReport(join(dir, 'report'), { storePath, title: 'Browser test report' });
  const url = pathToFileURL(html).href;

  // A fresh profile, removed (by tempDir) only after the browser has closed.
  const context = await chromium.launchPersistentContext(mkdtempSync(join(dir, 'chromium-profile-')), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
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
    assert.match(answer, /across 3 runs, \d+ of 10 pairs of OOD test sets/);

    const charts: ChartMarks[] = await page.$$eval('figure.chart', (figures) => figures.map((f) => {
      const svg = f.querySelector('svg')!;
      const box = svg.getBoundingClientRect();
      return {
        kind: f.getAttribute('data-chart')!,
        run: f.closest('article')?.getAttribute('data-run') ?? null,
        width: box.width, height: box.height,
        lines: svg.querySelectorAll('g.mark-line.role-mark > path').length,
        rects: svg.querySelectorAll('g.mark-rect.role-mark > path').length,
        texts: svg.querySelectorAll('g.mark-text.role-mark > text').length,
      };
    }));
    const ofKind = (k: string) => charts.filter((c) => c.kind === k);
    assert.equal(ofKind('curves').length, STUDY_A.runs + 12, 'study-A runs and the 12 fine-tuned study-B runs (two checkpoints each)');
    assert.equal(ofKind('loss').length, STUDY_A.runs);
    assert.equal(ofKind('heatmap').length, STUDY_A.runs);
    assert.equal(ofKind('agreement').length, 1);
    assert.equal(ofKind('study-b-ft').length, 1);
    assert.equal(ofKind('study-b-fticl').length, 1);
    for (const c of charts) {
      assert.ok(c.width > 100 && c.height > 80, `${c.kind} ${c.run}: drawn at ${c.width}x${c.height}`);
      if (c.kind === 'curves') {
        // Study A runs: the in-domain set and five OOD sets; study-B runs: seven test sets.
        const expected = c.run?.startsWith('model-') ? 6 : 7;
        assert.equal(c.lines, expected, `${c.run}: one line per test set`);
      }
      if (c.kind === 'loss') assert.equal(c.lines, 1);
      if (c.kind === 'heatmap' || c.kind === 'agreement') {
        // 5 OOD sets: 20 coloured cells + 5 grey diagonal cells (+ outlines), a label in each.
        assert.ok(c.rects >= 25, `${c.kind} ${c.run}: ${c.rects} cells`);
        assert.equal(c.texts, 25);
      }
      if (c.kind.startsWith('study-b-')) {
        // 3 training tasks x 7 test sets, 3 in-domain outlines.
        assert.equal(c.rects, 21 + 3);
        assert.equal(c.texts, 21);
      }
    }

    const screenshot = join(dir, 'report.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    mkdirSync(join(tmpdir(), 'genstudy-report-browser-test'), { recursive: true });
    copyFileSync(screenshot, SCREENSHOT_COPY);
    t.diagnostic(`screenshot: ${SCREENSHOT_COPY}`);

    assert.deepEqual(errors, [], 'no console errors or warnings');
    assert.deepEqual(requests, [], 'no network request attempted');
  } finally {
    await context.close();
  }
});
