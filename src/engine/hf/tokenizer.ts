// The Tokenizer of src/types.ts over tokenizer.json + tokenizer_config.json, via @huggingface/tokenizers.
import fs from 'node:fs';
import path from 'node:path';
import { Tokenizer as HfTokenizerImpl } from '@huggingface/tokenizers';
import { UserError } from '../../errors.ts';
import type { Tokenizer } from '../../types.ts';
import { readJsonFile } from './checkpoint.ts';
import { useIntegerBpe } from './integer-bpe.ts';

export class HfTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly bosTokenId?: number;
  readonly eosTokenId?: number;
  readonly padTokenId?: number;
  /** The largest token id the tokenizer can produce (vocabulary and added tokens). */
  readonly maxTokenId: number;

  constructor(private readonly impl: HfTokenizerImpl, readonly json: Record<string, unknown>, readonly config: Record<string, unknown>) {
    useIntegerBpe(impl.model);
    const vocab = impl.get_vocab(true);
    this.vocabSize = vocab.size;
    // A loop, not Math.max(...ids): real vocabularies (150k entries) overflow the argument limit.
    let max = -1;
    for (const id of vocab.values()) if (id > max) max = id;
    this.maxTokenId = max;
    this.bosTokenId = this.idOf(config.bos_token);
    this.eosTokenId = this.idOf(config.eos_token);
    this.padTokenId = this.idOf(config.pad_token);
  }

  private idOf(token: unknown): number | undefined {
    // tokenizer_config.json writes special tokens either as strings or as AddedToken objects.
    const content = typeof token === 'string' ? token
      : token && typeof token === 'object' && typeof (token as { content?: unknown }).content === 'string' ? (token as { content: string }).content
      : undefined;
    return content === undefined ? undefined : this.impl.token_to_id(content);
  }

  encode(text: string, opts?: { addSpecialTokens?: boolean }): number[] {
    return this.impl.encode(text, { add_special_tokens: opts?.addSpecialTokens ?? true }).ids;
  }

  decode(ids: number[], opts?: { skipSpecialTokens?: boolean }): string {
    if (ids.length === 0) return ''; // the library rejects an empty list
    return this.impl.decode(ids, { skip_special_tokens: opts?.skipSpecialTokens ?? false });
  }
}

export function loadTokenizer(dir: string): HfTokenizer {
  const jsonFile = path.join(dir, 'tokenizer.json');
  if (!fs.existsSync(jsonFile)) {
    throw new UserError(`${dir}: no tokenizer.json (only fast tokenizers are supported; save it with a transformers fast tokenizer)`);
  }
  const json = readJsonFile(jsonFile);
  const configFile = path.join(dir, 'tokenizer_config.json');
  const config = fs.existsSync(configFile) ? readJsonFile(configFile) : {};
  try {
    return new HfTokenizer(new HfTokenizerImpl(json, config), json, config);
  } catch (err) {
    throw new UserError(`${jsonFile}: cannot build the tokenizer (${(err as Error).message})`);
  }
}
