// The merged copies of the served model behind loaded LoRA adapters, bounded by --max-loras. A copy
// holds every weight its adapter changes (up to the whole model; the rest is shared with the base),
// so their number is what a client can make the server hold, and the bound counts every copy not
// yet freed: one unloaded or evicted while requests still use it keeps its place until the last of
// them is answered, and is freed then, not later. (It was freed 60 s after the unload and not
// counted: 60 load / unload cycles at --max-loras 2 on a ~100 MB model reached 4.1 GB.)
//
// A copy wanted past the bound waits, first come first served, for one to be freed. That is what
// vLLM does: a request whose adapter would make more than --max-loras adapters run at once is left
// waiting until one of them finishes, never refused (vllm/v1/core/sched/scheduler.py
// Scheduler.schedule, "Scheduling would exceed max_loras, skip", commit 00024d314514900f361ad072af6931e403b7f589).
// Who may be evicted to make room is the caller's rule (`evict`); without one, a waiter waits for
// copies already retired.

/** What a copy holds: a model, freed by dispose(). */
export interface Disposable { dispose(): void }

export class MergedCopy<M extends Disposable = Disposable> {
  /** Requests using the copy now. */
  users = 0;
  /** Unloaded or evicted: no new request gets it, and it is freed when `users` reaches 0. */
  retired = false;
  constructor(readonly model: M) {}
}

export interface CopyCounts {
  /** Copies in memory now, retired ones not yet freed included. */
  live: number;
  /** The most there have been at once (a copy being built counts from the moment its room is taken). */
  peak: number;
  /** Copies that requests are using now. */
  busy: number;
  /** Loads waiting for room now. */
  waiting: number;
}

export class MergedCopies<M extends Disposable = Disposable> {
  private readonly live = new Set<MergedCopy<M>>();
  /** Room taken by copies being built. */
  private building = 0;
  private peak = 0;
  private readonly waiting: (() => void)[] = [];
  private pumping = false;

  /**
   * `evict`: a copy to retire so that a waiting load gets room (its owner forgets it first), or
   * undefined when none may be.
   */
  constructor(readonly limit: number, private readonly evict: () => MergedCopy<M> | undefined = () => undefined) {}

  counts(): CopyCounts {
    const busy = [...this.live].filter((c) => c.users > 0).length;
    return { live: this.live.size + this.building, peak: this.peak, busy, waiting: this.waiting.length };
  }

  /** A new copy made by `build`, once there is room for it (waiting for a copy to be freed when there is not). */
  async create(build: () => M): Promise<MergedCopy<M>> {
    await new Promise<void>((resolve) => { this.waiting.push(resolve); this.pump(); });
    let model: M;
    try {
      model = build();
    } catch (err) {
      this.building--;
      this.pump();
      throw err;
    }
    this.building--;
    const copy = new MergedCopy(model);
    this.live.add(copy);
    return copy;
  }

  /** Runs `fn` on the copy's model; the copy is not freed before `fn` settles. */
  async use<T>(copy: MergedCopy<M>, fn: (model: M) => Promise<T>): Promise<T> {
    if (copy.retired) throw new Error('internal: a retired LoRA copy was handed to a new request');
    copy.users++;
    try {
      return await fn(copy.model);
    } finally {
      copy.users--;
      if (copy.retired && copy.users === 0) this.free(copy);
    }
  }

  /** Unloaded or evicted: freed now when no request uses it, else when the last one is answered. */
  retire(copy: MergedCopy<M>): void {
    if (copy.retired) return;
    copy.retired = true;
    if (copy.users === 0) this.free(copy);
  }

  /** Frees every copy (the server is stopping). */
  close(): void {
    for (const c of this.live) c.model.dispose();
    this.live.clear();
  }

  private free(copy: MergedCopy<M>): void {
    if (!this.live.delete(copy)) return;
    copy.model.dispose();
    this.pump();
  }

  /** Gives room to waiting loads in order, evicting only as many copies as the retired ones will not make room for. */
  private pump(): void {
    // An eviction frees a copy, which pumps again: the loop below sees its room.
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiting.length > 0) {
        if (this.live.size + this.building < this.limit) {
          this.building++;
          this.peak = Math.max(this.peak, this.live.size + this.building);
          this.waiting.shift()!();
          continue;
        }
        const retiring = [...this.live].filter((c) => c.retired).length;
        if (retiring >= this.waiting.length) return;
        const victim = this.evict();
        if (!victim) return;
        if (victim.retired) throw new Error('internal: a LoRA copy was evicted twice');
        this.retire(victim);
      }
    } finally {
      this.pumping = false;
    }
  }
}
