// The training options as `train`'s command-line flags: generated from the one declaration in
// train/option-table.ts (a flag per option with its choices, default and help) and read back with
// the CLI's flag readers (flag-values.ts), which name the flag and its range in the message.
import { Command, Option } from 'commander';
import { flagOf, type TrainingOptionSpec } from '../train/index.ts';
import { numberIn, wholeNumber } from './flag-values.ts';

/** commander's key for a flag (its camelCase, without a leading no-). */
const keyOf = (flag: string): string => flag.replace(/^no-/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function optionOf(name: string, spec: TrainingOptionSpec): Option {
  const flag = flagOf(name, spec);
  if (spec.kind === 'boolean') return new Option(`--${flag}`, spec.help);
  const option = new Option(`--${flag} <${spec.metavar ?? 'value'}>`, spec.help);
  if (spec.kind === 'choice') option.choices(spec.choices);
  if (spec.default !== undefined) option.default(String(spec.default));
  if (spec.required) option.makeOptionMandatory();
  return option;
}

/** Adds the flags of `table` (TRAINING_OPTIONS or LORA_OPTIONS) to `cmd`. */
export function addTrainingFlags(cmd: Command, table: Record<string, TrainingOptionSpec>): Command {
  for (const [name, spec] of Object.entries(table)) cmd.addOption(optionOf(name, spec));
  return cmd;
}

/** The options of `table` from commander's flags, checked against the table's bounds; an option whose flag is absent stays undefined. */
export function trainingSettingsFromFlags(flags: Record<string, unknown>, table: Record<string, TrainingOptionSpec>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const flag = flagOf(name, spec);
    const value = flags[keyOf(flag)];
    if (value === undefined) continue;
    switch (spec.kind) {
      case 'number': out[name] = numberIn(`--${flag}`, String(value), { min: spec.min, max: spec.max, minOpen: spec.minOpen }); break;
      case 'integer': out[name] = wholeNumber(`--${flag}`, String(value), { min: spec.min ?? Number.MIN_SAFE_INTEGER, max: spec.max }); break;
      default: out[name] = value;
    }
  }
  return out;
}
