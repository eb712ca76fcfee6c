// Shared bits of the data tests: temp folders and the path to ../shared/data.
import { mkdtempSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedData = resolve(repoRoot, '../shared/data');
export const hasSharedData = existsSync(sharedData);
export const NO_SHARED = `skipped: ${sharedData} is absent (the shared data sets are not in this checkout)`;

export function tempDir(t: { after: (fn: () => void) => void }, prefix = 'genstudy-data-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function write(dir: string, name: string, content: string | Buffer): string {
  const file = join(dir, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** The UserError message a promise rejects with (fails the test when it resolves or throws another error). */
export async function userErrorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if ((err as Error).name === 'UserError') return (err as Error).message;
    throw err;
  }
  throw new Error('expected a UserError, but it succeeded');
}
