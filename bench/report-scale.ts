// The report at a sweep's size: a synthetic study of R runs x S OOD sets x C checkpoints (plus the
// in-domain set), analysed with the cheapest options (the library's equivalent of `--inference naive
// --calibration 0 --no-robustness`), its report written, and the page opened in headless Chromium.
// Prints the page's size, its elements, the time the analysis took, the time to write the report
// (reading the store, drawing and writing every file; the analysis passed in, not made twice), the
// bytes of each section of the page, and, where Debian's chromium and playwright-core are
// installed, how long Chromium takes to load the page and lay it out (the browser started first, on
// an empty page: the time a reader waits for the page, not for the browser).
//   npm run bench -- report-scale                       # 300 x 20 x 200, the sweep
//   REPORT_SCALE_RUNS=30 REPORT_SCALE_SETS=50 npm run bench -- report-scale
// The store is built once per size and kept in the temporary folder (genstudy-bench-report-scale-R-S-C.sqlite),
// so a second run at the same size measures only the report; REPORT_SCALE_KEEP=1 keeps the report folder too.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ResultStore, type StoredScore } from '../src/store/result-store.ts';
import { loadReportInput } from '../src/report/report-data.ts';
import { studyA } from '../src/report/study-a.ts';
import { writeReport } from '../src/report/index.ts';
import { mulberry32 } from '../src/seeded-random.ts';
import type { AnalyzeOptions } from '../src/analyze/analysis.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHEAP: Partial<AnalyzeOptions> = { inference: 'naive', calibration: 0, robustness: false };

