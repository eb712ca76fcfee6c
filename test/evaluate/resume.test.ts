import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets } from '../../src/evaluate/index.ts';
import { countRows, dumpStore, repoRoot, SUITE_ARG, tempDir, tinyRun } from './helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

const BIN = path.join(repoRoot, 'bin/genstudy.js');
const SIZE = 16;
const TOTAL = 5 * 5 * SIZE;

function cliArgs(runDir: string, store: string): string[] {
  return [BIN, 'evaluate', '--model', runDir, '--test-set', SUITE_ARG, '--synthetic-seed', '3', '--synthetic-size', String(SIZE), '--batch-examples',
    '8', '--store', store];
}

function cachedRows(store: string): number {
  try {
    return countRows(store, 'evaluation_cache');
  } catch {
    return 0; // not created or not migrated yet
  }
}

test('a run killed half-way (SIGKILL) resumes where it stopped, and the final store equals an uninterrupted run', async () => {
  const runDir = tinyRun();
  const dir = tempDir();
  const reference = path.join(dir, 'reference.sqlite');
  await evaluateGrid({
    storePath: reference, run: path.basename(runDir), runModel: path.resolve(runDir),
    checkpoints: discoverCheckpoints(runDir).checkpoints,
    testSets: await resolveTestSets([SUITE_ARG], { synthSeed: 3, synthSize: SIZE }),
    variants: promptVariants(), batchExamples: 8,
  });

  const killed = path.join(dir, 'killed.sqlite');
  const child = spawn(process.execPath, cliArgs(runDir, killed), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let atKill = 0;
  for (let i = 0; i < 3000 && child.exitCode === null; i++) {
    atKill = cachedRows(killed);
    if (atKill >= 16) break;
    await sleep(10);
  }
  child.kill('SIGKILL');
  const code = await exited;
  assert.equal(code, null, `the child was killed, not finished (stderr: ${stderr})`);
  const kept = cachedRows(killed);
  assert.ok(kept >= 16 && kept < TOTAL, `killed half-way: ${kept} of ${TOTAL} answers stored`);

  // Run again, the same command (in this process, to save a start-up).
  const resumed = await genstudy(cliArgs(runDir, killed).slice(1));
  assert.equal(resumed.code, 0, resumed.stderr);
  const m = /(\d+) from the model .* (\d+) from the cache/.exec(resumed.stderr);
  assert.ok(m, resumed.stderr);
  assert.equal(Number(m[1]) + Number(m[2]), TOTAL);
  assert.ok(Number(m[2]) >= kept, `the answers stored before the kill were reused (${resumed.stderr})`);
  assert.ok(Number(m[1]) <= TOTAL - kept, 'only the rest was asked of the model');
  assert.deepEqual(dumpStore(killed), dumpStore(reference));
  assert.ok(!fs.existsSync(path.join(dir, 'killed.sqlite-journal')));
});
