// A pool of OpenAI-compatible servers (base URLs): each request goes to the least busy endpoint
// that is not cooling down after a failure, at most `concurrency` requests in flight per endpoint;
// 429, 5xx, timeouts and lost connections are retried with exponential backoff (honouring
// Retry-After), on another endpoint when there is one. Other 4xx answers and bodies that are not
// JSON are not retried: they are the request's or the server's fault, and say so.
// Uses Node's built-in fetch (undici, keep-alive), so no HTTP client dependency.
import { UserError } from '../../errors.ts';
import { waitForHealth } from './wait-for-health.ts';

export interface EndpointOptions {
  /** Requests in flight per endpoint (default 4). */
  concurrency?: number;
  /** Tries after the first one (default 8: about 30 s of backoff in all). */
  retries?: number;
  /** First backoff in ms, doubled each retry up to maxBackoffMs (default 250 / 8000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Per-request timeout in ms (default 600 000: a long generation on a large model). */
  timeoutMs?: number;
  /**
   * How long a server that refuses connections may take to come up (GET /health polled), in ms,
   * before its refusals count as failures (default 600 000: vLLM loads a large model for minutes).
   */
  startupMs?: number;
  /** Progress lines while waiting for a server (default: stderr). */
  log?: (line: string) => void;
}

/**
 * Called when an endpoint answers 404 (e.g. a restarted server that lost a LoRA adapter loaded at
 * run time); true when it put things right and the request should be tried again.
 */
export type NotFoundHook = (url: string, message: string) => Promise<boolean>;

interface Endpoint { url: string; inFlight: number; coolUntil: number }

/** The defaults of the options users set most (CLI flags and study-file fields show these). */
export const REMOTE_DEFAULTS = { timeoutMs: 600_000, retries: 8, startupMs: 600_000 } as const;

/** A server's answer that will not get better by retrying. */
export class RemoteError extends UserError {
  /** The HTTP status, when the server answered with one. */
  readonly status?: number;
  /** The server's own error text (OpenAI-style error.message, or the body). */
  readonly serverMessage?: string;

  constructor(message: string, answer: { status?: number; serverMessage?: string } = {}) {
    super(message);
    if (answer.status !== undefined) this.status = answer.status;
    if (answer.serverMessage !== undefined) this.serverMessage = answer.serverMessage;
  }
}

/** A server URL as the pool keeps it: http://host:port (a trailing /v1 or / dropped). */
export function normaliseBase(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UserError(`${url}: not a URL (expected e.g. http://127.0.0.1:8000 or http://host:8000/v1)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UserError(`${url}: expected an http:// or https:// URL`);
  // Both http://host:8000 and http://host:8000/v1 name the same API.
  return u.href.replace(/\/+$/, '').replace(/\/v1$/, '');
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * `p`, keeping the process alive until it settles: the health wait's timers are unref'd so that a
 * wait nobody needs any more (its endpoint passed over) does not hold the process at exit.
 */
async function held<T>(p: Promise<T>): Promise<T> {
  const keep = setInterval(() => undefined, 1 << 30);
  try {
    return await p;
  } finally {
    clearInterval(keep);
  }
}

function snippet(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
}

/** The message of an OpenAI-style error body, else the body itself. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (body.error && typeof body.error.message === 'string') return body.error.message;
    if (typeof body.message === 'string') return body.message;
    if (body.detail !== undefined) return JSON.stringify(body.detail);
  } catch { /* not JSON: the text itself */ }
  return snippet(text);
}

export class RemoteEndpoints {
  readonly urls: string[];
  private readonly endpoints: Endpoint[];
  private readonly waiters: (() => void)[] = [];
  private readonly concurrency: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly timeoutMs: number;
  private readonly startupMs: number;
  private readonly log: (line: string) => void;
  /** One wait per endpoint at a time: requests refused meanwhile share it. */
  private readonly starting = new Map<string, Promise<boolean>>();
  private readonly neverCameUp = new Set<string>();
  /** Requests sent per endpoint, tries included (for tests and benchmarks). */
  readonly sent = new Map<string, number>();

