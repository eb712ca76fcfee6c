// Worker thread of text-encoder.ts: tokenises text prompts off the main thread, with the same
// library call as engine/hf/tokenizer.ts (HfTokenizer.encode: add_special_tokens true), so the
// ids are the engine's. Plain JavaScript: a worker thread does not get tsx's loader.
import { parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';

const tokenizer = new Tokenizer(workerData.json, workerData.config);
parentPort.on('message', ({ id, texts }) => {
  try {
    parentPort.postMessage({ id, ids: texts.map((t) => tokenizer.encode(t, { add_special_tokens: true }).ids) });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err?.message ?? err) });
  }
});
