// Measures `npm test` twice: on the machine as it is, then with two CPU-bound processes this script
// starts beside it (and ends, however it stops), as on a shared machine. Prints each run's wall
// time, exit code, test counts and the load average before and after, then a JSON summary. The
// goals: under 150 s quiet and under 15 minutes loaded, on 2 cores. Start it on a quiet machine (a
// load average well under 1): other work already running counts as load too.
// Usage: node --import tsx scripts/suite-timing.ts [quiet|loaded|both] [log folder]
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const which = process.argv[2] ?? 'both';
if (!['quiet', 'loaded', 'both'].includes(which)) {
  process.stderr.write('usage: node --import tsx scripts/suite-timing.ts [quiet|loaded|both] [log folder]\n');
  process.exit(2);
}
const logDir = process.argv[3] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-suite-timing-'));
fs.mkdirSync(logDir, { recursive: true });

interface Timing {
  condition: 'quiet' | 'loaded'; seconds: number; exitCode: number | null;
  tests?: number; pass?: number; fail?: number; loadBefore: number[]; loadAfter: number[]; log: string;
}

const load = (): number[] => os.loadavg().map((l) => Math.round(l * 100) / 100);

/** Two processes that keep a core each busy until they are ended. */
const loaders: ChildProcess[] = [];
function startLoad(): void {
  for (let i = 0; i < 2; i++) loaders.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}
function endLoad(): void {
  for (const p of loaders.splice(0)) p.kill('SIGKILL');
}
/** The `npm test` running now, in a process group of its own (npm, the runner, its test files). */
let suite: ChildProcess | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    endLoad();
    if (suite?.pid !== undefined && suite.exitCode === null) process.kill(-suite.pid, 'SIGTERM');
    process.exit(130);
  });
}
process.on('exit', endLoad);

/** One `npm test`, its output to a log file; the counts read from the spec reporter's summary. */
function npmTest(condition: Timing['condition']): Promise<Timing> {
  const log = path.join(logDir, `npm-test-${condition}.log`);
  const out = fs.openSync(log, 'w');
  const loadBefore = load();
  const t0 = performance.now();
  const p = spawn('npm', ['test'], { cwd: root, stdio: ['ignore', out, out], detached: true });
  suite = p;
  return new Promise((resolve, reject) => {
    p.on('error', reject);
    p.on('close', (exitCode) => {
      const seconds = Math.round((performance.now() - t0) / 100) / 10;
      fs.closeSync(out);
      const text = fs.readFileSync(log, 'utf8');
      const count = (name: string) => {
        const m = new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(text);
        return m ? Number(m[1]) : undefined;
      };
      resolve({ condition, seconds, exitCode, tests: count('tests'), pass: count('pass'), fail: count('fail'), loadBefore, loadAfter: load(), log });
    });
  });
}

function say(t: Timing): void {
  const goal = t.condition === 'quiet' ? 150 : 900;
  process.stderr.write(`${t.condition}: ${t.seconds} s wall (goal < ${goal} s), exit ${t.exitCode}, ` +
    `${t.pass ?? '?'} of ${t.tests ?? '?'} tests passed, ${t.fail ?? '?'} failed; load average ${t.loadBefore.join(' ')} before, ` +
    `${t.loadAfter.join(' ')} after; output in ${t.log}\n`);
}

process.stderr.write(`${os.cpus().length} cores, load average ${load().join(' ')} (1, 5, 15 min); logs in ${logDir}\n`);
const results: Timing[] = [];
if (which !== 'loaded') {
  results.push(await npmTest('quiet'));
  say(results.at(-1)!);
}
if (which !== 'quiet') {
  startLoad();
  try {
    results.push(await npmTest('loaded'));
  } finally {
    endLoad();
  }
  say(results.at(-1)!);
}
console.log(JSON.stringify({ cores: os.cpus().length, node: process.version, results }, null, 2));
process.exitCode = results.every((r) => r.exitCode === 0) ? 0 : 1;
