// genstudy demo: the main job on the embedded default, with nothing to download: examples/demo.yaml
// (tiny models trained from scratch on the synthetic suite, evaluated along the way, analysed and
// reported), then the analysis compared with the structure the suite was built with.
import path from 'node:path';
import { Command } from 'commander';
import { loadStudyFile } from '../config/load.ts';
import { checkAgainstDesign } from '../pipeline/demo-check.ts';
import { formatDesignCheck } from '../synth/index.ts';
import { enginePath, engineStarted } from '../engine/index.ts';
import { runStudyCommand } from './run.ts';
import { terminalSafe } from '../terminal-safe.ts';

export const DEMO_STUDY = path.resolve(import.meta.dirname, '../../examples/demo.yaml');

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Run the embedded default study end to end (examples/demo.yaml: no downloads) and print the headline answer')
    .option('--out <dir>', 'where to write the store, checkpoints, analysis and report', 'genstudy-demo')
    .action(async (flags: { out: string }) => {
      // The engine starts on the study's first model work (stderr says when), not here: a rerun
      // that finds everything done never starts it.
      const { result, written } = await runStudyCommand(loadStudyFile(DEMO_STUDY), DEMO_STUDY, { out: path.resolve(flags.out) },
        () => process.stdout.write(`Engine: ${engineStarted() ? enginePath() : 'not needed (everything cached)'}\n`));
      if (result.analysis) {
        const check = formatDesignCheck(checkAgainstDesign(result.analysis, result.paths.synthetic,
          { runs: result.runs, alpha: result.analyzeOptions.alpha }), { compact: true });
        process.stdout.write('\n' + terminalSafe(check, { lines: true }));
      }
      process.stdout.write(
        // performance.now() counts from the process's start, so start-up and loading the engine are in it
        `\nDone in ${(performance.now() / 1000).toFixed(0)} s. Open ${written.report ?? result.paths.out} in a browser.\n`);
    });
}
