// The genstudy command line: one file per command in this folder, each exporting a `register*`
// function. Only the command being run is imported, so `genstudy analyze` does not pay for
// loading the tensor engine or the chart renderer.
import { Command, CommanderError } from 'commander';
import { UserError } from '../errors.ts';

type Register = (program: Command) => void;

/** Command name -> its module's register function (add a command: one line here). */
const COMMANDS: Record<string, () => Promise<Register>> = {
  analyze: async () => (await import('./analyze.ts')).registerAnalyze,
  data: async () => (await import('./data.ts')).registerData,
  demo: async () => (await import('./demo.ts')).registerDemo,
  evaluate: async () => (await import('./evaluate.ts')).registerEvaluate,
  metrics: async () => (await import('./metrics.ts')).registerMetrics,
  report: async () => (await import('./report.ts')).registerReport,
  run: async () => (await import('./run.ts')).registerRun,
  score: async () => (await import('./score.ts')).registerScore,
  serve: async () => (await import('./serve.ts')).registerServe,
  train: async () => (await import('./train.ts')).registerTrain,
  watch: async () => (await import('./watch.ts')).registerWatch,
};

/** Builds the program with the commands `argv` needs (all of them for help or an unknown command). */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('genstudy')
    .description('Generalisation studies of fine-tuned language models')
    .version('0.1.0')
    .exitOverride();
  const first = argv.find((a) => !a.startsWith('-'));
  const onlyVersion = first === undefined && argv.some((a) => a === '--version' || a === '-V');
  const names = onlyVersion ? [] : first !== undefined && first in COMMANDS ? [first] : Object.keys(COMMANDS);
  for (const name of names) (await COMMANDS[name]())(program);
  return program;
}

/** Runs the CLI and returns the exit code; user errors print one clear line, not a stack trace. */
export async function main(argv: string[]): Promise<number> {
  const program = await buildProgram(argv);
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
