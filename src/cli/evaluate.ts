// genstudy evaluate: the checkpoint x test set x prompt variant grid into the results store, with
// every engine answer cached per example (see src/evaluate/grid.ts).
import path from 'node:path';
import { Command, Option } from 'commander';
import { remoteLoader } from '../engine/remote/index.ts';
import { UserError } from '../errors.ts';
import { ResultStore } from '../store/result-store.ts';
import { discoverCheckpoints, evaluateGrid, parseNumberList, progressFor, promptVariants, resolveTestSets, storedCheckpoints, stepOfFolder, type Discovered, type GridSummary } from '../evaluate/index.ts';
import { builtinLoader } from '../engine/index.ts';

interface EvaluateFlags {
  model?: string; baseModel?: string; tokenizer?: string; testSet: string[]; task?: string; prompt?: string; shots?: string; scoring?: 'first-token' | 'full-word';
  positiveLabel?: string; limit?: string; store: string; run?: string; dataDir?: string; rougeStemmer?: boolean;
  synthSeed?: string; synthSize?: string; demoSeed?: string; batchExamples: string; batchTokens?: string; format: 'table' | 'json'; remote?: string[]; remoteModel?: string;
}

function wholeNumber(flag: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new UserError(`${flag} ${value}: expected a whole number >= ${min}`);
  return n;
}

/** The run a model folder belongs to: its own name, or its parent's when it is a step-N folder. */
function defaultRunName(dir: string): string {
  const abs = path.resolve(dir);
  return stepOfFolder(path.basename(abs)) !== undefined ? path.basename(path.dirname(abs)) : path.basename(abs);
}

const HEADLINE = ['accuracy', 'f1', 'macro_f1', 'acc_norm', 'rouge1_f', 'rouge2_f', 'rougeL_f', 'rougeLsum_f', 'exact_match'];

export function formatSummary(summary: GridSummary): string {
  const metrics = HEADLINE.filter((m) => summary.scores.some((s) => s.metric === m || s.metric === m.replace(/_f$/, '_stem_f')));
  const rows = new Map<string, Record<string, number>>();
  for (const s of summary.scores) {
    const key = JSON.stringify([s.step, s.testSet, s.promptVariant ?? '']);
    const row = rows.get(key) ?? {};
    row[s.metric.replace('_stem_f', '_f')] = s.value;
    rows.set(key, row);
  }
  const header = ['step', 'test set', 'variant', ...metrics];
  const body = [...rows].map(([key, vals]) => {
    const [step, set, variant] = JSON.parse(key) as [number, string, string];
    return [String(step), set, variant || '-', ...metrics.map((m) => (vals[m] === undefined ? '' : vals[m].toFixed(4)))];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), ...body.map(line)].join('\n') + '\n';
}

