// npm run bench -- <name> [<name> ...]: runs the named benchmarks (all when none is named) and
// prints what each measured. Each bench module exports one async function returning its numbers;
// comparisons with reference implementations (numpy/scipy, PyTorch) run inside that function, on
// the same machine in the same run.
const BENCHES: Record<string, { module: string; fn: string }> = {
  analyze: { module: './analyze.ts', fn: 'benchAnalyze' },
  calibration: { module: './calibration.ts', fn: 'benchCalibration' },
  'uneven-spacing': { module: './uneven-spacing.ts', fn: 'benchUnevenSpacing' },
  realistic: { module: './realistic.ts', fn: 'benchRealistic' },
  'simex-leftover': { module: './simex-leftover.ts', fn: 'benchSimexLeftover' },
  'bootstrap-coverage': { module: './bootstrap-coverage.ts', fn: 'benchBootstrapCoverage' },
  data: { module: './data.ts', fn: 'benchData' },
  stats: { module: './stats.ts', fn: 'benchStats' },
  metrics: { module: './metrics.ts', fn: 'benchMetrics' },
  engine: { module: './engine.ts', fn: 'benchEngine' },
  train: { module: './train.ts', fn: 'benchTrain' },
  'train-hf': { module: './train-hf.ts', fn: 'benchTrainHf' },
  evaluate: { module: './evaluate.ts', fn: 'benchEvaluate' },
  remote: { module: './remote.ts', fn: 'benchRemote' },
  'serve-churn': { module: './serve-churn.ts', fn: 'benchServeChurn' },
  'demo-eta': { module: './demo-eta.ts', fn: 'benchDemoEta' },
  'report-scale': { module: './report-scale.ts', fn: 'benchReportScale' },
  'read-scale': { module: './read-scale.ts', fn: 'benchReadScale' },
  'analyze-scale': { module: './analyze-scale.ts', fn: 'benchAnalyzeScale' },
  'objective-jitter': { module: './objective-jitter.ts', fn: 'benchObjectiveJitter' },
  tokenize: { module: './tokenize.ts', fn: 'benchTokenize' },
};

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(BENCHES);
for (const name of names) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}`);
    process.exitCode = 2;
    continue;
  }
  const mod = (await import(bench.module)) as Record<string, () => Promise<Record<string, number | string>>>;
  console.log(`# ${name}`);
  const results = await mod[bench.fn]();
  for (const [k, v] of Object.entries(results)) console.log(`${k}\t${typeof v === 'number' ? +v.toPrecision(4) : v}`);
}
