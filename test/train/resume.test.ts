// A training process killed with SIGKILL mid-run resumes from its last checkpoint and ends with the
// same weights and optimiser state, byte for byte, as a run that was never interrupted.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { listCheckpoints } from '../../src/train/index.ts';
import { repoRoot, tempDir, tinyModelDir } from './helpers.ts';

const child = path.join(repoRoot, 'test/train/kill-child.ts');

function run(model: string, out: string, killAt: number): Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, model, out, String(killAt)], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => { stderr += String(d); });
    p.on('error', reject);
    p.on('close', (status, signal) => resolve({ status, signal, stderr: stderr.slice(-2000) }));
  });
}

test('full fine-tuning killed by SIGKILL after step 5 resumes from checkpoint-3 and ends identical', async () => {
  const model = await tinyModelDir('gpt2', { hidden: 32, layers: 1, seed: 5 });
  const whole = tempDir();
  const killed = tempDir();
  const [a, b] = await Promise.all([run(model, whole, 0), run(model, killed, 5)]);
  assert.equal(a.status, 0, a.stderr);
  assert.equal(b.signal, 'SIGKILL', `the child was to kill itself: ${b.stderr}`);
  assert.deepEqual(listCheckpoints(killed).map((c) => c.step), [0, 3]);
  // A half-built checkpoint, as a kill during a save leaves one: ignored, then cleared.
  fs.mkdirSync(path.join(killed, '.checkpoint-6.tmp-123'));
  fs.writeFileSync(path.join(killed, '.checkpoint-6.tmp-123', 'trainer_state.json'), '{');
  const c = await run(model, killed, 0);
  assert.ok(!fs.existsSync(path.join(killed, '.checkpoint-6.tmp-123')));
  assert.equal(c.status, 0, c.stderr);
  assert.deepEqual(listCheckpoints(killed).map((x) => x.step), [0, 3, 6, 8]);
  for (const f of ['model.safetensors', 'optimizer.safetensors']) {
    assert.deepEqual(fs.readFileSync(path.join(killed, 'checkpoint-8', f)), fs.readFileSync(path.join(whole, 'checkpoint-8', f)), f);
  }
  const state = (d: string) => JSON.parse(fs.readFileSync(path.join(d, 'checkpoint-8/trainer_state.json'), 'utf8'));
  assert.deepEqual(state(killed).log_history.map((e: { loss: number }) => e.loss), state(whole).log_history.map((e: { loss: number }) => e.loss));
});
