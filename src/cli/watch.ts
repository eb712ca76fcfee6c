// genstudy watch: evaluates each new complete checkpoint folder an external trainer writes, and
// refreshes the analysis and the report (src/pipeline/watch.ts). SIGINT stops it after the current
// round; a second SIGINT stops it at once (every store write is a transaction, so nothing is
// half-written and a restart picks up where it stopped).
import path from 'node:path';
import { Command } from 'commander';
import { EXIT, UserError } from '../errors.ts';
import { defaultRunName, progressFor, promptVariants, resolveTestSets, runFolderOf } from '../evaluate/index.ts';
import { builtinLoader } from '../engine/index.ts';
import { watchRun } from '../pipeline/watch.ts';
import { numberIn, numberList, wholeNumber } from './flag-values.ts';
import { addRemoteOptions, remoteLoaderOf, type RemoteFlags } from './remote-flags.ts';
import { addDataDirOption, addPromptVariantOptions, addSyntheticOptions, addTestSetOption, baseModelOption, scoringOption,
  storeOption } from './shared-options.ts';
import type { ScoringMode } from '../tasks/index.ts';
import { terminalSafe } from '../terminal-safe.ts';

interface WatchFlags extends RemoteFlags {
  testSet: string[]; store: string; run?: string; interval: string; once?: boolean; control?: string; metric?: string; out?: string;
  baseModel?: string; tokenizer?: string; task?: string; scoring?: ScoringMode; prompt?: string[]; shots?: string[]; limit?: string;
  dataDir?: string; syntheticSeed: string; syntheticSize: string; batchExamples: string; batchTokens?: string;
}

export function registerWatch(program: Command): void {
  const command = program
    .command('watch')
    .description('Evaluate each new complete checkpoint-N folder a trainer writes (HF Trainer, PEFT), then refresh the analysis and ' +
      'report; restarts pick up where they stopped')
    .argument('<run>', 'the folder the trainer writes checkpoint-N folders into');
  addTestSetOption(command, { required: true })
    .addOption(storeOption())
    .option('--run <name>', 'run name in the store (default: the folder\'s name, parent/name when that is generic such as output; ' +
      'checkpoints of another folder are refused under a run unless --run is given)')
    .option('--interval <seconds>', 'pause between looks at the folder (0.1 to 3600)', '30')
    .option('--once', 'look once, evaluate what is complete, refresh, and exit')
    .option('--control <set>', 'in-domain test set: refresh the analysis and report after each new checkpoint')
    .option('--metric <metric>', 'metric analysed (default: accuracy, or the only one)')
    .option('--out <dir>', 'where analysis.json, analysis.txt and report/ go (default: <store folder>/<run>-watch, / in the run made -)')
    .addOption(baseModelOption())
    .option('--tokenizer <dir>', 'a folder with tokenizer.json for checkpoints saved without one (a Trainer given no tokenizer saves none)')
    .option('--task <task>', 'study-a, study-b/<task>, synthetic, or a task spec file')
    .addOption(scoringOption());
  addPromptVariantOptions(command)
    .option('--limit <n>', 'evaluate the first N examples of every test set');
  addDataDirOption(command);
  addSyntheticOptions(command, 'testSize')
    .option('--batch-examples <n>', 'examples per engine call', '512')
    .option('--batch-tokens <n>', "the built-in engine's padded tokens per forward batch");
  addRemoteOptions(command)
    .action(async (runDir: string, flags: WatchFlags) => {
      const seconds = numberIn('--interval', flags.interval, { min: 0.1, max: 3600 })!;
      const loader = remoteLoaderOf(flags) ?? builtinLoader(wholeNumber('--batch-tokens', flags.batchTokens));
      const testSets = await resolveTestSets(flags.testSet, {
        limit: wholeNumber('--limit', flags.limit), dataDir: flags.dataDir,
        synthSeed: wholeNumber('--synthetic-seed', flags.syntheticSeed, { min: 0 }), synthSize: wholeNumber('--synthetic-size', flags.syntheticSize),
      });
      if (flags.control !== undefined && !testSets.some((t) => t.id === flags.control)) {
        throw new UserError(`--control ${flags.control}: not among the test sets (${testSets.map((t) => t.id).join(', ')})`);
      }
      const controller = new AbortController();
      let interrupts = 0;
      const onSignal = (): void => {
        interrupts++;
        if (interrupts === 1) {
          process.stderr.write('genstudy watch: stopping after this round (Ctrl-C again to stop now; nothing stored is lost)\n');
          controller.abort();
        } else {
          process.exit(EXIT.interrupted);
        }
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const runFolder = runFolderOf(runDir);
      try {
        const result = await watchRun({
          runDir, storePath: flags.store, run: flags.run ?? defaultRunName(runFolder), runModel: path.resolve(runDir),
          runFolder, runNamed: flags.run !== undefined,
          testSets, variants: promptVariants(numberList('--prompt', flags.prompt, 1), numberList('--shots', flags.shots)),
          task: flags.task, scoring: flags.scoring, batchExamples: wholeNumber('--batch-examples', flags.batchExamples),
          loader,
          baseModel: flags.baseModel, tokenizerDir: flags.tokenizer, control: flags.control, metric: flags.metric, outDir: flags.out,
          intervalMs: seconds * 1000, once: flags.once === true, signal: controller.signal,
          progress: progressFor(process.stderr),
          log: (line) => process.stderr.write(`genstudy watch: ${terminalSafe(line)}\n`),
        });
        process.stderr.write(`genstudy watch: ${result.rounds} round(s); evaluated steps ${result.evaluatedSteps.join(', ') || 'none'}\n`);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
