import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { promptVariants, resolveTestSets } from '../../src/evaluate/index.ts';
import { builtinLoader } from '../../src/engine/index.ts';
import { watchRun, type WatchRound } from '../../src/pipeline/watch.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { suiteVocabulary } from '../../src/synth/index.ts';
import { syntheticTask } from '../../src/tasks/index.ts';
import { writeTinyRun } from '../evaluate/tiny-model.ts';
import { SUITE_ARG, tempDir } from '../evaluate/helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';

const VOCAB = suiteVocabulary(syntheticTask());

/** Writes checkpoint-<step> as a trainer does: into a temporary folder, then renamed into place. */
function writeCheckpoint(runDir: string, step: number): void {
  const staging = tempDir('genstudy-watch-staging-');
  writeTinyRun(staging, { vocabulary: VOCAB, seed: 9 }, [step]);
  fs.renameSync(path.join(staging, `step-${step}`), path.join(runDir, `checkpoint-${step}`));
}

function storedSteps(storePath: string, run = 'watched'): number[] {
  const store = ResultStore.open(storePath, { readonly: true });
  try {
    return [...new Set(store.scores({ run }).map((s) => s.step))].sort((a, b) => a - b);
  } finally {
    store.close();
  }
}

test('watch evaluates a checkpoint that appears while it runs, ignores an incomplete one, and refreshes analysis and report', async () => {
  const runDir = path.join(tempDir(), 'trainer-out');
  fs.mkdirSync(runDir);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const outDir = path.join(tempDir(), 'watch-out');
  const testSets = (await resolveTestSets([SUITE_ARG], { synthSeed: 2, synthSize: 6 }));
  const base = { storePath, run: 'watched', testSets, variants: promptVariants(), loader: builtinLoader(), outDir, control: 'in-domain' };

  const controller = new AbortController();
  const rounds: WatchRound[] = [];
  let wrote = false;
  const result = await watchRun({
    ...base, runDir, intervalMs: 100, signal: controller.signal,
    onRound: (round) => {
      rounds.push(round);
      if (!wrote) {
        wrote = true;
        // An incomplete checkpoint (a trainer still writing it without a temporary name) and a complete one.
        fs.mkdirSync(path.join(runDir, 'checkpoint-200'));
        fs.writeFileSync(path.join(runDir, 'checkpoint-200', 'config.json'), '{}');
        fs.mkdirSync(path.join(runDir, 'tmp-checkpoint-300'));
        writeCheckpoint(runDir, 100);
      }
      if (round.evaluated.length > 0) controller.abort();
    },
  });
  assert.equal(rounds[0].evaluated.length, 0, 'nothing to evaluate at first');
  assert.deepEqual(result.evaluatedSteps, [100]);
  assert.ok(rounds.at(-1)!.waiting.some((w) => new RegExp(
    /checkpoint-200: incomplete checkpoint \(no weights \(model\.safetensors or model\.safetensors\.index\.json\)\); /.source +
    /left for a later round$/.source).test(w)), rounds.at(-1)!.waiting.join('\n'));
  assert.ok(!rounds.some((r) => r.waiting.some((w) => w.includes('tmp-checkpoint-300'))));
  assert.deepEqual(storedSteps(storePath), [100]);
  assert.match(rounds.at(-1)!.analysisSkipped ?? '', /checkpoints|needs at least/);

  // The trainer goes on; a restarted watcher (--once) evaluates only what is new: 100 comes from the cache.
  fs.rmSync(path.join(runDir, 'checkpoint-200'), { recursive: true });
  for (const step of [200, 300, 400, 500]) writeCheckpoint(runDir, step);
  const again: WatchRound[] = [];
  await watchRun({ ...base, runDir, once: true, onRound: (r) => again.push(r) });
  assert.equal(again.length, 1);
  assert.deepEqual(again[0].evaluated, [100, 200, 300, 400, 500]);
  const perCheckpoint = again[0].summary!.examples / 5;
  assert.equal(again[0].summary!.cached, perCheckpoint, 'step 100 answered from the cache');
  assert.equal(again[0].summary!.computed, 4 * perCheckpoint);
  assert.deepEqual(storedSteps(storePath), [100, 200, 300, 400, 500]);
  assert.ok(again[0].analysis, again[0].analysisSkipped);
  assert.equal(again[0].analysis.runs[0].control_noise?.error_covariance, true, 'the control\'s errors\' covariance from the stored answers');
  assert.deepEqual(again[0].analysisNotes, []);
  assert.ok(fs.existsSync(path.join(outDir, 'analysis.json')));
  assert.ok(fs.existsSync(path.join(outDir, 'report', 'report.html')));
});

