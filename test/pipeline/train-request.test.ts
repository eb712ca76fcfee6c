// `genstudy train` is flags in and a summary out: what it trains is what the library's
// trainRequested trains from the same request (the same checkpoints, bit for bit, the same training
// log and run record), on the built-in trainer and on the hf backend alike; and trainRequested goes
// through the trainRun a study's runs go through. In this process: the command through main().
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { trainRequested, type TrainRequest } from '../../src/pipeline/train-request.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { LORA_DEFAULTS, silentProgress, TRAINING_DEFAULTS } from '../../src/train/index.ts';
import { repoRoot, tempDir } from '../train/helpers.ts';

/** `genstudy <args>` in this process: its exit code and what it wrote. */
async function genstudy(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const got = { stdout: '', stderr: '' };
  const { write: out } = process.stdout;
  const { write: err } = process.stderr;
  // The command writes text; the test runner's own messages to its parent (bytes) pass through.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (typeof chunk !== 'string') return (out as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
    got.stdout += chunk;
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => { got.stderr += String(chunk); return true; }) as typeof process.stderr.write;
  try {
    return { status: await main(args), ...got };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

const checkpointNames = (dirs: string[]) => dirs.map((d) => path.basename(d));

/**
 * Every file under `dir` (relative path -> content as latin1 text, so bytes compare exactly), with the
 * folder's path written as <out> and its name as <name> (configs and scripts name where they are), and
 * the training log's speed left out (wall-clock time).
 */
function filesUnder(dir: string, skip: RegExp = /$^/): Map<string, string> {
  const out = new Map<string, string>();
  for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const file = path.join(dir, rel);
    if (!fs.statSync(file).isFile() || skip.test(rel)) continue;
    out.set(rel, fs.readFileSync(file).toString('latin1').replaceAll(dir, '<out>').replaceAll(path.basename(dir), '<name>')
      .replace(/"tokensPerSecond": [^,\n]+/g, ''));
  }
  return out;
}

test('genstudy train and trainRequested, given the same request, train the same run (init model, LoRA, FTICL, a store)', async () => {
  const cliOut = tempDir('genstudy-train-cli-');
  const libOut = tempDir('genstudy-train-lib-');
  const cli = await genstudy(['train', '--data', 'synthetic', '--synthetic-size', '16', '--init', 'gpt2', '--init-hidden', '16', '--init-layers', '1',
    '--method', 'lora', '--lora-r', '2', '--lora-alpha', '4', '--fticl-k', '1', '--lr', '1e-2', '--steps', '2', '--batch-size', '4',
    '--save-every', '1', '--out', cliOut, '--store', path.join(cliOut, 'results.sqlite'), '--run', 'r', '--format', 'json']);
  assert.equal(cli.status, 0, cli.stderr);
  const printed = JSON.parse(cli.stdout);

  const request: TrainRequest = {
    base: { init: { family: 'gpt2', hidden: 16, layers: 1 } }, data: 'synthetic', synthetic: { seed: 1, trainSize: 16 },
    fticl: { k: 1 },
    // The defaults the command's flags fill in (LoRA's dropout, the seed) are the option tables'.
    settings: { method: 'lora', lora: { r: 2, alpha: 4, dropout: LORA_DEFAULTS.dropout }, lr: 1e-2, maxSteps: 2, batchSize: 4,
      seed: TRAINING_DEFAULTS.seed, checkpoints: { every: 1 } },
    out: libOut, store: path.join(libOut, 'results.sqlite'), run: 'r', backend: { kind: 'builtin' }, progress: silentProgress,
  };
  const lib = await trainRequested(request);
  assert.equal(lib.backend, 'builtin');
  if (lib.backend !== 'builtin') return;
  assert.deepEqual(
    { out: libOut, steps: lib.trained.steps, resumedFrom: lib.trained.resumedFrom ?? null, finalLoss: lib.trained.log.at(-1)?.loss ?? null,
      checkpoints: checkpointNames(lib.trained.checkpoints.map((c) => c.dir)) },
    { ...printed, out: libOut, checkpoints: checkpointNames(printed.checkpoints) },
    'the command prints what the library returns',
  );
  assert.deepEqual(checkpointNames(printed.checkpoints), ['checkpoint-0', 'checkpoint-1', 'checkpoint-2']);
  // The same folders, byte for byte: the suite, the from-scratch model, every checkpoint (the store and its journal aside).
  const cliFiles = filesUnder(cliOut, /^results\.sqlite/);
  const libFiles = filesUnder(libOut, /^results\.sqlite/);
  assert.deepEqual([...libFiles.keys()], [...cliFiles.keys()]);
  for (const [rel, content] of cliFiles) assert.ok(content === libFiles.get(rel), `${rel} differs`);
  const recorded = (dir: string) => {
    const store = ResultStore.open(path.join(dir, 'results.sqlite'), { readonly: true });
    try {
      // The run's model is the from-scratch one in the out folder, named alike in both.
      const log = store.trainingLog('r').map(({ tokensPerSecond: _speed, ...entry }) => entry);
      return JSON.parse(JSON.stringify({ log, run: store.runs().find((r) => r.id === 'r') }).replaceAll(dir, '<out>'));
    } finally {
      store.close();
    }
  };
  assert.deepEqual(recorded(libOut), recorded(cliOut));
  assert.equal(recorded(libOut).log.length, 2);
});

test('genstudy train --backend hf and trainRequested prepare the same Trainer run (SLURM script written, not submitted)', async () => {
  const model = path.join(repoRoot, 'test/engine/fixtures/opt');
  const cliOut = tempDir('genstudy-train-hf-cli-');
  const libOut = tempDir('genstudy-train-hf-lib-');
  const cli = await genstudy(['train', '--backend', 'hf', '--launcher', 'slurm', '--no-submit', '--processes', '2', '--model', model,
    '--data', 'synthetic', '--synthetic-size', '12', '--lr', '1e-4', '--steps', '4', '--grad-accum', '2', '--out', cliOut, '--format', 'json']);
  assert.equal(cli.status, 0, cli.stderr);
  const printed = JSON.parse(cli.stdout);
  const lib = await trainRequested({
    base: { model }, data: 'synthetic', synthetic: { seed: 1, trainSize: 12 },
    settings: { method: 'full', lr: 1e-4, maxSteps: 4, gradAccum: 2, seed: TRAINING_DEFAULTS.seed, checkpoints: { atStart: true } },
    out: libOut, backend: { kind: 'hf', launch: { launcher: 'slurm', processes: 2, noSubmit: true } },
  });
  assert.equal(lib.backend, 'hf');
  if (lib.backend !== 'hf') return;
  assert.deepEqual([printed.backend, printed.finished, printed.steps], ['hf', lib.trained.finished, lib.trained.prepared.totalSteps]);
  // The same files: the prepared examples and order byte for byte, the run file and the batch script but for
  // the folder's name (and the fingerprint, which covers it).
  const named = (dir: string) => new Map([...filesUnder(dir)].map(([rel, content]) => [rel, content.replace(/"fingerprint": "\w+"/, '')]));
  assert.deepEqual(named(libOut), named(cliOut));
});

test('trainRequested refuses an init model on a data set other than the suite, before writing anything', async () => {
  const out = path.join(tempDir('genstudy-train-lib-'), 'never');
  await assert.rejects(trainRequested({
    base: { init: { family: 'gpt2' } }, data: 'study-a/rte:train', settings: { method: 'full', lr: 1e-3 }, out, backend: { kind: 'builtin' },
  }), /--init builds a model for the synthetic suite's vocabulary; use it with --data synthetic/);
  assert.ok(!fs.existsSync(out));
});
