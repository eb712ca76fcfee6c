// The store and the checkpoint folders agree after any kill: a folder renamed into place whose store
// row was never written (the process killed while another process held the store's write lock) is
// recorded by the resume; a resume from checkpoint-0 leaves it untouched and lists it once; a folder
// being replaced is never left half-deleted. GENSTUDY_PAUSE_AT (src/pause-point.ts) stops the child
// at the named moment so that each kill lands there every time. Only the killed runs need a process
// of their own: the others, which start from what a killed process left, run in the test's process.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ResultStore } from '../../src/store/result-store.ts';
import { listCheckpoints } from '../../src/train/index.ts';
import { repoRoot, tempDir, tinyModelDir } from './helpers.ts';
import { storeRun } from './store-run.ts';

const child = path.join(repoRoot, 'test/train/store-child.ts');

interface Done { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Starts the training child; `onPause` runs once it says it stopped at `pauseAt`. */
function trainChild(args: string[], pauseAt?: string, onPause?: (p: ChildProcess) => void, extraEnv: Record<string, string> = {}): Promise<Done> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...(pauseAt ? { GENSTUDY_PAUSE_AT: pauseAt } : {}), ...extraEnv };
    const p = spawn(process.execPath, ['--import', 'tsx', child, ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let paused = false;
    p.stdout.on('data', (d) => { stdout += String(d); });
    p.stderr.on('data', (d) => {
      stderr += String(d);
      if (pauseAt && !paused && stderr.includes(`paused at ${pauseAt}`)) {
        paused = true;
        (onPause ?? ((q) => q.kill('SIGKILL')))(p);
      }
    });
    p.on('error', reject);
    p.on('close', (status, signal) => resolve({ status, signal, stdout, stderr: stderr.slice(-3000) }));
  });
}

/** Another process holding the store's write lock (BEGIN IMMEDIATE) until `release` is called. */
async function holdWriteLock(storeFile: string): Promise<{ release: () => Promise<void> }> {
  const code = `
    import Database from 'better-sqlite3';
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.resume();
    process.stdin.on('end', () => { db.exec('COMMIT'); db.close(); });`;
  const p = spawn(process.execPath, ['--input-type=module', '-e', code, storeFile], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    p.stdout.on('data', (d) => { if (String(d).includes('locked')) resolve(); });
    p.on('error', reject);
    p.on('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
  return {
    release: () => new Promise<void>((resolve) => {
      p.removeAllListeners('exit');
      p.on('exit', () => resolve());
      p.stdin.end();
    }),
  };
}

function storedSteps(storeFile: string): number[] {
  const store = ResultStore.open(storeFile, { readonly: true });
  try {
    return store.checkpoints('r').map((c) => c.step);
  } finally {
    store.close();
  }
}

/**
 * Resolves once `file` exists, or once process `p` has ended (the test then reports how it ended):
 * on the file system's events for the file's folder, each checked against the file itself, so a
 * missed or merged event costs nothing; no timer.
 */
function appears(file: string, p: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = fs.watch(path.dirname(file));
    const stop = () => {
      watcher.close();
      p.off('exit', stop);
      resolve();
    };
    const look = () => { if (fs.existsSync(file)) stop(); };
    watcher.on('change', look);
    watcher.on('error', (err) => { watcher.close(); reject(err); });
    p.once('exit', stop);
    look();
  });
}

