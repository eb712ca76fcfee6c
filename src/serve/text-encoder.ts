// Tokenising text prompts off the event loop: a large prompt takes seconds to tokenise (about 1.5 s
// per million characters here), and on the main thread every other request, GET /health included,
// would wait. One worker thread per tokenizer (encode-worker.mjs), started on first use; requests
// queue there in order.
import { Worker } from 'node:worker_threads';
import type { HfTokenizer } from '../engine/index.ts';

interface Pending { resolve(ids: number[][]): void; reject(err: Error): void }

export class TextEncoder {
  private worker?: Worker;
  private next = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly tokenizer: HfTokenizer) {}

  encode(texts: string[]): Promise<number[][]> {
    const worker = this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./encode-worker.mjs', import.meta.url),
      { workerData: { json: this.tokenizer.json, config: this.tokenizer.config } });
    worker.unref();
    worker.on('message', (m: { id: number; ids?: number[][]; error?: string }) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error !== undefined) p?.reject(new Error(`tokenising the prompt failed: ${m.error}`));
      else p?.resolve(m.ids!);
    });
    worker.on('error', (err) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.worker = undefined;
    });
    this.worker = worker;
    return worker;
  }

  close(): Promise<number> | undefined {
    return this.worker?.terminate();
  }
}
