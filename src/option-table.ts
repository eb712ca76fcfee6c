// The option-table framework: an option set is declared once, as a table of specs (kind, bounds,
// choices, default, help), and everything else is generated from it: the zod schema a study file's
// section and a library caller's options go through, the defaults, the option values' types and the
// command-line flag names (cli/option-flags.ts turns the same table into commander options and reads
// them back). The analysis options (analyze/options.ts), the training and LoRA options and `train`'s
// hf launch flags (train/option-table.ts) and `data`'s hub flags (cli/data.ts) are such tables;
// test/design/option-tables.test.ts keeps a second Kind union or zodOf from appearing elsewhere.
//
// A boolean option has one convention everywhere: `help` says what it does when on (the `--<flag>`
// switch), `off` what `--no-<flag>` does (default: "do not " and the help, any leading scope such as
// "across runs: " dropped). The command line offers the switch that turns the default around
// (`--no-<flag>` when the default is true, `--<flag>` when it is false); a table registered with both
// switches (the analysis options) offers the other too, its help marked "(the default)" when on is.
import { z } from 'zod';

/** A numeric option's bounds: min / max, each inclusive unless its `*Open` is set. */
export type Bounds = { min?: number; max?: number; minOpen?: boolean; maxOpen?: boolean };

/** What an option is: its values and its default (none: undefined unless given). */
export type Kind =
  | { kind: 'choice'; choices: readonly [string, ...string[]]; default?: string; /** the CLI takes any case (shows lower case) */ anyCase?: boolean }
  | ({ kind: 'number'; default?: number } & Bounds)
  | ({ kind: 'integer'; default?: number } & Bounds)
  | { kind: 'boolean'; default: boolean; /** the help of --no-<flag> */ off?: string }
  | { kind: 'string'; default?: undefined }
  | { kind: 'list'; default?: undefined };

/**
 * One option: `help` (a boolean's: what on does), `metavar` (the value's name in help), `flag` (the
 * command-line name when it is not the option's name in kebab-case; a boolean's positive name),
 * `required` (a mandatory flag).
 */
export type OptionSpec = Kind & { help: string; metavar?: string; flag?: string; required?: boolean };

export type OptionTable = Record<string, OptionSpec>;

/** The value an option takes. */
export type ValueOf<S> = S extends { kind: 'choice'; choices: readonly (infer C)[] } ? C
  : S extends { kind: 'number' | 'integer' } ? number
  : S extends { kind: 'boolean' } ? boolean
  : S extends { kind: 'string' } ? string
  : S extends { kind: 'list' } ? string[] : never;

/** The names of a table's options that have a default. */
export type WithDefault<T> = { [K in keyof T]: T[K] extends { default: unknown } ? K : never }[keyof T];

/** A table's options at their defaults. */
export type Defaults<T> = { [K in WithDefault<T>]: ValueOf<T[K]> };

/** A table's option values after defaults: those with one always there, the others when given. */
export type Values<T> = Defaults<T> & { [K in Exclude<keyof T, WithDefault<T>>]?: ValueOf<T[K]> };

/** The zod type zodOf builds for a spec (zod cannot infer through Object.fromEntries). */
export type ZodOf<S> = S extends { default: unknown } ? z.ZodDefault<z.ZodType<ValueOf<S>>> : z.ZodOptional<z.ZodType<ValueOf<S>>>;

/** A table's zod shape: each option's zodOf under its own name. */
export type ShapeOf<T> = { [K in keyof T]: ZodOf<T[K]> };

/** An option's zod type: its kind and bounds, with its default (`withDefault: false`: optional even when it has one). */
export function zodOf(spec: OptionSpec, opts: { withDefault?: boolean } = {}): z.ZodType {
  let s: z.ZodType;
  switch (spec.kind) {
    case 'choice': s = z.enum(spec.choices); break;
    case 'boolean': s = z.boolean(); break;
    case 'string': s = z.string(); break;
    case 'list': s = z.array(z.string()); break;
    case 'number':
    case 'integer': {
      let n = spec.kind === 'integer' ? z.number().int() : z.number();
      if (spec.min !== undefined) n = spec.minOpen ? n.gt(spec.min) : n.min(spec.min);
      if (spec.max !== undefined) n = spec.maxOpen ? n.lt(spec.max) : n.max(spec.max);
      s = n;
    }
  }
  return (opts.withDefault ?? true) && spec.default !== undefined ? s.default(spec.default as never) : s.optional();
}

/** A table's zod shape (for z.strictObject, alone or with more fields). */
export function shapeOf<T extends OptionTable>(table: T): ShapeOf<T> {
  return Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, zodOf(spec)])) as ShapeOf<T>;
}

/** A table's defaults. */
export function defaultsOf<T extends OptionTable>(table: T): Defaults<T> {
  return Object.fromEntries(Object.entries(table).filter(([, s]) => s.default !== undefined).map(([k, s]) => [k, s.default])) as Defaults<T>;
}

/** An option name in kebab-case (weightDecay: weight-decay). */
export const kebabCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The command-line name of an option, without the dashes (a boolean's positive name: shuffle, not no-shuffle). */
export const flagOf = (name: string, spec: OptionSpec): string => spec.flag ?? kebabCase(name);

/** The key commander stores a flag's value under (its camelCase; --no-x and --x both set x). */
export const flagKeyOf = (name: string, spec: OptionSpec): string => flagOf(name, spec).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The switch that turns a boolean's default around (--no-shuffle, --merge); another option's flag. */
export const switchOf = (name: string, spec: OptionSpec): string =>
  `--${spec.kind === 'boolean' && spec.default ? 'no-' : ''}${flagOf(name, spec)}`;

/** The help of a boolean's --no-<flag> switch. */
export const offHelpOf = (spec: OptionSpec & { kind: 'boolean' }): string => spec.off ?? `do not ${spec.help.replace(/^[A-Za-z ,]+: /, '')}`;
