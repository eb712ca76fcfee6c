// Writes full-page screenshots of a genstudy report, as a person sees it in Chromium, so anyone
// can look at the report without opening it: a wide window (1400 px) and a narrow one (800 px),
// where the charts scale down and the tables must still fit.
//   node --import tsx bench/report-screenshot.ts [report.html] [out.png] [width]
// Defaults: genstudy-demo/report/report.html (what `genstudy demo` writes); without a width, both
// report-1400.png and report-800.png beside it (with a width: that one, to out.png or report-<width>.png).
// Needs Debian's chromium (apt-get install -y chromium) and the playwright-core dev dependency.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const CHROMIUM = '/usr/bin/chromium';

/** `firstScreen`: only the window's first 900 px (what a reader sees on opening it), else the whole page. */
export async function screenshotReport(html: string, out: string, width: number, firstScreen = false): Promise<{ out: string; height: number }> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install -y chromium`);
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'genstudy-screenshot-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, viewport: { width, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await context.newPage();
    await page.goto(pathToFileURL(resolve(html)).href, { waitUntil: 'load' });
    await page.screenshot({ path: out, fullPage: !firstScreen });
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    return { out, height };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The window widths looked at by default: a laptop's browser window and a narrow one. */
export const WIDTHS = [1400, 800];

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const html = process.argv[2] ?? 'genstudy-demo/report/report.html';
  const widths = process.argv[4] !== undefined ? [Number(process.argv[4])] : WIDTHS;
  if (!existsSync(html)) {
    console.error(`${html} not found: run \`genstudy demo\` first, or pass a report.html`);
    process.exit(2);
  }
  for (const width of widths) {
    const out = (widths.length === 1 ? process.argv[3] : undefined) ?? join(dirname(resolve(html)), `report-${width}.png`);
    const shot = await screenshotReport(html, out, width);
    console.log(`${shot.out}: ${width} x ${shot.height} px`);
  }
}
