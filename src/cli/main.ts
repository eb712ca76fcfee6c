// The genstudy command line: one file per command in this folder, each exporting a `register*` function.
import { Command, CommanderError } from 'commander';
import { UserError } from '../errors.ts';
import { registerAnalyze } from './analyze.ts';
import { registerData } from './data.ts';
import { registerDemo } from './demo.ts';
import { registerRun } from './run.ts';
import { registerEvaluate } from './evaluate.ts';
import { registerMetrics } from './metrics.ts';
import { registerReport } from './report.ts';
import { registerScore } from './score.ts';
import { registerServe } from './serve.ts';
import { registerTrain } from './train.ts';

export function buildProgram(): Command {
  const program = new Command('genstudy')
    .description('Generalisation studies of fine-tuned language models')
    .version('0.1.0')
    .exitOverride();
  registerAnalyze(program);
  registerData(program);
  registerDemo(program);
  registerRun(program);
  registerEvaluate(program);
  registerMetrics(program);
  registerReport(program);
  registerScore(program);
  registerServe(program);
  registerTrain(program);
  return program;
}

/** Runs the CLI and returns the exit code; user errors print one clear line, not a stack trace. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof UserError) {
      process.stderr.write(`genstudy: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
