// config.json `model_type` -> the file implementing that family.
import { UserError } from '../../errors.ts';
import type { Arch, Family } from './families/family.ts';
import { gpt2 } from './families/gpt2.ts';
import { llama } from './families/llama.ts';
import { olmo2 } from './families/olmo2.ts';
import { opt } from './families/opt.ts';
import { qwen2 } from './families/qwen2.ts';

// SmolLM checkpoints are model_type "llama", so they need no entry of their own.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each family has its own Arch type; familyFor hands one out as Family<Arch>
const FAMILIES: Family<any>[] = [gpt2, opt, llama, qwen2, olmo2];

export function familyFor(modelType: unknown, file: string): Family<Arch> {
  const f = FAMILIES.find((fam) => fam.modelTypes.includes(String(modelType)));
  if (!f) {
    const known = FAMILIES.flatMap((fam) => fam.modelTypes).join(', ');
    throw new UserError(`${file}: model_type ${JSON.stringify(modelType)} is not supported (known: ${known})`);
  }
  return f;
}

export function knownModelTypes(): string[] {
  return FAMILIES.flatMap((f) => f.modelTypes);
}
