// The analysis options `analyze` and `report` share, as command-line flags: generated from the one
// declaration in analyze/options.ts by the option-table framework (option-flags.ts: a flag per option
// with its choices, default and help; a boolean as --x and --no-x), read with the CLI's flag readers
// (flag-values.ts) and validated by the same schema a study file's `analysis:` section goes through.
import { Command } from 'commander';
import { UserError } from '../errors.ts';
import { ANALYSIS_OPTIONS, ANALYSIS_SHORTHANDS, AnalysisOptionsSchema, type AnalysisOptionName, type AnalysisOptions } from '../analyze/options.ts';
import { flagOf, kebabCase } from '../option-table.ts';
import { addOptionFlags, optionFlagValues } from './option-flags.ts';

/** What commander hands over: the analysis options as typed (strings), the shorthands, the prompt variant. */
export type AnalysisFlags = Record<string, unknown> & { promptVariant: string };

export function addAnalysisOptions(cmd: Command): Command {
  // a switch gets --flag and --no-flag; with neither, the schema's default applies
  addOptionFlags(cmd, ANALYSIS_OPTIONS, { bothSwitches: true });
  for (const [name, shorthand] of Object.entries(ANALYSIS_SHORTHANDS)) cmd.option(`--${kebabCase(name)}`, shorthand.help);
  return cmd.option('--prompt-variant <name>', 'prompt variant to read from a store', '');
}

export function analysisOptionsFromFlags(flags: AnalysisFlags): AnalysisOptions {
  const raw: Record<string, unknown> = optionFlagValues(flags, ANALYSIS_OPTIONS);
  for (const [name, shorthand] of Object.entries(ANALYSIS_SHORTHANDS)) {
    if (flags[name] === true) Object.assign(raw, shorthand.sets);
  }
  const parsed = AnalysisOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]) as AnalysisOptionName;
    throw new UserError(`--${flagOf(name, ANALYSIS_OPTIONS[name])} ${String(raw[name])}: ${issue.message}`);
  }
  return parsed.data;
}
