// The genstudy command line: one file per command in this folder, each exporting a `register*`
// function. Only the command being run is imported, so `genstudy analyze` does not pay for
// loading the tensor engine or the chart renderer.
import { Command, CommanderError, type Option } from 'commander';
import { EXIT, UserError } from '../errors.ts';
import { environmentProblem } from './environment-errors.ts';
import { terminalSafe } from '../terminal-safe.ts';

type Register = (program: Command) => void;

/** Command name -> its module's register function (add a command: one line here). */
const COMMANDS: Record<string, () => Promise<Register>> = {
  analyze: async () => (await import('./analyze.ts')).registerAnalyze,
  cache: async () => (await import('./cache.ts')).registerCache,
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
  markRequired(program);
  unknownBeforeMissing(program);
  return program;
}

/** Help says which options are required (commander checks them but does not say so in help). */
function markRequired(cmd: Command): void {
  for (const o of cmd.options) if (o.mandatory && !o.description.endsWith('(required)')) o.description += ' (required)';
  for (const sub of cmd.commands) markRequired(sub);
}

/**
 * A typo in a required flag (`--contrl mnli`) is an unknown option, and commander checks required
 * options first, so it would say "--control not specified"; this reports the unknown option (with
 * commander's "Did you mean --control?") when the command line has one.
 */
function unknownBeforeMissing(cmd: Command): void {
  const internals = cmd as unknown as CommanderInternals;
  const missing = internals.missingMandatoryOptionValue.bind(cmd);
  internals.missingMandatoryOptionValue = (option) => {
    const known = (flag: string) => cmd.options.some((o) => o.long === flag || o.short === flag);
    const unknown = cmd.args.find((a) => /^--?[A-Za-z]/.test(a) && !known(a.split('=')[0]));
    if (unknown !== undefined) internals.unknownOption(unknown);
    missing(option);
  };
  for (const sub of cmd.commands) unknownBeforeMissing(sub);
}

/** The two commander 14 methods used above: plain methods in its JavaScript, left out of its typings. */
interface CommanderInternals {
  missingMandatoryOptionValue(option: Option): void;
  unknownOption(flag: string): void;
}

/**
 * Runs the CLI and returns the exit code (see EXIT in src/errors.ts): parser errors (an unknown
 * option, a missing or invalid value), genstudy's own errors about what it was given and failures
 * of the machine (a full disk, a read-only folder) all exit 2 with one clear line; an unexpected
 * error is reported as a bug (its stack frames) with exit 1.
 */
export async function main(argv: string[]): Promise<number> {
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    // --help and --version exit 0; every other parser error (and bare `genstudy`) is a usage error.
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.userError;
    return reportFailure(err);
  }
}

/** Prints a failure (a user error, the machine's, or a bug's report) and returns its exit code. */
export function reportFailure(err: unknown): number {
  const line = err instanceof UserError ? err.message : environmentProblem(err);
  if (line !== undefined) {
    // A user error often quotes a name from an input file.
    process.stderr.write(`genstudy: ${terminalSafe(line, { lines: true })}\n`);
    return EXIT.userError;
  }
  process.stderr.write(describeCrash(err));
  return EXIT.failure;
}

/**
 * A bug's report: the error and its stack frames, never a source line. Node prints the source line
 * of an uncaught error, and when it was thrown from (or rethrown by) a minified library file such
 * as tfjs-backend-wasm's emscripten glue, that "line" is tens of kilobytes of library source.
 */
export function describeCrash(err: unknown): string {
  const e = err instanceof Error ? err : new Error(String(err));
  const frames = (e.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l));
  const message = e.message.length > 2000 ? `${e.message.slice(0, 2000)}…` : e.message;
  return `genstudy: internal error (a bug; please report it with the command that caused it): ${e.name}: ${message}\n${frames.join('\n')}\n`;
}
