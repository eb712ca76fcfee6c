// The attention projections LoRA adapts when no target modules are named: PEFT's usual choice per
// family (study A's q/k/v/o; OPT names its output projection out_proj; GPT-2 fuses q/k/v in c_attn).
import fs from 'node:fs';
import path from 'node:path';

export function defaultLoraTargets(modelType: unknown): string[] {
  if (modelType === 'gpt2') return ['c_attn', 'c_proj'];
  if (modelType === 'opt') return ['q_proj', 'k_proj', 'v_proj', 'out_proj'];
  return ['q_proj', 'k_proj', 'v_proj', 'o_proj'];
}

export function defaultLoraTargetsOf(modelDir: string): string[] {
  return defaultLoraTargets(JSON.parse(fs.readFileSync(path.join(modelDir, 'config.json'), 'utf8')).model_type);
}