export function registerEvaluate(program: Command): void {
  program
    .command('evaluate')
    .description('Evaluate checkpoints on test sets (and prompt variants) into the results store; answers are cached, so a rerun does no model work')
    .option('--model <dir>', 'a model folder, or a folder of step-N / checkpoint-N folders (default: the checkpoints of --run in the store)')
    .option('--base-model <dir>', "base model folder for LoRA adapter checkpoints (default: the adapter's base_model_name_or_path when it is a local folder)")
    .option('--tokenizer <dir>', 'a folder with tokenizer.json for checkpoints saved without one (a Trainer given no tokenizer saves none)')
    .requiredOption('--test-set <spec...>', 'data set ids (genstudy data list), spec files (.yaml/.json), a synthetic suite folder, or synth[:set,...]')
    .option('--task <task>', 'study-a, study-b/<task>, synth, or a task spec file (default: what the test set implies)')
    .option('--prompt <list>', "study B's prompt(s): 1, 2 or 1,2 (each is a prompt variant)")
    .option('--shots <list>', 'numbers of in-context demonstrations, e.g. 0,2,4 (each is a prompt variant)')
    .addOption(new Option('--scoring <mode>', 'classification scoring').choices(['first-token', 'full-word']))
    .option('--positive-label <label>', 'the label binary F1 is computed for (default: the first label of a binary task)')
    .option('--limit <n>', 'evaluate the first N examples of every test set (study B: 250)')
    .option('--store <file>', 'results store (SQLite)', 'results.sqlite')
    .option('--run <name>', 'run name in the store (default: the model folder name)')
    .option('--data-dir <dir>', 'data folder for registry ids (default: GENSTUDY_DATA or ../shared/data)')
    .option('--rouge-stemmer', 'Porter-stem tokens for ROUGE (study B used no stemmer)')
    .option('--synth-seed <n>', 'seed of the generated synthetic suite (with --test-set synth)')
    .option('--synth-size <n>', 'examples per set of the generated synthetic suite')
    .option('--demo-seed <n>', 'seed for demonstrations sampled from the test set itself (sets without a few-shot pool)')
    .option('--batch-examples <n>', 'examples per engine call', '512')
    .option('--batch-tokens <n>', "the engine's padded tokens per forward batch")
    .option('--remote <url...>', 'evaluate through these OpenAI-compatible servers (vLLM, genstudy serve) instead of the built-in engine')
    .option('--remote-model <name>', 'the served model name for full checkpoints (default: the one the server lists)')
    .addOption(new Option('--format <format>', 'summary on stdout').choices(['table', 'json']).default('table'))
    .action(async (flags: EvaluateFlags) => {
      const progress = progressFor(process.stderr);
      const limit = wholeNumber('--limit', flags.limit);
      let discovered: Discovered;
      let run: string;
      if (flags.model !== undefined) {
        discovered = discoverCheckpoints(flags.model, { baseModel: flags.baseModel, tokenizerDir: flags.tokenizer });
        run = flags.run ?? defaultRunName(flags.model);
      } else {
        if (flags.run === undefined) throw new UserError('pass --model DIR, or --run NAME to evaluate the checkpoints of a run already in the store');
        run = flags.run;
        const store = ResultStore.open(flags.store);
        try {
          discovered = storedCheckpoints(run, store.checkpoints(run), flags.store, { baseModel: flags.baseModel, tokenizerDir: flags.tokenizer });
        } finally {
          store.close();
        }
      }
      for (const line of discovered.skipped) process.stderr.write(`genstudy: ${line}\n`);
      const testSets = await resolveTestSets(flags.testSet, {
        limit, dataDir: flags.dataDir, synthSeed: wholeNumber('--synth-seed', flags.synthSeed, 0), synthSize: wholeNumber('--synth-size', flags.synthSize),
      });
      const summary = await evaluateGrid({
        storePath: flags.store, run, runModel: flags.model ? path.resolve(flags.model) : undefined,
        checkpoints: discovered.checkpoints, testSets,
        variants: promptVariants(flags.prompt ? parseNumberList('--prompt', flags.prompt) : undefined, flags.shots ? parseNumberList('--shots', flags.shots) : undefined),
        task: flags.task, scoring: flags.scoring, positiveLabel: flags.positiveLabel, rougeStemmer: flags.rougeStemmer === true,
        demoSeed: wholeNumber('--demo-seed', flags.demoSeed, 0), batchExamples: wholeNumber('--batch-examples', flags.batchExamples),
        loader: flags.remote ? remoteLoader({ urls: flags.remote, modelName: flags.remoteModel }) : builtinLoader(wholeNumber('--batch-tokens', flags.batchTokens)), progress,
      });
      process.stdout.write(flags.format === 'json' ? JSON.stringify(summary, null, 2) + '\n' : formatSummary(summary));
      process.stderr.write(
        `genstudy: ${summary.examples} example answers over ${discovered.checkpoints.length} checkpoints: ${summary.computed} from the model ` +
          `(${summary.modelsLoaded} models loaded, ${summary.engineCalls} engine calls), ${summary.cached} from the cache, in ${summary.seconds.toFixed(1)} s; ` +
          `store: ${flags.store}, run "${run}"\n`,
      );
    });
}
