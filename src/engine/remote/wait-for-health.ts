// A server that refuses connections is starting (vLLM loads a large model for minutes before it
// listens) or restarting: wait on GET /health until it answers 200 or a start-up deadline passes,
// saying so now and then, instead of spending the request's few retries (~30 s) on it.
// Unref'd: a wait for an endpoint the requests have passed over must not keep the process alive.
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

export interface HealthWait {
  /** Longest wait for one server to come up, in ms. */
  startupMs: number;
  /** Pause between looks, in ms (default 2000). */
  pollMs?: number;
  /** A line every `progressMs` (default 30 s) while waiting. */
  log?: (line: string) => void;
  progressMs?: number;
}

/** Resolves true when `base`/health answers 200 within the deadline, false when it passes. */
export async function waitForHealth(base: string, o: HealthWait): Promise<boolean> {
  const start = Date.now();
  let said = start;
  const poll = o.pollMs ?? 2000;
  const every = o.progressMs ?? 30_000;
  o.log?.(`${base} refuses connections; waiting up to ${Math.round(o.startupMs / 1000)} s for it to start (GET /health)`);
  while (Date.now() - start < o.startupMs) {
    try {
      const r = await fetch(`${base}/health`, { signal: AbortSignal.timeout(Math.max(1000, poll)) });
      await r.arrayBuffer();
      if (r.ok) {
        o.log?.(`${base} is up after ${Math.round((Date.now() - start) / 1000)} s`);
        return true;
      }
    } catch {
      // still down
    }
    if (Date.now() - said >= every) {
      said = Date.now();
      o.log?.(`still waiting for ${base} (${Math.round((said - start) / 1000)} s of ${Math.round(o.startupMs / 1000)} s)`);
    }
    await sleep(poll);
  }
  return false;
}
