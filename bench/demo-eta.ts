// npm run bench -- demo-eta: is the demo's "time left" honest? Runs `genstudy demo` into a fresh
// folder with stderr piped (the plain-line view, which prints the study's time left after each
// evaluated checkpoint), stamps every line with the time since start, and compares each estimate
// with the truth measured afterwards: the time until the demo exited (analysis and report
// included, which the estimate leaves out) and until its last run's final pass. Reports the first
// estimate after 10 s (the bar: within 2x of the truth), the worst ratio after that while
// more than 5 s were left (where, and its numbers), and the largest rise of the estimate between lines.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** Reads back a duration as study-progress.ts's formatDuration writes it ("42 s", "2 min 05 s", "3 h 07 min"). */
function formatDurationSeconds(text: string): number {
  const m = /^(?:(\d+) h )?(?:(\d+) min)? ?(?:(\d+) s)?$/.exec(text.trim());
  if (!m || text.trim() === '') throw new Error(`not a duration: "${text}"`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

export async function benchDemoEta(): Promise<Record<string, number | string>> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-demo-eta-'));
  const started = performance.now();
  const lines: { t: number; text: string }[] = [];
  const child = spawn(process.execPath, [path.join(root, 'bin/genstudy.js'), 'demo', '--out', out], {
    cwd: root, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let pending = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const t = (performance.now() - started) / 1000;
    const parts = (pending + chunk).split('\n');
    pending = parts.pop()!;
    for (const text of parts) lines.push({ t, text });
  });
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  const end = (performance.now() - started) / 1000;
  fs.rmSync(out, { recursive: true, force: true });
  if (code !== 0) throw new Error(`genstudy demo exited ${code}: ${lines.slice(-5).map((l) => l.text).join('\n')}`);
  const studyEnd = lines.filter((l) => /^genstudy: run \d+\/\d+ .* checkpoints \(steps /.test(l.text)).at(-1)?.t ?? end;
  const estimates = lines.flatMap((l) => {
    const m = /study about (.+) left$/.exec(l.text);
    return m ? [{ t: l.t, left: formatDurationSeconds(m[1]) }] : [];
  });
  const first = estimates.find((e) => e.t >= 10);
  if (!first) throw new Error('no time-left estimate after 10 s');
  const later = estimates.filter((e) => e.t >= 10 && end - e.t > 5);
  const off = (e: { t: number; left: number }) => Math.max(e.left / (end - e.t), (end - e.t) / e.left);
  const worstAt = later.reduce((a, b) => (off(b) > off(a) ? b : a));
  const worst = off(worstAt);
  let rise = 0;
  for (let i = 1; i < estimates.length; i++) rise = Math.max(rise, estimates[i].left / estimates[i - 1].left);
  return {
    demo_wall_s: end,
    study_end_s: studyEnd,
    first_estimate_at_s: first.t,
    first_estimate_s: first.left,
    truth_to_exit_s: end - first.t,
    ratio_to_exit: first.left / (end - first.t),
    ratio_to_study_end: first.left / (studyEnd - first.t),
    worst_ratio_after_10s: worst,
    worst_at_s: worstAt.t,
    worst_estimate_s: worstAt.left,
    worst_truth_s: end - worstAt.t,
    largest_rise_between_lines: rise,
    estimates: estimates.length,
  };
}
