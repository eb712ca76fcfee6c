// Runs bin/genstudy.js as a user would, in a child process; resolves with the exit code and the
// output instead of throwing, so tests can assert on failures too.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

const run = promisify(execFile);

export async function genstudy(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(repoRoot, 'bin/genstudy.js'), ...args],
      { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
