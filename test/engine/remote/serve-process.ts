// `genstudy serve` as a child process on 127.0.0.1, as a user starts it: port 0, the URL read from
// what it prints.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ServeProcess { url: string; port: number; child: ChildProcess; stop(signal?: NodeJS.Signals): Promise<void> }

export function startServe(modelDir: string, args: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/genstudy.js'), 'serve', modelDir, '--port', '0', ...args], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`genstudy serve printed no URL within 30 s: ${out}${err}`)); }, 30_000);
    let started = false;
    child.once('exit', (code) => { if (started) return; clearTimeout(timer); reject(new Error(`genstudy serve exited (${code}): ${out}${err}`)); });
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:(\d+))\/v1/.exec(out);
      if (!m || started) return;
      started = true;
      clearTimeout(timer);
      resolve({
        url: m[1], port: Number(m[2]), child,
        stop: async (signal = 'SIGTERM') => { if (child.exitCode === null && child.signalCode === null) { child.kill(signal); await exited; } },
      });
    });
  });
}
