// genstudy score: log P(continuation | context) of each pair with the built-in engine, so the engine
// serves on its own and other tools (lm-evaluation-harness, PyTorch scripts) can check it.
import fs from 'node:fs';
import { Command, Option } from 'commander';
import { loadModel } from '../engine/index.ts';
import { UserError, where } from '../errors.ts';
import type { ScoreRequest } from '../types.ts';

interface ScoreFlags { model: string; input: string; format: 'json' | 'jsonl'; batchTokens: string }

export interface ScorePair extends ScoreRequest { id: string | number }

/** Reads JSON lines {"id", "context", "continuation"}; blank lines are skipped; errors name file:line. */
export function readScorePairs(file: string): ScorePair[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const pairs: ScorePair[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const at = where(file, i + 1);
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (err) {
      throw new UserError(`${at}: not valid JSON (${(err as Error).message})`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UserError(`${at}: expected an object {"id", "context", "continuation"}`);
    const o = v as Record<string, unknown>;
    for (const key of ['context', 'continuation']) {
      if (typeof o[key] !== 'string') throw new UserError(`${at}: field "${key}" must be a string, got ${o[key] === undefined ? 'nothing' : JSON.stringify(o[key])}`);
    }
    const id = o.id ?? i + 1;
    if (typeof id !== 'string' && typeof id !== 'number') throw new UserError(`${at}: field "id" must be a string or a number`);
    pairs.push({ id, context: o.context as string, continuation: o.continuation as string });
  });
  return pairs;
}

export function registerScore(program: Command): void {
  program
    .command('score')
    .description('Log-likelihood of continuations given contexts (lm-evaluation-harness semantics) with the built-in engine')
    .requiredOption('--model <dir>', 'Hugging Face model folder (config.json, model.safetensors, tokenizer.json)')
    .requiredOption('--input <file>', 'JSON lines {"id": ..., "context": ..., "continuation": ...}')
    .addOption(new Option('--format <format>', 'output: one JSON document, or one JSON line per pair').choices(['json', 'jsonl']).default('json'))
    .option('--batch-tokens <n>', 'padded tokens per forward batch', '1024')
    .action(async (flags: ScoreFlags) => {
      const batchTokens = Number(flags.batchTokens);
      if (!Number.isInteger(batchTokens) || batchTokens < 1) throw new UserError(`--batch-tokens ${flags.batchTokens}: expected a positive integer`);
      const pairs = readScorePairs(flags.input);
      const model = await loadModel(flags.model, { maxBatchTokens: batchTokens });
      try {
        const results = await model.score(pairs);
        const rows = pairs.map((p, i) => ({ id: p.id, logprob: results[i].logprob, tokens: results[i].tokens, is_greedy: results[i].isGreedy }));
        const out = flags.format === 'jsonl'
          ? rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '')
          : JSON.stringify({ model: flags.model, id: model.id, results: rows }, null, 2) + '\n';
        process.stdout.write(out);
      } finally {
        model.dispose();
      }
    });
}
