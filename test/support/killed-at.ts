// Runs bin/genstudy.js in a child process that stops itself at a named pause point
// (GENSTUDY_PAUSE_AT, src/pause-point.ts) and SIGKILLs it there, so a kill lands at the same moment every time.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './genstudy-process.ts';

export interface Killed { status: number | null; signal: NodeJS.Signals | null; stderr: string }

export function genstudyKilledAt(args: string[], pauseAt: string): Promise<Killed> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, GENSTUDY_PAUSE_AT: pauseAt };
    const p = spawn(process.execPath, [path.join(repoRoot, 'bin/genstudy.js'), ...args], { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => {
      stderr += String(d);
      if (stderr.includes(`paused at ${pauseAt}`)) p.kill('SIGKILL');
    });
    p.on('error', reject);
    p.on('close', (status, signal) => resolve({ status, signal, stderr: stderr.slice(-3000) }));
  });
}
