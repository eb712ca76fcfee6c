// Prints the files `npm test` runs: every test file under test/ but test/e2e/ (`npm run test:e2e`),
// except that a folder holding a one-process.ts is run as that file, which runs the folder's test
// files in one process (test/support/run-test-files.ts says when a folder may). Node 20's test
// runner does not expand globs, and a folder's files are listed here so that a new one is run.
// The folders' processes come first: they are the longest, and the runner starts files in the
// order given, so one started last would keep the suite running on one core.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const files = [];
function visit(dir) {
  const names = fs.readdirSync(path.join(root, dir)).sort();
  const together = names.includes('one-process.ts');
  for (const name of names) {
    const rel = path.join(dir, name);
    if (fs.statSync(path.join(root, rel)).isDirectory()) {
      if (rel !== path.join('test', 'e2e')) visit(rel);
    } else if (together ? name === 'one-process.ts' : name.endsWith('.test.ts')) {
      files.push(rel);
    }
  }
}
visit('test');
const together = (f) => path.basename(f) === 'one-process.ts';
process.stdout.write([...files.filter(together).sort(), ...files.filter((f) => !together(f)).sort()].join('\n') + '\n');
