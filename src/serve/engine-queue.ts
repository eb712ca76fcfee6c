// One engine, many HTTP requests: the engine runs one call at a time (tfjs work is synchronous), and
// requests that arrive while it is busy wait and then go to the engine together, so concurrent
// clients share forward batches. Jobs for different models (base, adapters) cannot share a pass;
// each round serves one model, oldest waiting job first.
import type { BuiltinModel } from '../engine/index.ts';

export interface Job<I, O> { model: BuiltinModel; items: I[]; resolve(out: O[]): void; reject(err: unknown): void }

export class EngineQueue<I, O> {
  private waiting: Job<I, O>[] = [];
  private running = false;

  constructor(private readonly run: (model: BuiltinModel, items: I[]) => Promise<O[]>) {}

  submit(model: BuiltinModel, items: I[]): Promise<O[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ model, items, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    // Requests that arrived in the same tick go together.
    await new Promise((r) => setImmediate(r));
    try {
      while (this.waiting.length > 0) {
        const model = this.waiting[0].model;
        const jobs = this.waiting.filter((j) => j.model === model);
        this.waiting = this.waiting.filter((j) => j.model !== model);
        try {
          const out = await this.run(model, jobs.flatMap((j) => j.items));
          let at = 0;
          for (const j of jobs) { j.resolve(out.slice(at, at + j.items.length)); at += j.items.length; }
        } catch (err) {
          for (const j of jobs) j.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
