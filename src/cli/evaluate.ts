// genstudy evaluate: the checkpoint x test set x prompt variant grid into the results store, with
// every engine answer cached per example (see src/evaluate/grid.ts).
import path from 'node:path';
import { Command } from 'commander';
import { UserError } from '../errors.ts';
import { ResultStore } from '../store/result-store.ts';
import { defaultRunName, discoverCheckpoints, evaluateGrid, progressFor, promptVariants, resolveTestSets, runFolderOf, storedCheckpoints,
  type Discovered, type GridSummary } from '../evaluate/index.ts';
import { builtinLoader } from '../engine/index.ts';
import { numberList, wholeNumber } from './flag-values.ts';
import { addRemoteOptions, remoteLoaderOf, type RemoteFlags } from './remote-flags.ts';
import { formatTextTable } from '../text-table.ts';
import { count } from './count.ts';
import { addDataDirOption, addFormatOption, addPromptVariantOptions, addSyntheticOptions, addTestSetOption, baseModelOption, scoringOption,
  storeOption } from './shared-options.ts';
import type { ScoringMode } from '../tasks/index.ts';
import { terminalSafe } from '../terminal-safe.ts';

interface EvaluateFlags extends RemoteFlags {
  model?: string; baseModel?: string; tokenizer?: string; testSet: string[]; task?: string; prompt?: string[]; shots?: string[];
  scoring?: ScoringMode; positiveLabel?: string; limit?: string; store: string; run?: string; dataDir?: string; rougeStemmer?: boolean;
  syntheticSeed: string; syntheticSize: string; demoSeed?: string; batchExamples: string; batchTokens?: string; format: 'table' | 'json';
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
  return formatTextTable(header, body, metrics.map((_, i) => i + 3));
}

export function registerEvaluate(program: Command): void {
  const command = program
    .command('evaluate')
    .description('Evaluate checkpoints on test sets (and prompt variants) into the results store; answers are cached, so a rerun does no model work')
    .option('--model <dir>', 'a model folder, a PEFT adapter folder, or a run folder of step-N / checkpoint-N folders (default: the ' +
      'checkpoints of --run in the store)')
    .addOption(baseModelOption())
    .option('--tokenizer <dir>', 'a folder with tokenizer.json for checkpoints saved without one (a Trainer given no tokenizer saves none)');
  addTestSetOption(command, { required: true });
  command
    .option('--task <task>', 'study-a, study-b/<task>, synthetic, or a task spec file (default: what the test set implies)');
  addPromptVariantOptions(command)
    .addOption(scoringOption())
    .option('--positive-label <label>', 'the label binary F1 is computed for (default: the first label of a binary task)')
    .option('--limit <n>', 'evaluate the first N examples of every test set (study B: 250)')
    .addOption(storeOption())
    .option('--run <name>', 'run name in the store (default: the run folder\'s name, parent/name when that is generic such as output; ' +
      'checkpoints of another folder are refused under a run unless --run is given)');
  addDataDirOption(command)
    .option('--rouge-stemmer', 'Porter-stem tokens for ROUGE (study B used no stemmer)');
  addSyntheticOptions(command, 'testSize')
    .option('--demo-seed <n>', 'seed for demonstrations sampled from the test set itself (sets without a few-shot pool)')
    .option('--batch-examples <n>', 'examples per engine call', '512')
    .option('--batch-tokens <n>', "the engine's padded tokens per forward batch");
  addRemoteOptions(command);
  addFormatOption(command)
    .action(async (flags: EvaluateFlags) => {
      const progress = progressFor(process.stderr);
      // Every flag value is checked before any folder or model is looked at.
      const limit = wholeNumber('--limit', flags.limit);
      const variants = promptVariants(numberList('--prompt', flags.prompt, 1), numberList('--shots', flags.shots));
      const synthetic = { synthSeed: wholeNumber('--synthetic-seed', flags.syntheticSeed, { min: 0 }),
        synthSize: wholeNumber('--synthetic-size', flags.syntheticSize) };
      const batching = { demoSeed: wholeNumber('--demo-seed', flags.demoSeed, { min: 0 }),
        batchExamples: wholeNumber('--batch-examples', flags.batchExamples) };
      const loader = remoteLoaderOf(flags) ?? builtinLoader(wholeNumber('--batch-tokens', flags.batchTokens));
      let discovered: Discovered;
      let run: string;
      let runFolder: string | undefined;
      if (flags.model !== undefined) {
        discovered = discoverCheckpoints(flags.model, { baseModel: flags.baseModel, tokenizerDir: flags.tokenizer });
        runFolder = runFolderOf(flags.model);
        run = flags.run ?? defaultRunName(runFolder);
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
      for (const line of discovered.skipped) process.stderr.write(`genstudy: ${terminalSafe(line)}\n`);
      const testSets = await resolveTestSets(flags.testSet, {
        limit, dataDir: flags.dataDir, ...synthetic,
      });
      const summary = await evaluateGrid({
        storePath: flags.store, run, runModel: flags.model ? path.resolve(flags.model) : undefined, runFolder, runNamed: flags.run !== undefined,
        checkpoints: discovered.checkpoints, testSets,
        variants,
        task: flags.task, scoring: flags.scoring, positiveLabel: flags.positiveLabel, rougeStemmer: flags.rougeStemmer === true,
        ...batching,
        loader, progress,
      });
      process.stdout.write(flags.format === 'json' ? JSON.stringify(summary, null, 2) + '\n' : terminalSafe(formatSummary(summary), { lines: true }));
      process.stderr.write(
        `genstudy: ${count(summary.examples, 'example answer')} over ${count(discovered.checkpoints.length, 'checkpoint')}: ` +
          `${summary.computed} from the model (${count(summary.modelsLoaded, 'model')} loaded, ${count(summary.engineCalls, 'engine call')}), ` +
          `${summary.cached} from the cache, in ${summary.seconds.toFixed(1)} s; store: ${flags.store}, run "${terminalSafe(run)}"\n`,
      );
    });
}
