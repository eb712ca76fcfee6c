// genstudy score: log P(continuation | context) of each pair with the built-in engine, so the engine
// serves on its own and other tools (lm-evaluation-harness, PyTorch scripts) can check it.
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { UserError, unreadable, where } from '../errors.ts';
import { parseJsonLines } from '../json-text.ts';
import { builtinLoader } from '../engine/index.ts';
import { discoverCheckpoints } from '../evaluate/index.ts';
import type { CheckpointRef, ScoreRequest } from '../types.ts';
import { wholeNumber } from './flag-values.ts';
import { baseModelOption } from './shared-options.ts';

interface ScoreFlags { model: string; baseModel?: string; input: string; format: 'json' | 'jsonl'; batchTokens: string }

/**
 * The one model `--model` names: a model folder, its merged/ model, or a PEFT adapter folder on
 * its base (adapter_config.json's base_model_name_or_path, or --base-model). A run folder holds
 * many checkpoints; the error names them rather than guessing one.
 */
export function modelToScore(model: string, baseModel?: string): CheckpointRef {
  const dir = path.resolve(model);
  const { checkpoints } = discoverCheckpoints(model, { baseModel });
  const inside = checkpoints.filter((c) => path.dirname(c.dir) === dir && path.basename(c.dir) !== 'merged');
  if (inside.length > 0) {
    const names = inside.map((c) => path.basename(c.dir));
    const shown = names.length > 4 ? [...names.slice(0, 2), '...', ...names.slice(-2)] : names;
    throw new UserError(`${dir}: a run folder with ${names.length} checkpoints (${shown.join(', ')}); score one of them, e.g. --model ` +
      `${path.join(model, names.at(-1)!)}`);
  }
  return checkpoints[0];
}

export interface ScorePair extends ScoreRequest { id: string | number }

/** Reads JSON lines {"id", "context", "continuation"}; blank lines are skipped; errors name file:line. */
export function readScorePairs(file: string): ScorePair[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw unreadable(file, err);
  }
  return parseJsonLines(text, file).map(({ line, values: o }) => {
    const at = where(file, line);
    for (const key of ['context', 'continuation']) {
      if (typeof o[key] !== 'string') {
        throw new UserError(`${at}: field "${key}" must be a string, got ${o[key] === undefined ? 'nothing' : JSON.stringify(o[key])}`);
      }
    }
    const id = o.id ?? line;
    if (typeof id !== 'string' && typeof id !== 'number') throw new UserError(`${at}: field "id" must be a string or a number`);
    return { id, context: o.context as string, continuation: o.continuation as string };
  });
}

export function registerScore(program: Command): void {
  program
    .command('score')
    .description('Log-likelihood of continuations given contexts (lm-evaluation-harness semantics) with the built-in engine')
    .requiredOption('--model <dir>',
      'a Hugging Face model folder (config.json, model.safetensors, tokenizer.json) or a PEFT adapter folder (adapter_config.json)')
    .addOption(baseModelOption())
    .requiredOption('--input <file>', 'JSON lines {"id": ..., "context": ..., "continuation": ...}')
    .addOption(new Option('--format <format>', 'output: one JSON document, or one JSON line per pair').choices(['json', 'jsonl']).default('json'))
    .option('--batch-tokens <n>', 'padded tokens per forward batch', '1024')
    .action(async (flags: ScoreFlags) => {
      const batchTokens = wholeNumber('--batch-tokens', flags.batchTokens)!;
      const pairs = readScorePairs(flags.input);
      const { model, dispose } = await builtinLoader(batchTokens)(modelToScore(flags.model, flags.baseModel));
      try {
        const results = await model.score(pairs);
        const rows = pairs.map((p, i) => ({ id: p.id, logprob: results[i].logprob, tokens: results[i].tokens, is_greedy: results[i].isGreedy }));
        const out = flags.format === 'jsonl'
          ? rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '')
          : JSON.stringify({ model: flags.model, id: model.id, results: rows }, null, 2) + '\n';
        process.stdout.write(out);
      } finally {
        dispose();
      }
    });
}
