// A tiny random Llama over the synthetic suite's word-level tokenizer, and LoRA adapters on it:
// vLLM serves LoRA on Llama-family models (not on GPT-2), so the remote LoRA tests against the
// vLLM profile use this. Written with the engine's own safetensors writer and LoRA saver.
import fs from 'node:fs';
import path from 'node:path';
import { llama } from '../../../src/engine/builtin/families/llama.ts';
import { readSafetensors, writeSafetensors } from '../../../src/engine/hf/safetensors.ts';
import { LoraAdapters } from '../../../src/engine/builtin/lora.ts';
import { loadModel } from '../../../src/engine/index.ts';
import { seededRandom } from '../../../src/seeded-random.ts';
import { suiteTokenizerConfig, suiteTokenizerJson, suiteVocabulary } from '../../../src/synth/index.ts';
import { syntheticTask } from '../../../src/tasks/index.ts';

/** Writes a tiny Llama into `dir` and one LoRA adapter (q_proj, v_proj) per seed into `<adaptersDir>/<name>`. */
export async function writeTinyLlama(dir: string, adaptersDir: string, adapters: Record<string, number>): Promise<void> {
  const vocabulary = suiteVocabulary(syntheticTask());
  const config = {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', vocab_size: vocabulary.length, hidden_size: 32, intermediate_size: 64,
    num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 2, max_position_embeddings: 128, rms_norm_eps: 1e-5,
    hidden_act: 'silu', rope_theta: 10000, tie_word_embeddings: false, bos_token_id: 1, eos_token_id: 2, torch_dtype: 'float32',
  };
  const arch = llama.parseConfig(config, 'config.json');
  const rng = seededRandom(5, 'tiny-llama');
  const gauss = (): number => Math.sqrt(-2 * Math.log(Math.max(rng.next(), 1e-12))) * Math.cos(2 * Math.PI * rng.next());
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const spec of llama.params(arch)) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const norm = /norm\.weight$/.test(spec.name);
    tensors.set(spec.name, { shape: spec.shape, data: Float32Array.from({ length: size }, () => (norm ? 1 : gauss() * 0.2)) });
  }
  fs.mkdirSync(dir, { recursive: true });
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(suiteTokenizerJson({ vocabulary })));
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(suiteTokenizerConfig({ vocabulary })));
  const base = await loadModel(dir);
  try {
    for (const [name, seed] of Object.entries(adapters)) {
      const a = LoraAdapters.create(base, { r: 2, alpha: 4, dropout: 0, targetModules: ['q_proj', 'v_proj'] }, seed);
      const out = path.join(adaptersDir, name);
      await a.save(out, dir);
      a.dispose();
      // A fresh adapter's B is zero (no change): draw it, so each adapter answers differently.
      const file = path.join(out, 'adapter_model.safetensors');
      const draw = seededRandom(seed, 'tiny-llama-lora-B');
      const moved = new Map([...readSafetensors(file).tensors].map(([k, t]) => [k, {
        shape: t.shape, data: k.includes('lora_B') ? Float32Array.from(t.data, () => (draw.next() - 0.5) * 0.5) : Float32Array.from(t.data),
      }]));
      writeSafetensors(file, moved);
    }
  } finally {
    base.dispose();
  }
}
