// Qwen2 (transformers' modeling_qwen2.py): a Llama with biases on q/k/v (none on o).
// Sliding-window attention (use_sliding_window) is off in the released configs and not implemented.
import { llamaLike } from './llama.ts';

export const qwen2 = llamaLike({ modelTypes: ['qwen2'], label: 'Qwen2', defaults: { eps: 1e-6, maxPositions: 32768, qkvBias: true } });
