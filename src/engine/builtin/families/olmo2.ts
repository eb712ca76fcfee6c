// OLMo2 (transformers' modeling_olmo2.py): a Llama whose RMSNorms sit after the attention and MLP
// outputs (post-norm) and on the full projected q and k, before rotary.
import { llamaLike } from './llama.ts';

export const olmo2 = llamaLike({ modelTypes: ['olmo2'], label: 'OLMo2', defaults: { eps: 1e-5, maxPositions: 2048, qkvBias: false }, olmo2: true });
