// No line of code over 150 characters: long lines are wrapped by hand, not by a formatter.
// Counts characters (code points), not bytes, over the .ts, .js and .py files under CHECKED_ROOTS.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The folders checked, from the repository root. */
const CHECKED_ROOTS = ['bench', 'scripts', 'src', 'test'];
const MAX_LENGTH = 150;
const EXTENSIONS = new Set(['.ts', '.js', '.py']);

function codeFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...codeFiles(p));
    else if (entry.isFile() && EXTENSIONS.has(path.extname(entry.name))) files.push(p);
  }
  return files;
}

test(`no line over ${MAX_LENGTH} characters in ${CHECKED_ROOTS.join(', ')}`, () => {
  const files = CHECKED_ROOTS.flatMap((r) => {
    const under = codeFiles(path.join(root, r));
    assert.ok(under.length > 0, `no .ts, .js or .py files read under ${r}`);
    return under;
  });
  const offenders: string[] = [];
  for (const file of files) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    fs.readFileSync(file, 'utf8').split(/\r?\n/).forEach((line, i) => {
      const length = [...line].length;
      if (length <= MAX_LENGTH) return;
      offenders.push(`${rel}:${i + 1} (${length} characters)`);
    });
  }
  assert.deepEqual(offenders, [], `lines over ${MAX_LENGTH} characters (wrap them by hand):\n${offenders.join('\n')}`);
});