  constructor(urls: string[], opts: EndpointOptions = {}) {
    if (urls.length === 0) throw new UserError('no server URL given');
    this.urls = urls.map(normaliseBase);
    this.endpoints = this.urls.map((url) => ({ url, inFlight: 0, coolUntil: 0 }));
    this.concurrency = opts.concurrency ?? 4;
    this.retries = opts.retries ?? REMOTE_DEFAULTS.retries;
    this.backoffMs = opts.backoffMs ?? 250;
    this.maxBackoffMs = opts.maxBackoffMs ?? 8000;
    this.timeoutMs = opts.timeoutMs ?? REMOTE_DEFAULTS.timeoutMs;
    this.startupMs = opts.startupMs ?? REMOTE_DEFAULTS.startupMs;
    this.log = opts.log ?? ((line) => process.stderr.write(`genstudy: remote: ${line}\n`));
    if (!Number.isInteger(this.retries) || this.retries < 0) throw new UserError(`retries ${this.retries}: expected a whole number >= 0`);
    if (!(this.timeoutMs > 0)) throw new UserError(`timeout ${this.timeoutMs} ms: expected a positive number`);
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) {
      throw new UserError(`concurrency ${this.concurrency}: expected a positive whole number`);
    }
  }

  /** Most requests in flight at once over all endpoints. */
  get capacity(): number {
    return this.endpoints.length * this.concurrency;
  }

  private async acquire(avoid?: Endpoint): Promise<Endpoint> {
    for (;;) {
      const now = Date.now();
      const free = this.endpoints.filter((e) => e.inFlight < this.concurrency);
      if (free.length > 0) {
        // Least busy among the healthy ones; a failed endpoint only when all have failed.
        const healthy = free.filter((e) => e.coolUntil <= now && e !== avoid);
        const pool = healthy.length > 0 ? healthy : free.filter((e) => e !== avoid).length > 0 ? free.filter((e) => e !== avoid) : free;
        const best = pool.reduce((a, b) => (b.inFlight < a.inFlight || (b.inFlight === a.inFlight && b.coolUntil < a.coolUntil) ? b : a));
        best.inFlight++;
        return best;
      }
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  private release(e: Endpoint): void {
    e.inFlight--;
    for (const wake of this.waiters.splice(0)) wake();
  }

  private backoff(attempt: number, retryAfter?: string | null): number {
    const exp = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** attempt);
    const jittered = exp * (0.75 + Math.random() * 0.5);
    const after = retryAfter ? Number(retryAfter) * 1000 : NaN;
    return Number.isFinite(after) ? Math.max(jittered, Math.min(after, 60_000)) : jittered;
  }

  /** GET `path` (e.g. /v1/models) from one endpoint, as JSON. */
  get(path: string, at?: string): Promise<unknown> {
    return this.request('GET', path, undefined, at, 'json');
  }

  /** POST to `path` on endpoint `at`, with retries; the answer as text (vLLM's LoRA routes answer plain text). */
  postForText(path: string, body: unknown, at: string, o: { retryServerErrors?: boolean } = {}): Promise<string> {
    return this.request('POST', path, body, at, 'text', undefined, o.retryServerErrors ?? true) as Promise<string>;
  }

  /** POST a JSON body to `path` on the least busy endpoint (or on `at`), with retries; the answer as JSON. */
  post(path: string, body: unknown, at?: string, onNotFound?: NotFoundHook): Promise<unknown> {
    return this.request('POST', path, body, at, 'json', onNotFound);
  }

  private async request(
    method: string, path: string, body: unknown, at: string | undefined, expect: 'json' | 'text', onNotFound?: NotFoundHook, retryServerErrors = true,
  ): Promise<unknown> {
    const pinned = at === undefined ? undefined : this.endpoints.find((e) => e.url === normaliseBase(at));
    if (at !== undefined && !pinned) throw new Error(`${at}: not one of this pool's endpoints`);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let lastProblem = '';
    let previous: Endpoint | undefined;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      const e = pinned ? await this.acquirePinned(pinned) : await this.acquire(previous);
      previous = e;
      const url = `${e.url}${path}`;
      this.sent.set(e.url, (this.sent.get(e.url) ?? 0) + 1);
      let status: number;
      let text: string;
      let retryAfter: string | null = null;
      try {
        const res = await fetch(url, {
          method, body: payload, headers: payload === undefined ? {} : { 'content-type': 'application/json' },
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const what = (err as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs / 1000} s`
          : `connection failed (${cause?.code ?? cause?.message ?? (err as Error).message})`;
        lastProblem = `${url}: ${what}`;
        this.release(e);
        if (cause?.code === 'ECONNREFUSED' && this.startupMs > 0 && !this.neverCameUp.has(e.url)) {
          // Nothing was sent, so the try is not counted: the request goes to another endpoint while
          // this one is waited for, or, with none other, waits for it up to the start-up deadline.
          const up = this.waitUntilUp(e);
          const others = this.endpoints.some((x) => x !== e && !this.starting.has(x.url) && !this.neverCameUp.has(x.url));
          if ((others && !pinned) || await held(up)) { attempt--; continue; }
        }
        const wait = this.backoff(attempt);
        e.coolUntil = Date.now() + wait;
        if (attempt < this.retries) await sleep(wait);
        continue;
      }
      this.release(e);
      if (status === 429 || (status >= 500 && retryServerErrors)) {
        lastProblem = `${url}: HTTP ${status}: ${errorMessage(text)}`;
        const wait = this.backoff(attempt, retryAfter);
        if (status >= 500) e.coolUntil = Date.now() + wait;
        if (attempt < this.retries) await sleep(wait);
        continue;
      }
      if (status === 404 && onNotFound && attempt < this.retries && await onNotFound(e.url, errorMessage(text))) {
        lastProblem = `${url}: HTTP 404: ${errorMessage(text)}`;
        continue;
      }
      if (status < 200 || status >= 300) {
        throw new RemoteError(`the server at ${e.url} answered ${method} ${path} with HTTP ${status}: ${errorMessage(text)}`,
          { status, serverMessage: errorMessage(text) });
      }
      if (expect === 'text') return text;
      try {
        return text === '' ? null : JSON.parse(text);
      } catch {
        throw new RemoteError(`the server at ${e.url} answered ${method} ${path} with a body that is not JSON (is it an ` +
          `OpenAI-compatible server?): ${JSON.stringify(snippet(text))}`);
      }
    }
    throw new RemoteError(`gave up on ${method} ${path} after ${this.retries + 1} tries over ${this.urls.join(', ')}; last: ${lastProblem}`);
  }

  /**
   * Whether a server refusing connections comes up within the start-up deadline; one wait per
   * outage, shared by the requests it refused, the endpoint passed over meanwhile.
   */
  private waitUntilUp(e: Endpoint): Promise<boolean> {
    let waiting = this.starting.get(e.url);
    if (!waiting) {
      e.coolUntil = Infinity;
      waiting = waitForHealth(e.url, { startupMs: this.startupMs, log: this.log }).then((up) => {
        this.starting.delete(e.url);
        e.coolUntil = 0;
        // A server that did not come up in time is not waited for again: its refusals count as failures.
        if (!up) this.neverCameUp.add(e.url);
        for (const wake of this.waiters.splice(0)) wake();
        return up;
      });
      this.starting.set(e.url, waiting);
    }
    return waiting;
  }

  private async acquirePinned(e: Endpoint): Promise<Endpoint> {
    while (e.inFlight >= this.concurrency) await new Promise<void>((r) => this.waiters.push(r));
    e.inFlight++;
    return e;
  }
}
