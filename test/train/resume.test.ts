// A training process killed with SIGKILL mid-run resumes from its last checkpoint and ends with the
// same weights and optimiser state, byte for byte, as a run that was never interrupted. Only the
// killed runs need a process of their own; the uninterrupted run (made once for the file) and the
// resumes, which start from what the killed process left on disk, run in the test's process.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { listCheckpoints } from '../../src/train/index.ts';
import { repoRoot, tempDir, tinyModelDir } from './helpers.ts';
import { resumeRun } from './resume-run.ts';

const child = path.join(repoRoot, 'test/train/kill-child.ts');

/** Trains in a child that is killed: after step `killAt`, or (`pauseAt`, src/pause-point.ts) when it stops at that point. */
function killed(model: string, out: string, killAt: number,
  pauseAt?: string): Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...(pauseAt ? { GENSTUDY_PAUSE_AT: pauseAt } : {}) };
    const p = spawn(process.execPath, ['--import', 'tsx', child, model, out, String(killAt)],
      { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => {
      stderr += String(d);
      if (pauseAt && stderr.includes(`paused at ${pauseAt}`)) p.kill('SIGKILL');
    });
    p.on('error', reject);
    p.on('close', (status, signal) => resolve({ status, signal, stderr: stderr.slice(-2000) }));
  });
}

/** The model both tests train and the run of it never interrupted, made once. */
let uninterrupted: Promise<{ model: string; whole: string }> | undefined;
function modelAndWhole(): Promise<{ model: string; whole: string }> {
  uninterrupted ??= (async () => {
    const model = await tinyModelDir('gpt2', { hidden: 32, layers: 1, seed: 5 });
    const whole = tempDir();
    await resumeRun(model, whole);
    return { model, whole };
  })();
  return uninterrupted;
}

test('full fine-tuning killed by SIGKILL after step 5 resumes from checkpoint-3 and ends identical', async () => {
  const { model, whole } = await modelAndWhole();
  const out = tempDir();
  const b = await killed(model, out, 5);
  assert.equal(b.signal, 'SIGKILL', `the child was to kill itself: ${b.stderr}`);
  assert.deepEqual(listCheckpoints(out).map((c) => c.step), [0, 3]);
  // A half-built checkpoint, as a kill during a save leaves one: ignored, then cleared.
  fs.mkdirSync(path.join(out, '.checkpoint-6.tmp-123'));
  fs.writeFileSync(path.join(out, '.checkpoint-6.tmp-123', 'trainer_state.json'), '{');
  await resumeRun(model, out);
  assert.ok(!fs.existsSync(path.join(out, '.checkpoint-6.tmp-123')));
  assert.deepEqual(listCheckpoints(out).map((x) => x.step), [0, 3, 6, 8]);
  for (const f of ['model.safetensors', 'optimizer.safetensors']) {
    assert.deepEqual(fs.readFileSync(path.join(out, 'checkpoint-8', f)), fs.readFileSync(path.join(whole, 'checkpoint-8', f)), f);
  }
  const state = (d: string) => JSON.parse(fs.readFileSync(path.join(d, 'checkpoint-8/trainer_state.json'), 'utf8'));
  assert.deepEqual(state(out).log_history.map((e: { loss: number }) => e.loss), state(whole).log_history.map((e: { loss: number }) => e.loss));
});

test('killed while checkpoint-6 is being written (weights written, optimiser not; complete but not renamed): resumes from checkpoint-3 and ' +
  'ends identical', async () => {
  const { model, whole } = await modelAndWhole();
  for (const point of ['checkpoint-6:weights-written', 'checkpoint-6:before-rename']) {
    const out = tempDir();
    const b = await killed(model, out, 0, point);
    assert.equal(b.signal, 'SIGKILL', `${point}: ${b.stderr}`);
    assert.deepEqual(listCheckpoints(out).map((c) => c.step), [0, 3], point);
    assert.ok(!fs.existsSync(path.join(out, 'checkpoint-6')), `${point}: no checkpoint-6 folder`);
    assert.equal(fs.readdirSync(out).filter((n) => n.startsWith('.checkpoint-6.') && n.endsWith('.tmp')).length, 1,
      `${point}: the half-written folder is there`);
    await resumeRun(model, out);
    assert.deepEqual(listCheckpoints(out).map((x) => x.step), [0, 3, 6, 8], point);
    assert.deepEqual(fs.readdirSync(out).filter((n) => n.includes('.tmp')), [], `${point}: cleared`);
    for (const f of ['model.safetensors', 'optimizer.safetensors']) {
      for (const step of [6, 8]) {
        assert.deepEqual(fs.readFileSync(path.join(out, `checkpoint-${step}`, f)), fs.readFileSync(path.join(whole, `checkpoint-${step}`, f)),
          `${point}: checkpoint-${step}/${f}`);
      }
    }
  }
});
