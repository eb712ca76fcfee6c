// A FIFO, a socket or a link to nothing under a score file's name in a results folder is named in a
// note and never opened: opening a FIFO would wait for a writer forever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { listScoreFolder } from '../../src/analyze/score-folder.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { repoRoot, tempDir } from './helpers.ts';

const fixture = join(repoRoot, 'test/analyze/fixtures/lm-eval-04');

/** Makes a FIFO at `path`; false where mkfifo is not available. */
function mkfifo(path: string): boolean {
  const r = spawnSync('mkfifo', [path]);
  return r.error === undefined && r.status === 0;
}

/** genstudy in a child, killed after `ms` (a hang fails the test rather than stopping it). */
function genstudyWithin(ms: number, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; killed: boolean }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(repoRoot, 'bin/genstudy.js'), ...args], { cwd: repoRoot, timeout: ms, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => resolve({
        code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr, killed: err?.killed ?? false,
      }));
  });
}

test('analyze names a FIFO called results_x.json in an lm-eval folder and reads the rest, instead of hanging', async (t) => {
  const dir = tempDir(t);
  const folder = join(dir, 'lm-eval');
  cpSync(fixture, folder, { recursive: true });
  const fifo = join(folder, '__scratch__me__runs__llama-7b-mnli__checkpoint-500', 'results_x.json');
  if (!mkfifo(fifo)) {
    t.skip('mkfifo is not available here');
    return;
  }
  const args = (input: string) => ['analyze', input, '--control', 'mnli', '--format', 'json', '--bootstrap', '0', '--calibration', '0'];
  const r = await genstudyWithin(120_000, args(folder));
  assert.ok(!r.killed, `analyze hung on the FIFO: ${r.stderr}`);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stderr.includes(`note: ${fifo}: a FIFO (named pipe), not a regular file; not opened`), r.stderr);
  // the folder without the FIFO cannot hang: it is analysed in this process
  const plain = await genstudy(args(fixture));
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(JSON.parse(r.stdout).runs, JSON.parse(plain.stdout).runs, 'the same analysis as without the FIFO');
});

test('the folder listing skips sockets and links to nothing with a note, and follows a link to a file', async (t) => {
  const dir = tempDir(t);
  const sub = join(dir, 'step-1');
  mkdirSync(sub);
  cpSync(join(fixture, '__scratch__me__runs__llama-7b-mnli__checkpoint-0', 'results_2026-12-01T13-16-21.544951.json'), join(sub, 'real.json'));
  symlinkSync(join(sub, 'real.json'), join(sub, 'results_link.json'));
  symlinkSync(join(sub, 'gone.json'), join(sub, 'results_gone.json'));
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(join(sub, 'results_sock.json'), resolve));
  t.after(() => server.close());
  const listing = await listScoreFolder(dir);
  assert.deepEqual(listing.jsonFiles, [join(sub, 'real.json'), join(sub, 'results_link.json')]);
  assert.deepEqual(listing.notes, [
    `${join(sub, 'results_gone.json')}: a link to nothing, not a regular file; not opened`,
    `${join(sub, 'results_sock.json')}: a socket, not a regular file; not opened`,
  ]);
});
