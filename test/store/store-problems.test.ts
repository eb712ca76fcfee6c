// A damaged results store (cut short, bytes flipped) and one another process keeps locked are the
// user's to fix: one line naming the store and what to do, exit 2, never a stack trace; watch stops
// at the first such error instead of logging it for every checkpoint, round after round.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { ResultStore } from '../../src/store/result-store.ts';
import { StoreProblem } from '../../src/store/store-errors.ts';
import { watchRun } from '../../src/pipeline/watch.ts';
import { promptVariants, resolveTestSets } from '../../src/evaluate/index.ts';
import { builtinLoader } from '../../src/engine/index.ts';
import { suiteVocabulary } from '../../src/synth/index.ts';
import { syntheticTask } from '../../src/tasks/index.ts';
import { writeTinyRun } from '../evaluate/tiny-model.ts';
import { SUITE_ARG, tempDir } from '../evaluate/helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
// The lock test's command runs in a child: the busy timeout it shortens is read from the environment when the store module loads.
import { genstudy as genstudyProcess, repoRoot } from '../support/genstudy-process.ts';

/** A real store written by ResultStore: two runs of 80 steps over three test sets. */
function writtenStore(): string {
  const file = path.join(tempDir('genstudy-store-problems-'), 'results.sqlite');
  const store = ResultStore.open(file);
  const rows = [];
  for (const run of ['r1', 'r2']) {
    store.upsertRun({ id: run });
    for (let step = 0; step < 80; step++) {
      for (const t of ['in-domain', 'a', 'b']) {
        rows.push({ run, step: step * 10, testSet: t, metric: 'accuracy', value: 0.5 + Math.sin(step + t.length) / 4, n: 100 });
      }
    }
  }
  store.writeScores(rows);
  store.close();
  assert.ok(!fs.existsSync(`${file}-wal`), 'the store is whole in its one file');
  return file;
}

function assertOneLine(r: { code: number; stderr: string }, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /internal error|at .*\.ts:\d+/);
}

const DAMAGED =
  /^genstudy: .*results\.sqlite: the results store is damaged \((database disk image is malformed|file is not a database)\); restore it from a copy/;

test('a store cut short is a user error naming the file and saying to restore it', async () => {
  const file = writtenStore();
  fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
  assertOneLine(await genstudy(['analyze', file, '--control', 'in-domain']), DAMAGED);
  assertOneLine(await genstudy(['cache', 'list', '--store', file]), DAMAGED);
});

test('a store with flipped bytes in its pages is a user error when a query meets them', async () => {
  const file = writtenStore();
  const bytes = fs.readFileSync(file);
  // Every b-tree page's header after the schema's: the store opens, its scores cannot be read.
  for (let page = 3 * 4096; page < bytes.length; page += 4096) for (let i = 0; i < 8; i++) bytes[page + i] ^= 0xff;
  fs.writeFileSync(file, bytes);
  ResultStore.open(file, { readonly: true }).close();
  assertOneLine(await genstudy(['analyze', file, '--control', 'in-domain']), DAMAGED);
  // Its header flipped after the "SQLite format 3" it starts with, it is not a database at all.
  for (let i = 16; i < 100; i++) bytes[i] ^= 0x55;
  fs.writeFileSync(file, bytes);
  assertOneLine(await genstudy(['analyze', file, '--control', 'in-domain']), DAMAGED);
});

test('a store another process keeps locked past the busy timeout is a user error naming that process', async (t) => {
  const file = writtenStore();
  const holder = spawn(process.execPath, ['-e', `const D = require('better-sqlite3'); const db = new D(process.argv[1]);
    db.exec('BEGIN EXCLUSIVE'); db.exec("DELETE FROM scores WHERE metric = 'x'"); console.log('locked'); setInterval(() => {}, 1000);`, file],
  { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => holder.kill('SIGKILL'));
  const [first] = await once(holder.stdout!, 'data');
  assert.equal(String(first).trim(), 'locked');
  process.env.GENSTUDY_BUSY_TIMEOUT_MS = '300';
  t.after(() => delete process.env.GENSTUDY_BUSY_TIMEOUT_MS);
  const r = await genstudyProcess(['cache', 'drop', '--store', file, '--model', 'x']);
  assertOneLine(r, new RegExp(`results\\.sqlite: the results store is locked: process ${holder.pid} \\(.*node.*\\) kept it for ` +
    'more than 0.3 s; wait for it to finish or stop it'));
});

test('watch stops at a damaged store, saying so once, instead of failing every checkpoint every round', async () => {
  const runDir = path.join(tempDir('genstudy-store-problems-'), 'trainer-out');
  writeTinyRun(runDir, { vocabulary: suiteVocabulary(syntheticTask()), seed: 9 }, [100, 200, 300]);
  const storePath = writtenStore();
  fs.truncateSync(storePath, Math.floor(fs.statSync(storePath).size / 2));
  const testSets = await resolveTestSets([SUITE_ARG], { synthSeed: 2, synthSize: 6 });
  const lines: string[] = [];
  await assert.rejects(
    watchRun({ storePath, run: 'watched', testSets, variants: promptVariants(), loader: builtinLoader(), runDir, intervalMs: 100, once: true,
      log: (l) => lines.push(l) }),
    (e: Error) => e instanceof StoreProblem && DAMAGED.test(`genstudy: ${e.message}`));
  assert.deepEqual(lines.filter((l) => /failed/.test(l)), [], lines.join('\n'));
});
