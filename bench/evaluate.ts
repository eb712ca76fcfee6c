// Benchmark of the evaluation grid: how much the grid (planning, cache keys, cache reads and
// writes, metrics, store transactions) adds to the engine's own time, and how fast a fully cached
// rerun is. Tiny random GPT-2 checkpoints over the synthetic suite, so the engine is cheap and the
// grid's overhead shows. Run alone: node --import tsx bench/evaluate.ts
// (to add it to `npm run bench`: evaluate: { module: './evaluate.ts', fn: 'benchEvaluate' } in bench/run.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { discoverCheckpoints, evaluateGrid, promptVariants, resolveTestSets } from '../src/evaluate/index.ts';
import { loadModel } from '../src/engine/index.ts';
import { buildFirstTokenRequests, syntheticTask } from '../src/tasks/index.ts';
import { suiteVocabulary } from '../src/synth/index.ts';
import { writeTinyRun } from '../test/evaluate/tiny-model.ts';

const SETS = 'synthetic:in-domain,overlap-consistent,overlap-broken,negation-consistent,negation-broken';

export async function benchEvaluate(): Promise<Record<string, number | string>> {
  const size = Number(process.env.BENCH_EVAL_SIZE ?? 100);
  const steps = [0, 100, 200, 300, 400];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genstudy-bench-evaluate-'));
  try {
    const runDir = path.join(dir, 'run');
    writeTinyRun(runDir, { vocabulary: suiteVocabulary(syntheticTask()), seed: 1 }, steps);
    const { checkpoints } = discoverCheckpoints(runDir);
    const testSets = await resolveTestSets([SETS], { synthSeed: 1, synthSize: size });
    const examples = checkpoints.length * testSets.length * size;

    // The engine alone: load each checkpoint and answer all its requests in one call.
    const task = syntheticTask();
    const requests = testSets.flatMap((s) => buildFirstTokenRequests(task, s.examples));
    const engineOnly = async (): Promise<number> => {
      const start = performance.now();
      for (const cp of checkpoints) {
        const m = await loadModel(cp.dir);
        await m.firstTokenLogprobs(requests.map((r) => r.context), requests[0].candidates);
        m.dispose();
      }
      return (performance.now() - start) / 1000;
    };
    // Warm-up: the backend starts and kernels compile on first use.
    const warmModel = await loadModel(checkpoints[0].dir);
    await warmModel.firstTokenLogprobs(requests.slice(0, 8).map((r) => r.context), requests[0].candidates);
    warmModel.dispose();
    const engineBefore = await engineOnly();

    const storePath = path.join(dir, 'results.sqlite');
    const run = () => evaluateGrid({ storePath, run: 'bench', checkpoints, testSets, variants: promptVariants() });
    let t = performance.now();
    const cold = await run();
    const coldSeconds = (performance.now() - t) / 1000;
    // Engine-only again after the grid, so drift in machine load shows as a spread, not as overhead.
    const engineSeconds = (engineBefore + (await engineOnly())) / 2;
    t = performance.now();
    const warm = await run();
    const warmSeconds = (performance.now() - t) / 1000;
    if (warm.computed !== 0) throw new Error('the cached rerun did model work');
    return {
      examples,
      engine_only_s: engineSeconds,
      engine_only_spread_s: Math.abs(engineBefore - (2 * engineSeconds - engineBefore)),
      grid_cold_s: coldSeconds,
      grid_cold_examples_per_s: cold.computed / coldSeconds,
      grid_overhead_pct: (100 * (coldSeconds - engineSeconds)) / engineSeconds,
      grid_cached_rerun_s: warmSeconds,
      grid_cached_examples_per_s: examples / warmSeconds,
      engine_calls_cold: cold.engineCalls,
      store_mb: fs.statSync(storePath).size / 1e6,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = await benchEvaluate();
  for (const [k, v] of Object.entries(results)) console.log(`${k}\t${typeof v === 'number' ? +v.toPrecision(4) : v}`);
}
