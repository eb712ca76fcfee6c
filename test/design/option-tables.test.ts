// One option-table framework: an option set is a table of specs read by src/option-table.ts
// (the Kind union, zodOf, defaults, value types, flag names) and cli/option-flags.ts (the commander
// flags and reading them back). The analysis options and the training options each had their own
// Kind union, zodOf, kebab-case helper and boolean convention; this test fails when one appears
// again outside the framework, so a new option set is a table, not a second framework.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { ANALYSIS_OPTIONS } from '../../src/analyze/options.ts';
import { HF_LAUNCH_OPTIONS, LORA_OPTIONS, TRAINING_OPTIONS } from '../../src/train/option-table.ts';
import { flagOf, offHelpOf, switchOf, type OptionTable } from '../../src/option-table.ts';
import { addOptionFlags } from '../../src/cli/option-flags.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The framework's files, from the repository root. */
const FRAMEWORK = ['src/option-table.ts', 'src/cli/option-flags.ts'];
const CHECKED_ROOTS = ['src', 'bench', 'scripts'];

/** What only the framework may declare, each with the pattern that finds it in a file's text. */
const FRAMEWORK_ONLY: [string, RegExp][] = [
  ['a Kind union of option kinds', /\btype\s+\w*Kind\w*\s*=[^;]*\{\s*kind:\s*'(choice|number|integer|boolean|string|list)'/],
  ['an option kind as a type member', /\{\s*kind:\s*'(choice|number|integer|boolean|string|list)'\s*;/],
  ['a zodOf', /\b(function|const|let)\s+zodOf\b/],
  ['a kebab-case helper for flag names', /\.replace\(\s*\/\[A-Z\]\/g/],
  ['a camelCase helper for commander keys', /\.replace\(\s*\/(\^no-\/|-\(\[a-z)/],
];

/** What `text` declares that only the framework may. */
function frameworkPieces(text: string): string[] {
  return FRAMEWORK_ONLY.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
}

function codeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name.startsWith('.') ? [] : codeFiles(p);
    return /\.(ts|js)$/.test(e.name) ? [p] : [];
  });
}

test('no Kind union, zodOf or flag-name helper outside the option-table framework', () => {
  const files = CHECKED_ROOTS.flatMap((r) => codeFiles(path.join(root, r)));
  assert.ok(files.length > 100, `only ${files.length} files read`);
  const rel = (f: string) => path.relative(root, f).split(path.sep).join('/');
  const found = files.filter((f) => !FRAMEWORK.includes(rel(f)))
    .flatMap((f) => frameworkPieces(fs.readFileSync(f, 'utf8')).map((what) => `${rel(f)}: ${what} (use src/option-table.ts)`));
  assert.deepEqual(found, []);
  const framework = frameworkPieces(fs.readFileSync(path.join(root, FRAMEWORK[0]), 'utf8'));
  assert.deepEqual(framework, FRAMEWORK_ONLY.map(([what]) => what), `${FRAMEWORK[0]}: the patterns no longer match the framework`);
});

test('the checker sees the second framework this replaced', () => {
  const before = "type Kind =\n  | { kind: 'number'; default: number; gt?: number }\n  | { kind: 'boolean'; default: boolean };\n" +
    'function zodOf(spec: Spec): z.ZodType {}\n' +
    "const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);\n" +
    "const keyOf = (flag: string): string => flag.replace(/^no-/, '');\n";
  assert.deepEqual(frameworkPieces(before), FRAMEWORK_ONLY.map(([what]) => what));
  assert.deepEqual(frameworkPieces("export const T = { a: { kind: 'boolean', default: true, help: 'x' } } as const satisfies OptionTable;\n"), []);
});

test('every table follows the one boolean convention on the command line', () => {
  const tables: Record<string, [OptionTable, boolean]> = {
    ANALYSIS_OPTIONS: [ANALYSIS_OPTIONS, true], TRAINING_OPTIONS: [TRAINING_OPTIONS, false],
    LORA_OPTIONS: [LORA_OPTIONS, false], HF_LAUNCH_OPTIONS: [HF_LAUNCH_OPTIONS, false],
  };
  for (const [table, [options, bothSwitches]] of Object.entries(tables)) {
    const cmd = addOptionFlags(new Command(), options, { bothSwitches });
    for (const [name, spec] of Object.entries(options)) {
      if (spec.kind !== 'boolean') continue;
      const flag = flagOf(name, spec);
      assert.ok(!flag.startsWith('no-'), `${table}.${name}: a flag is the positive name; --no-${flag} is made from it`);
      const off = cmd.options.find((o) => o.long === `--no-${flag}`);
      const on = cmd.options.find((o) => o.long === `--${flag}`);
      assert.ok(cmd.options.some((o) => o.long === switchOf(name, spec)), `${table}.${name}: no ${switchOf(name, spec)}`);
      if (bothSwitches || spec.default) assert.equal(off?.description, offHelpOf(spec), `${table}.${name}: --no-${flag}'s help`);
      if (bothSwitches || !spec.default) assert.ok(on?.description.startsWith(spec.help), `${table}.${name}: --${flag}'s help`);
      if (!bothSwitches) assert.equal(on === undefined, spec.default, `${table}.${name}: only the switch that turns the default around`);
    }
  }
});