test('genstudy watch --once from the command line; bad intervals and folders are refused clearly', async () => {
  const runDir = path.join(tempDir(), 'cli-run');
  fs.mkdirSync(runDir);
  writeCheckpoint(runDir, 10);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const ok = await genstudy(['watch', runDir, '--test-set', 'synthetic:in-domain', '--synthetic-size', '4', '--store', storePath, '--once']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stderr, /evaluated steps 10/);
  const bad = await genstudy(['watch', runDir, '--test-set', 'synthetic:in-domain', '--store', storePath, '--interval', '0.001']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--interval 0\.001: expected a number in \[0\.1, 3600\]/);
  const missing = await genstudy(['watch', path.join(runDir, 'nope'), '--test-set', 'synthetic:in-domain', '--store', storePath, '--once']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope: no such folder/);
  await assert.rejects(watchRun({ runDir, storePath, run: 'x', testSets: [], variants: promptVariants(), intervalMs: 5 }), /interval 0\.005 s/);
});

test('genstudy watch as a process stops cleanly on SIGINT', async () => {
  const { spawn } = await import('node:child_process');
  const runDir = path.join(tempDir(), 'signal-run');
  fs.mkdirSync(runDir);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const child = spawn(process.execPath,
    ['bin/genstudy.js', 'watch', runDir, '--test-set', 'synthetic:in-domain', '--synthetic-size', '4', '--store', storePath, '--interval', '0.2'], {
    cwd: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..'), stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => { stderr += c.toString(); });
  // Let it look at the folder a few times, then interrupt it.
  writeCheckpoint(runDir, 5);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no evaluation within 60 s: ${stderr}`)), 60_000);
    const poll = setInterval(() => {
      if (/evaluated step 5/.test(stderr)) { clearInterval(poll); clearTimeout(timer); resolve(); }
    }, 50);
  });
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  assert.equal(code, 0, stderr);
  assert.match(stderr, /stopping after this round/);
  assert.match(stderr, /round\(s\); evaluated steps 5/);
  assert.deepEqual(storedSteps(storePath, 'signal-run'), [5]);
});

test('PEFT layout: adapter checkpoints are evaluated on their base, a half-written adapter waits', async () => {
  const { loadModel } = await import('../../src/engine/index.ts');
  const { LoraAdapters } = await import('../../src/engine/builtin/lora.ts');
  const baseDir = path.join(tempDir(), 'base');
  writeTinyRun(baseDir, { vocabulary: VOCAB, seed: 4 }, [0]);
  const base = path.join(baseDir, 'step-0');
  const runDir = path.join(tempDir(), 'peft-run');
  fs.mkdirSync(runDir);
  const model = await loadModel(base);
  for (const step of [50, 60]) {
    const adapters = LoraAdapters.create(model, { r: 2, alpha: 4, dropout: 0, targetModules: ['c_attn'] }, step);
    await adapters.save(path.join(runDir, `checkpoint-${step}`), base);
    adapters.dispose();
  }
  model.dispose();
  // checkpoint-60's weights cut short, as a copy still in progress leaves them.
  const file = path.join(runDir, 'checkpoint-60', 'adapter_model.safetensors');
  fs.truncateSync(file, fs.statSync(file).size - 16);
  const storePath = path.join(tempDir(), 'results.sqlite');
  const rounds: WatchRound[] = [];
  await watchRun({
    runDir, storePath, run: 'watched', testSets: await resolveTestSets(['synthetic:in-domain'], { synthSeed: 1, synthSize: 4 }),
    variants: promptVariants(), once: true, onRound: (r) => rounds.push(r),
  });
  assert.deepEqual(rounds[0].evaluated, [50]);
  assert.match(rounds[0].waiting.join('\n'),
    /checkpoint-60: incomplete checkpoint \(LoRA adapter: adapter_model\.safetensors is shorter than its header says/);
  assert.deepEqual(storedSteps(storePath), [50]);
});
