// The analysis options `analyze` and `report` share, as command-line flags: generated from the one
// declaration in analyze/options.ts (a flag per option with its choices, default and help), read
// with the CLI's flag readers (flag-values.ts) and validated by the same schema a study file's
// `analysis:` section goes through.
import { Command, Option } from 'commander';
import { UserError } from '../errors.ts';
import {
  ANALYSIS_OPTIONS, ANALYSIS_SHORTHANDS, AnalysisOptionsSchema,
  type AnalysisOptionName, type AnalysisOptions, type AnalysisOptionSpec,
} from '../analyze/options.ts';
import { listValues, numberIn, wholeNumber } from './flag-values.ts';

/** What commander hands over: the analysis options as typed (strings), the shorthands, the prompt variant. */
export type AnalysisFlags = Record<string, unknown> & { promptVariant: string };

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const flagName = (name: string, spec: AnalysisOptionSpec): string => spec.flag ?? kebab(name);
/** commander's key for a flag (its camelCase). */
const keyOf = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const entries = Object.entries(ANALYSIS_OPTIONS) as [AnalysisOptionName, AnalysisOptionSpec][];

function optionOf(name: string, spec: AnalysisOptionSpec): Option {
  const flag = flagName(name, spec);
  if (spec.kind === 'boolean') return new Option(`--no-${flag}`, `do not ${spec.help.replace(/^across runs: /, '')}`);
  const option = new Option(`--${flag} <${spec.metavar ?? 'value'}>`, spec.help);
  if (spec.kind === 'choice') {
    option.choices(spec.anyCase ? spec.choices.map((c) => c.toLowerCase()) : spec.choices);
    option.default(spec.anyCase ? spec.default.toLowerCase() : spec.default);
  } else if ('default' in spec && spec.default !== undefined) {
    option.default(String(spec.default));
  }
  return option;
}

export function addAnalysisOptions(cmd: Command): Command {
  for (const [name, spec] of entries) {
    // a switch gets --flag and --no-flag; with neither, the schema's default applies
    if (spec.kind === 'boolean') cmd.addOption(new Option(`--${flagName(name, spec)}`, `${spec.help}${spec.default ? ' (the default)' : ''}`));
    cmd.addOption(optionOf(name, spec));
  }
  for (const [name, shorthand] of Object.entries(ANALYSIS_SHORTHANDS)) cmd.option(`--${kebab(name)}`, shorthand.help);
  return cmd.option('--prompt-variant <name>', 'prompt variant to read from a store', '');
}

export function analysisOptionsFromFlags(flags: AnalysisFlags): AnalysisOptions {
  const raw: Record<string, unknown> = {};
  for (const [name, spec] of entries) {
    const flag = flagName(name, spec);
    const value = flags[keyOf(flag)];
    if (value === undefined) continue;
    const text = String(value);
    switch (spec.kind) {
      case 'number': raw[name] = numberIn(`--${flag}`, text, { min: spec.gt, max: spec.lt, minOpen: true, maxOpen: true }); break;
      case 'integer': raw[name] = wholeNumber(`--${flag}`, text, { min: spec.min }); break;
      case 'list': raw[name] = listValues(value as string[] | string); break;
      case 'choice': raw[name] = spec.anyCase ? spec.choices.find((c) => c.toLowerCase() === text.toLowerCase()) ?? text : text; break;
      default: raw[name] = value;
    }
  }
  for (const [name, shorthand] of Object.entries(ANALYSIS_SHORTHANDS)) {
    if (flags[name] === true) Object.assign(raw, shorthand.sets);
  }
  const parsed = AnalysisOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]) as AnalysisOptionName;
    throw new UserError(`--${flagName(name, ANALYSIS_OPTIONS[name])} ${String(raw[name])}: ${issue.message}`);
  }
  return parsed.data as AnalysisOptions;
}
