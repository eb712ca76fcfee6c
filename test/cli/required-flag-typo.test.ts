// A typo in a required flag names the typo and suggests the flag, for every command that has one:
// commander checks required options before unknown ones, so without src/cli/main.ts's hook
// `analyze x.csv --contrl mnli` said "required option '--control' not specified".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommanderError, type Command } from 'commander';
import { buildProgram } from '../../src/cli/main.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { EXIT } from '../../src/errors.ts';

/** Every command and subcommand with the words that reach it. */
function commands(cmd: Command, words: string[] = []): { cmd: Command; words: string[] }[] {
  return cmd.commands.flatMap((sub) => [{ cmd: sub, words: [...words, sub.name()] }, ...commands(sub, [...words, sub.name()])]);
}

/** One letter dropped from the middle of a long flag: `--control` -> `--contrl`. */
const typo = (flag: string) => flag.slice(0, 2 + Math.ceil((flag.length - 2) / 2)) + flag.slice(3 + Math.ceil((flag.length - 2) / 2));

test('every required flag, misspelt, is reported as unknown with the flag suggested', async () => {
  const program = await buildProgram();
  let err = '';
  const all = [program, ...commands(program).map((c) => c.cmd)];
  for (const c of all) c.configureOutput({ writeErr: (s) => { err += s; }, writeOut: () => undefined });
  let checked = 0;
  for (const { cmd, words } of commands(program)) {
    for (const option of cmd.options.filter((o) => o.mandatory && o.long)) {
      const flag = option.long!;
      const wrong = typo(flag);
      err = '';
      await assert.rejects(program.parseAsync([...words, wrong, 'x'], { from: 'user' }),
        (e: unknown) => e instanceof CommanderError && e.code === 'commander.unknownOption', `${words.join(' ')} ${wrong}`);
      assert.match(err, new RegExp(`unknown option '${wrong}'\\n\\(Did you mean ${flag}\\?\\)`), `${words.join(' ')} ${wrong}: ${err}`);
      checked++;
    }
  }
  assert.ok(checked >= 5, `${checked} required flags checked`);
});

test('as a user runs it: the typo exits 2 with the suggestion; a flag left out is still named as missing', async () => {
  const typoed = await genstudy(['analyze', 'scores.csv', '--contrl', 'mnli']);
  assert.equal(typoed.code, EXIT.userError);
  assert.match(typoed.stderr, /unknown option '--contrl'\n\(Did you mean --control\?\)/);
  assert.doesNotMatch(typoed.stderr, /not specified/);
  const missing = await genstudy(['analyze', 'scores.csv']);
  assert.equal(missing.code, EXIT.userError);
  assert.match(missing.stderr, /required option '--control <test-set>' not specified/);
});
