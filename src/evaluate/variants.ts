// Prompt variants: the prompts (study B's Prompt-1 / Prompt-2) and the numbers of in-context
// demonstrations a test set is evaluated with. Each variant's name is the store's prompt_variant:
// "" for the plain prompt (the store's default, what `analyze` reads unless told otherwise),
// else "prompt-2", "3-shot" or "prompt-2/3-shot", naming only what the command varied.
import { UserError } from '../errors.ts';

export interface PromptVariant {
  name: string;
  prompt: 1 | 2;
  shots: number;
}

export function promptVariants(prompts?: readonly number[], shots?: readonly number[]): PromptVariant[] {
  for (const p of prompts ?? []) if (p !== 1 && p !== 2) throw new UserError(`--prompt ${p}: expected 1 or 2 (study B's Prompt-1 and Prompt-2)`);
  for (const k of shots ?? []) if (!Number.isInteger(k) || k < 0) throw new UserError(`--shots ${k}: expected whole numbers >= 0`);
  const out: PromptVariant[] = [];
  for (const prompt of (prompts ?? [1]) as (1 | 2)[]) {
    for (const k of shots ?? [0]) {
      const parts: string[] = [];
      if (prompts) parts.push(`prompt-${prompt}`);
      if (shots) parts.push(`${k}-shot`);
      out.push({ name: parts.join('/'), prompt, shots: k });
    }
  }
  const names = out.map((v) => v.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup !== undefined) throw new UserError(`prompt variant "${dup}" is asked for twice; list each prompt and each shot count once`);
  return out;
}