function size(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${v}: expected a whole number >= 1`);
  return n;
}

/**
 * A results store of `runs` runs, each scored at `checkpoints` steps on an in-domain set and `sets`
 * OOD sets: a saturating ID curve; each OOD set loads on it and on a shared wandering cue (positive,
 * negative or not at all), plus noise; a training log with a loss per checkpoint.
 */
function buildStore(path: string, runs: number, sets: number, checkpoints: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const store = ResultStore.open(tmp);
  const rng = mulberry32(7);
  const normal = () => Math.sqrt(-2 * Math.log(Math.max(rng(), 1e-12))) * Math.cos(2 * Math.PI * rng());
  const ood = Array.from({ length: sets }, (_, s) => ({
    id: `ood-${String(s).padStart(2, '0')}`, cue: [0.1, -0.1, 0][s % 3], load: 0.4 + 0.2 * rng(), base: 0.3 + 0.1 * rng(),
  }));
  store.upsertTestSet({ id: 'in-domain', contentHash: 'sha256:in-domain', n: 2000 });
  for (const s of ood) store.upsertTestSet({ id: s.id, contentHash: `sha256:${s.id}`, n: 2000 });
  for (let r = 0; r < runs; r++) {
    const run = `run-${String(r).padStart(3, '0')}`;
    store.upsertRun({ id: run, model: `model-${r % 10}`, trainingSet: 'synthetic', method: 'full', seed: r,
      versions: { genstudy: '0.1.0' }, attributes: { control_test_set: 'in-domain', lr: 1e-5 } });
    const rate = 3 + 4 * rng();
    const scores: StoredScore[] = [];
    const log = [];
    let cue = 0, drift = 0;
    for (let c = 0; c < checkpoints; c++) {
      const step = (c + 1) * 50;
      const id = 0.5 + 0.4 * (1 - Math.exp(-rate * c / checkpoints));
      drift = 0.8 * drift + 0.3 * normal();
      cue += drift;
      const level = Math.tanh(cue / 3);
      scores.push({ run, step, testSet: 'in-domain', metric: 'accuracy', value: id + 0.01 * normal(), n: 2000 });
      for (const s of ood) {
        scores.push({ run, step, testSet: s.id, metric: 'accuracy', value: s.base + s.load * id + s.cue * level + 0.01 * normal(), n: 2000 });
      }
      log.push({ run, step, loss: 0.3 + 0.7 * Math.exp(-rate * c / checkpoints) + 0.01 * normal(), learningRate: 1e-5 });
    }
    store.writeScores(scores);
    store.writeTrainingLog(log);
  }
  store.close();
  renameSync(tmp, path);
}

/** Bytes of each top-level part of the page: the sections by id, the run articles together. */
function sectionBytes(html: string): Record<string, number> {
  const out: Record<string, number> = {};
  const articles = html.match(/<article [\s\S]*?<\/article>/g) ?? [];
  out.run_articles = articles.reduce((s, a) => s + Buffer.byteLength(a), 0);
  for (const m of html.matchAll(/<section id="([^"]+)"[\s\S]*?<\/section>/g)) out[`section_${m[1]}`] = Buffer.byteLength(m[0]);
  out.charts = (html.match(/<figure class="chart"/g) ?? []).length;
  return out;
}

/** Chromium's load of the page (navigation to the load event) and a full layout after it, in seconds. */
async function openInChromium(html: string): Promise<Record<string, number | string>> {
  if (!existsSync(CHROMIUM)) return { chromium: `not run: ${CHROMIUM} not found (apt-get install -y chromium)` };
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'genstudy-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await context.newPage();
    // the browser and a page's renderer started first (an empty page from the same folder), as for a reader whose browser is open
    const blank = join(dirname(dirname(html)), 'blank.html');
    writeFileSync(blank, '<!DOCTYPE html><title>blank</title>');
    await page.goto(pathToFileURL(blank).href, { waitUntil: 'load' });
    rmSync(blank);
    const t0 = performance.now();
    await page.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 600_000 });
    const loaded = performance.now();
    const { elements, height } = await page.evaluate(() => ({
      elements: document.getElementsByTagName('*').length, height: document.documentElement.scrollHeight,
    }));
    const laidOut = performance.now();
    return {
      chromium_load_s: (loaded - t0) / 1000, chromium_load_and_layout_s: (laidOut - t0) / 1000, dom_elements: elements, page_height_px: height,
    };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

export async function benchReportScale(): Promise<Record<string, number | string>> {
  const runs = size('REPORT_SCALE_RUNS', 300), sets = size('REPORT_SCALE_SETS', 20), checkpoints = size('REPORT_SCALE_CHECKPOINTS', 200);
  const out: Record<string, number | string> = { size: `${runs} runs x ${sets} OOD sets x ${checkpoints} checkpoints`,
    load_average_at_start: loadavg().map((x) => x.toFixed(2)).join(' ') };
  const storePath = join(tmpdir(), `genstudy-bench-report-scale-${runs}-${sets}-${checkpoints}.sqlite`);
  if (!existsSync(storePath)) {
    const t = performance.now();
    buildStore(storePath, runs, sets, checkpoints);
    out.store_built_s = (performance.now() - t) / 1000;
  }
  const dir = mkdtempSync(join(tmpdir(), 'genstudy-bench-report-scale-'));
  try {
    // The analysis first, on its own, then the report given it: the two times apart.
    let t = performance.now();
    const analysis = studyA(await loadReportInput(storePath), { analysis: CHEAP }).analysis;
    out.analysis_s = (performance.now() - t) / 1000;
    t = performance.now();
    const cpu = process.cpuUsage();
    const written = await writeReport(join(dir, 'report'), {
      storePath, analysis: CHEAP, result: analysis, title: `report-scale ${runs}x${sets}x${checkpoints}`,
    });
    out.report_write_s = (performance.now() - t) / 1000;
    const used = process.cpuUsage(cpu);
    out.report_write_cpu_s = (used.user + used.system) / 1e6;
    out.peak_rss_mb = process.resourceUsage().maxRSS / 1024;
    const bytes = statSync(written.html).size;
    out.report_html_mb = bytes / 1e6;
    out.report_folder_mb = written.files.reduce((s, f) => s + statSync(f).size, 0) / 1e6;
    const page = readFileSync(written.html, 'utf8');
    out.html_elements = (page.match(/<[a-zA-Z]/g) ?? []).length;
    for (const [k, v] of Object.entries(sectionBytes(page))) out[k] = k === 'charts' ? v : v / 1e6;
    out.runs_drawn = (page.match(/<article class="run"/g) ?? []).length;
    out.not_drawn_note = /id="runs-not-drawn"/.test(page) ? 'present' : 'absent';
    Object.assign(out, await openInChromium(written.html));
    if (process.env.REPORT_SCALE_KEEP) out.kept = written.dir;
    out.load_average_at_end = loadavg().map((x) => x.toFixed(2)).join(' ');
    return out;
  } finally {
    if (!process.env.REPORT_SCALE_KEEP) rmSync(dir, { recursive: true, force: true });
  }
}
