// Options several commands take, declared once so that each concept has one name, one form and one
// help text across commands: test sets, the synthetic suite, the data folder, prompt variants, the
// results store, the base model of adapters, classification scoring and the output format. Lists are
// written `--flag a b c` (or the flag repeated).
import { Command, Option } from 'commander';
import { existingFolder } from './flag-values.ts';
// from the modules that declare them, not the folders' index: analyze would load the tasks (yaml) and the suite's generator
import { SCORING_MODES } from '../tasks/task.ts';
import { DEFAULT_STORE_FILE } from '../store/result-store.ts';
import { SUITE_DEFAULTS } from '../synth/design.ts';

/** `--store <file>`: the results database; `optional`: no default, nothing is recorded without it (train). */
export function storeOption(opts: { optional?: string } = {}): Option {
  const o = new Option('--store <file>', `results store (SQLite)${opts.optional ? `: ${opts.optional}` : ''}`);
  return opts.optional ? o : o.default(DEFAULT_STORE_FILE);
}

/** `--base-model <dir>`: the base of LoRA adapter checkpoints. */
export function baseModelOption(): Option {
  return new Option('--base-model <dir>',
    "base model folder of LoRA adapter checkpoints (default: adapter_config.json's base_model_name_or_path when it is a local folder)");
}

/** `--scoring <mode>`: how classification labels are scored (default: the task's). */
export function scoringOption(): Option {
  return new Option('--scoring <mode>', 'classification scoring').choices(SCORING_MODES);
}

export const TEST_SET_HELP = 'test sets: registry ids (genstudy data list), data set spec files (.yaml/.json), ' +
  'a synthetic suite folder, or synthetic[:set,...] (the generated suite)';

/** `--test-set A B ...`: the sets to evaluate (required) or, in analyze / report, to restrict to. */
export function addTestSetOption(cmd: Command, opts: { required: boolean; help?: string }): Command {
  const o = new Option('--test-set <set...>', opts.help ?? TEST_SET_HELP);
  if (opts.required) o.makeOptionMandatory();
  return cmd.addOption(o);
}

const SYNTHETIC_SIZE_HELP = { testSize: 'examples per test set of the generated synthetic suite',
  trainSize: 'training examples in the generated synthetic suite' };

/**
 * `--synthetic-seed`, `--synthetic-size`: the generated suite (`--test-set synthetic`, `train --data
 * synthetic`), the size being its test sets' or its training set's; the defaults are the suite's own.
 */
export function addSyntheticOptions(cmd: Command, size: keyof typeof SYNTHETIC_SIZE_HELP): Command {
  return cmd
    .option('--synthetic-seed <n>', 'seed of the generated synthetic suite', String(SUITE_DEFAULTS.seed))
    .option('--synthetic-size <n>', SYNTHETIC_SIZE_HELP[size], String(SUITE_DEFAULTS[size]));
}

/** `--data-dir`: where registered data sets' local files are. */
export function addDataDirOption(cmd: Command): Command {
  return cmd.option('--data-dir <dir>', 'folder with the local files of registered data sets (default: $GENSTUDY_DATA, else ' +
    '../shared/data when it exists; else the Hugging Face hub)', (dir: string) => existingFolder('--data-dir', dir));
}

/** `--prompt 1 2` and `--shots 0 2 4`: the prompt variants each test set is evaluated with. */
export function addPromptVariantOptions(cmd: Command): Command {
  return cmd
    .option('--prompt <n...>', "study B's prompt(s): 1, 2 or both (each is a prompt variant)")
    .option('--shots <k...>', 'numbers of in-context demonstrations, e.g. 0 2 4 (each is a prompt variant)');
}

/** `--format`: how the result is printed on stdout; the first choice is the default. */
export function addFormatOption(cmd: Command, choices: readonly string[] = ['table', 'json']): Command {
  return cmd.addOption(new Option('--format <format>', 'output on stdout').choices([...choices]).default(choices[0]));
}
