// Regenerates the report screenshots the docs show (docs/img/*-report-{1400,800}.png): the first
// screen of the Pythia example's report (its command in docs/example-pythia.md) and of the demo's,
// in Chromium at a laptop's window width and a narrow one.
//   node --import tsx scripts/report-screenshots.ts [demo report.html]
// The demo's report is taken from the folder given, else ./genstudy-demo (run `genstudy demo` first);
// without either only the Pythia screenshots are made, and it says so.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { screenshotReport, WIDTHS } from '../bench/report-screenshot.ts';

const root = resolve(import.meta.dirname, '..');
const img = join(root, 'docs', 'img');
const work = mkdtempSync(join(tmpdir(), 'genstudy-screenshots-'));
try {
  const pythia = join(work, 'pythia-report');
  execFileSync(process.execPath, [join(root, 'bin', 'genstudy.js'), 'report', join(root, 'examples', 'pythia-evals'),
    '--control', 'lambada_openai', '--test-set', 'arc_easy', 'arc_challenge', 'piqa', 'sciq', 'winogrande', 'logiqa', 'wsc',
    '--out', pythia], { stdio: ['ignore', 'ignore', 'inherit'] });
  const reports: [string, string][] = [['example-pythia', join(pythia, 'report.html')]];
  const demo = resolve(process.argv[2] ?? join('genstudy-demo', 'report', 'report.html'));
  if (existsSync(demo)) reports.push(['demo', demo]);
  else console.error(`${demo} not found: run \`genstudy demo\` first for the demo's screenshots; making the Pythia ones only`);
  for (const [name, html] of reports) {
    for (const width of WIDTHS) {
      const shot = await screenshotReport(html, join(img, `${name}-report-${width}.png`), width, true);
      console.log(`${shot.out}: first screen of a ${width} x ${shot.height} px page`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
