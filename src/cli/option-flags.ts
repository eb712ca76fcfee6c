// An option table (src/option-table.ts) as command-line flags: one commander option per option, with
// its choices, default, help and the table's one boolean convention, and the flags read back with
// the CLI's flag readers (flag-values.ts), which name the flag and its range in the message.
import { Command, Option } from 'commander';
import { flagKeyOf, flagOf, offHelpOf, switchOf, type OptionSpec, type OptionTable, type ValueOf } from '../option-table.ts';
import { listValues, numberIn, wholeNumber } from './flag-values.ts';

/** `bothSwitches`: a boolean takes --<flag> and --no-<flag> (neither given: undefined, the schema's default applies). */
export interface FlagStyle { bothSwitches?: boolean }

function optionsOf(name: string, spec: OptionSpec, style: FlagStyle): Option[] {
  const flag = flagOf(name, spec);
  if (spec.kind === 'boolean') {
    const on = new Option(`--${flag}`, `${spec.help}${style.bothSwitches && spec.default ? ' (the default)' : ''}`);
    const off = new Option(`--no-${flag}`, offHelpOf(spec));
    return style.bothSwitches ? [on, off] : [spec.default ? off : on];
  }
  const option = new Option(`--${flag} <${spec.metavar ?? 'value'}>`, spec.help);
  if (spec.kind === 'choice') {
    option.choices(spec.anyCase ? spec.choices.map((c) => c.toLowerCase()) : spec.choices);
    if (spec.default !== undefined) option.default(spec.anyCase ? spec.default.toLowerCase() : spec.default);
  } else if (spec.default !== undefined) {
    option.default(String(spec.default));
  }
  if (spec.required) option.makeOptionMandatory();
  return [option];
}

/** Adds a flag for every option of `table` to `cmd`, in the table's order. */
export function addOptionFlags(cmd: Command, table: OptionTable, style: FlagStyle = {}): Command {
  for (const [name, spec] of Object.entries(table)) for (const option of optionsOf(name, spec, style)) cmd.addOption(option);
  return cmd;
}

/** The values of `table`'s flags as commander hands them over, checked against the table's kinds and bounds; a flag not given is absent. */
export function optionFlagValues<T extends OptionTable>(flags: Record<string, unknown>, table: T): { [K in keyof T]?: ValueOf<T[K]> } {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const value = flags[flagKeyOf(name, spec)];
    if (value === undefined) continue;
    const flag = `--${flagOf(name, spec)}`;
    const text = String(value);
    switch (spec.kind) {
      case 'number': out[name] = numberIn(flag, text, spec); break;
      case 'integer': out[name] = wholeNumber(flag, text, { min: spec.min === undefined ? Number.MIN_SAFE_INTEGER : spec.min + (spec.minOpen ? 1 : 0),
        max: spec.max === undefined ? undefined : spec.max - (spec.maxOpen ? 1 : 0) }); break;
      case 'list': out[name] = listValues(value as string[] | string); break;
      case 'choice': out[name] = spec.anyCase ? spec.choices.find((c) => c.toLowerCase() === text.toLowerCase()) ?? text : text; break;
      default: out[name] = value;
    }
  }
  return out as { [K in keyof T]?: ValueOf<T[K]> };
}

/** The flags of `table` given on the command line (as the user typed them: --no-submit), e.g. to refuse them where they do not apply. */
export function flagsGiven(flags: Record<string, unknown>, table: OptionTable): string[] {
  return Object.entries(table).filter(([name, spec]) => {
    const value = flags[flagKeyOf(name, spec)];
    return value !== undefined && (spec.kind !== 'boolean' || value !== spec.default);
  }).map(([name, spec]) => switchOf(name, spec));
}
