// The command line's shared conventions: one exit-code scheme (src/errors.ts EXIT) for parser
// errors and genstudy's own, invalid values named with their valid range or choices, and help that
// marks required options and names fallbacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { genstudy as genstudyProcess } from '../support/genstudy-process.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { EXIT } from '../../src/errors.ts';

/**
 * genstudy's command line through main() in this process: the exit code the bin sets and what it prints, without a tsx start
 * per command (the first test checks, in a child process, that the bin's exit code is main's).
 */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await genstudy(args);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

test('unknown command exits non-zero', async () => {
  const r = await genstudyProcess(['no-such-command']);
  assert.equal(r.code, EXIT.userError);
  assert.deepEqual(await cli(['no-such-command']), { code: r.code, out: r.stdout, err: r.stderr }, 'the bin exits with main\'s code and output');
});

test('parser errors and genstudy\'s own errors exit with the same code, and name the valid choices or range', async () => {
  const cases: [string[], RegExp][] = [
    [['analyze', 'x.csv', '--control', 'a', '--method', 'kendall'], /'kendall' is invalid\. Allowed choices are pearson, spearman/],
    [['analyze', 'x.csv', '--control', 'a', '--alpha', '2'], /--alpha 2: expected a number in \(0, 1\)/],
    [['analyze', 'x.csv', '--control', 'a', '--bootstrap', '-1'], /--bootstrap -1: expected a whole number >= 0/],
    [['analyze', 'x.csv', '--control', 'a', '--no-such-flag'], /unknown option '--no-such-flag'/],
    [['analyze', 'x.csv'], /required option '--control <test-set>' not specified/],
    [['evaluate', '--model', 'm', '--test-set', 'synthetic', '--limit', '0'], /--limit 0: expected a whole number >= 1/],
    [['evaluate', '--model', 'm', '--test-set', 'synthetic', '--shots', '1,x'], /--shots x: expected a whole number >= 0/],
    [['serve', 'm', '--port', '70000'], /--port 70000: expected a whole number from 0 to 65535/],
    [['train', '--data', 'synthetic', '--init', 'gpt2', '--lr', '0', '--out', path.join(os.tmpdir(), 'genstudy-cli-test-never-written')],
      /--lr 0: expected a number > 0/],
    [['watch', 'r', '--test-set', 'synthetic', '--interval', '0'], /--interval 0: expected a number in \[0\.1, 3600\]/],
    [['data', 'inspect', 'x', '--format', 'yaml'], /'yaml' is invalid\. Allowed choices are table, json/],
  ];
  const results = await Promise.all(cases.map(([args]) => cli(args)));
  for (const [i, [args, message]] of cases.entries()) {
    const r = results[i];
    assert.equal(r.code, EXIT.userError, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, message, args.join(' '));
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
  }
});

test('help marks required options and names the data folder fallback; --help and --version exit 0', async () => {
  const train = await cli(['train', '--help']);
  assert.equal(train.code, EXIT.ok);
  assert.match(train.out, /--lr <lr>\s+peak learning rate \(required\)/);
  assert.match(train.out.replace(/\s+/g, ' '), /--data <spec> [^]*?\(required\) --synthetic-seed/);
  assert.match(train.out, /--format <format>/);
  const evaluate = await cli(['evaluate', '--help']);
  assert.match(evaluate.out.replace(/\s+/g, ' '), /--data-dir <dir> .*\$GENSTUDY_DATA, else \.\.\/shared\/data/);
  assert.match(evaluate.out.replace(/\s+/g, ' '), /--test-set <set\.\.\.> .*\(required\)/);
  const version = await cli(['--version']);
  assert.equal(version.code, EXIT.ok);
  assert.match(version.out, /^\d+\.\d+\.\d+/);
});
