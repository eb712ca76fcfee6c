// `genstudy serve` as a child process for the benches: started on a free loopback port, resolved
// with its URL once it prints it (or rejected with what it printed if it exits first).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Serve { url: string; child: ChildProcess }

export function startServe(modelDir: string, args: readonly string[] = []): Promise<Serve> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/genstudy.js'), 'serve', modelDir, '--port', '0', ...args], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`genstudy serve exited (${code}): ${out}`)));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
  });
}
