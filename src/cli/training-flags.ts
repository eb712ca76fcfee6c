// The training options as `train`'s command-line flags: the option tables of train/option-table.ts
// (TRAINING_OPTIONS, LORA_OPTIONS, HF_LAUNCH_OPTIONS) through the option-table framework
// (option-flags.ts: a flag per option with its choices, default and help; a boolean as the one
// switch that turns its default around, --no-shuffle), read back with the CLI's flag readers.
import type { Command } from 'commander';
import type { OptionTable } from '../option-table.ts';
import { addOptionFlags, optionFlagValues } from './option-flags.ts';

/** Adds the flags of `table` (TRAINING_OPTIONS, LORA_OPTIONS or HF_LAUNCH_OPTIONS) to `cmd`. */
export function addTrainingFlags(cmd: Command, table: OptionTable): Command {
  return addOptionFlags(cmd, table);
}

/** The options of `table` from commander's flags, checked against the table's bounds; an option whose flag is absent stays undefined. */
export function trainingSettingsFromFlags(flags: Record<string, unknown>, table: OptionTable): Record<string, unknown> {
  return optionFlagValues(flags, table);
}