test('killed between renaming checkpoint-3 into place and writing its row (store locked by another process): the resume records it', async () => {
  const model = await tinyModelDir('gpt2', { hidden: 32, layers: 1, seed: 5 });
  const out = tempDir();
  const storeFile = path.join(tempDir(), 'store.sqlite');
  let lock: { release: () => Promise<void> } | undefined;
  // Stopped before the rename: lock the store, let the child rename and block on its row, kill it
  // there. The child waits for the lock until it is killed (its busy timeout longer than any run), so
  // however long the rename takes to be seen, the kill lands while the row is unwritten.
  const killed = await trainChild([model, out, storeFile], 'checkpoint-3:before-rename', (p) => {
    void (async () => {
      lock = await holdWriteLock(storeFile);
      const renamed = appears(path.join(out, 'checkpoint-3'), p);
      p.kill('SIGCONT');
      await renamed;
      p.kill('SIGKILL');
    })();
  }, { GENSTUDY_BUSY_TIMEOUT_MS: String(24 * 3600_000) });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  await lock!.release();
  assert.deepEqual(listCheckpoints(out).map((c) => c.step), [0, 3]);
  assert.deepEqual(storedSteps(storeFile), [0], 'the reproduction: checkpoint-3 on disk, not in the store');

  await storeRun(model, out, storeFile);
  assert.deepEqual(listCheckpoints(out).map((c) => c.step), [0, 3, 6, 8]);
  assert.deepEqual(storedSteps(storeFile), [0, 3, 6, 8], 'the store lists every checkpoint on disk');
  const store = ResultStore.open(storeFile, { readonly: true });
  try {
    assert.deepEqual(store.checkpoints('r').map((c) => c.path), [0, 3, 6, 8].map((s) => path.resolve(out, `checkpoint-${s}`)));
  } finally {
    store.close();
  }
});

test('a run resumed from checkpoint-0 leaves checkpoint-0 as it was and lists each checkpoint once', async () => {
  const model = await tinyModelDir('gpt2', { hidden: 32, layers: 1, seed: 5 });
  const out = tempDir();
  const storeFile = path.join(tempDir(), 'store.sqlite');
  const first = await trainChild([model, out, storeFile], 'checkpoint-3:weights-written');
  assert.equal(first.signal, 'SIGKILL', first.stderr);
  assert.deepEqual(listCheckpoints(out).map((c) => c.step), [0]);
  const zero = path.join(out, 'checkpoint-0');
  const before = new Map(fs.readdirSync(zero).map((f) => [f, fs.statSync(path.join(zero, f)).ino]));
  const folderInode = fs.statSync(zero).ino;

  assert.deepEqual(await storeRun(model, out, storeFile), [0, 3, 6, 8], 'the summary lists checkpoint-0 once');
  assert.equal(fs.statSync(zero).ino, folderInode, 'checkpoint-0 was not replaced');
  assert.deepEqual(new Map(fs.readdirSync(zero).map((f) => [f, fs.statSync(path.join(zero, f)).ino])), before, 'no file of checkpoint-0 rewritten');
  assert.deepEqual(storedSteps(storeFile), [0, 3, 6, 8]);
});

test('killed while replacing checkpoint-0 (old folder moved aside, new not yet in): the old folder comes back whole', async () => {
  const model = await tinyModelDir('gpt2', { hidden: 32, layers: 1, seed: 5 });
  const out = tempDir();
  const storeFile = path.join(tempDir(), 'store.sqlite');
  await storeRun(model, out, storeFile);
  const original = fs.readFileSync(path.join(out, 'checkpoint-0', 'model.safetensors'));

  const replacing = await trainChild([model, out, storeFile, 'no-resume'], 'checkpoint-0:old-aside');
  assert.equal(replacing.signal, 'SIGKILL', replacing.stderr);
  // No half folder at any moment: checkpoint-0 is absent (its old copy aside), never a remnant.
  assert.ok(!fs.existsSync(path.join(out, 'checkpoint-0')), 'checkpoint-0 moved aside whole');
  assert.equal(fs.readdirSync(out).filter((n) => n.startsWith('.checkpoint-0.') && n.endsWith('.old.tmp')).length, 1);

  await storeRun(model, out, storeFile);
  assert.deepEqual(listCheckpoints(out).map((c) => c.step), [0, 3, 6, 8]);
  for (const f of ['config.json', 'model.safetensors', 'trainer_state.json', 'optimizer.safetensors']) {
    assert.ok(fs.existsSync(path.join(out, 'checkpoint-0', f)), `checkpoint-0/${f}`);
  }
  assert.deepEqual(fs.readFileSync(path.join(out, 'checkpoint-0', 'model.safetensors')), original);
  assert.deepEqual(fs.readdirSync(out).filter((n) => n.includes('.tmp')), [], 'no temporaries left');
});
