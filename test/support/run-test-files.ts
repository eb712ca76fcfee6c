// A folder's test files run in one process (npm test runs the folder's one-process.ts in their
// place; scripts/test-files.js lists what npm test runs). Each file in a process of its own pays
// Node's and tsx's start-up and loads the modules it shares with its neighbours again: test/stats's
// 18 files took 20.9 CPU-s that way and 8.2 CPU-s in one process, the same 75 tests passing. A
// folder may do this only where its files share nothing through the process: they run one after
// another, each leaving the environment and the working directory as it found them and adding no
// process handler but a clean-up at exit. A top-level before/after hook would run once for the
// whole process, not for its file, so a file that has one is refused here, by name.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const FILE_HOOK = /^(before|after|beforeEach|afterEach)\(/m;

/** Imports every `*.test.ts` file of `dir` in name order, registering their tests in this process. */
export async function runTestFiles(dir: string): Promise<void> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join(dir, f));
  const hooked = files.filter((f) => FILE_HOOK.test(readFileSync(f, 'utf8')));
  if (hooked.length) {
    throw new Error(`${hooked.join(', ')}: a top-level before/after hook would run for every file of ${dir}'s one process; ` +
      `move it into the tests, or take ${path.join(dir, 'one-process.ts')} away`);
  }
  for (const f of files) await import(pathToFileURL(f).href);
}
