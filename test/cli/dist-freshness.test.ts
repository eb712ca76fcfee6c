// The bin runs dist/ only when it was built from the sources as they are: in a small project laid out
// like this one (the real bin/, build and bundle scripts and tsconfig files, a src/cli/main.ts that
// says which file is running and a version), built by the real build, then edited the ways a developer
// or a tool changes files (an edit with its old modification time put back, a file added, removed,
// renamed, the compiler's settings changed). The bin runs the bundle (dist/cli-bundle/), where main's
// import.meta.url must still name dist/cli/main.js (scripts/bundle-cli.js rewrites it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { DIGEST_FILE, distIsFresh, sourceDigest } from '../../bin/dist-freshness.js';

const repo = path.resolve(import.meta.dirname, '../..');

function project(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-dist-freshness-'));
  const files = ['bin/genstudy.js', 'bin/dist-freshness.js', 'scripts/build-library.js', 'scripts/bundle-cli.js',
    'tsconfig.json', 'tsconfig.build.json'];
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.copyFileSync(path.join(repo, file), path.join(root, file));
  }
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'fresh', type: 'module', private: true }));
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'));
  writeMain(root, 1);
  return root;
}

function writeMain(root: string, version: number): void {
  fs.mkdirSync(path.join(root, 'src/cli'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src/cli/main.ts'), [
    'export async function main(_argv: string[]): Promise<number> {',
    `  process.stdout.write(\`\${import.meta.url.endsWith('/dist/cli/main.js') ? 'dist' : 'src'} ${version}\\n\`);`,
    '  return 0;',
    '}',
    'export function reportFailure(_err: unknown): number { return 1; }',
    '',
  ].join('\n'));
}

const build = (root: string) => execFileSync(process.execPath, [path.join(root, 'scripts/build-library.js')], { stdio: 'pipe' });
const runs = (root: string) => execFileSync(process.execPath, [path.join(root, 'bin/genstudy.js')], { encoding: 'utf8' }).trim();

test('the bin runs dist/ when built from src/ as it is, and src/ through tsx after any edit', { timeout: 120_000 }, (t) => {
  const root = project();
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  assert.equal(runs(root), 'src 1', 'no dist/ yet');
  build(root);
  assert.ok(fs.existsSync(path.join(root, 'dist', DIGEST_FILE)));
  assert.ok(fs.existsSync(path.join(root, 'dist/cli-bundle/main.js')), 'the CLI bundled (scripts/bundle-cli.js)');
  assert.equal(runs(root), 'dist 1');

  // an edit of the same length, its modification time put back to before the build (as a checkout or copy can)
  const main = path.join(root, 'src/cli/main.ts');
  const { atime, mtime } = fs.statSync(main);
  writeMain(root, 2);
  fs.utimesSync(main, atime, mtime);
  assert.equal(runs(root), 'src 2', 'the edit runs at once, not the stale build');
  build(root);
  assert.equal(runs(root), 'dist 2');

  const changes: [string, () => void, () => void][] = [
    ['a file added', () => fs.writeFileSync(path.join(root, 'src/extra.ts'), 'export const x = 1;\n'),
      () => fs.rmSync(path.join(root, 'src/extra.ts'))],
    ['a file removed', () => fs.renameSync(main, path.join(root, 'main.ts.aside')), () => fs.renameSync(path.join(root, 'main.ts.aside'), main)],
    ['a file renamed', () => fs.renameSync(path.join(root, 'src/cli'), path.join(root, 'src/cli2')),
      () => fs.renameSync(path.join(root, 'src/cli2'), path.join(root, 'src/cli'))],
    ["the compiler's settings", () => fs.appendFileSync(path.join(root, 'tsconfig.build.json'), '\n'),
      () => fs.writeFileSync(path.join(root, 'tsconfig.build.json'), fs.readFileSync(path.join(repo, 'tsconfig.build.json')))],
  ];
  for (const [what, change, undo] of changes) {
    change();
    assert.equal(distIsFresh(root), false, what);
    undo();
    assert.equal(distIsFresh(root), true, `${what}, undone`);
  }
  fs.rmSync(path.join(root, 'dist', DIGEST_FILE));
  assert.equal(runs(root), 'src 2', 'a build without its digest (interrupted, or src/ edited during it) is not run');
});

test('the digest tells apart trees whose files hold the same bytes split differently', (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-digest-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/a.ts'), 'xy');
  fs.writeFileSync(path.join(root, 'src/b.ts'), '');
  const before = sourceDigest(root);
  fs.writeFileSync(path.join(root, 'src/a.ts'), 'x');
  fs.writeFileSync(path.join(root, 'src/b.ts'), 'y');
  assert.notEqual(sourceDigest(root), before);
});
