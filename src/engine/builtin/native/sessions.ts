// The native kernels' onnxruntime sessions: one per graph and thread pool (pool-choice.ts), made the
// first time a kernel needs it and kept for the process, on the thread count the kernels were
// registered with.
import { NativeSession } from './ort.ts';
import { poolNow } from './pool-choice.ts';

let threads = 1;
const sessions = new Map<string, NativeSession>();

/** Sets the thread count, before the first session (registerNativeMatMul). */
export function setNativeThreads(n: number): void {
  threads = n;
}

/** The thread count the native kernels were registered with. */
export function nativeThreads(): number {
  return threads;
}

/** The session of the graph named `key` on the pool that runs now; `graph` encodes it the first time. */
export function sessionFor(key: string, graph: () => Uint8Array): NativeSession {
  const pool = poolNow();
  const poolKey = `${key} ${pool}`;
  let s = sessions.get(poolKey);
  if (!s) {
    s = new NativeSession(graph(), threads, pool);
    sessions.set(poolKey, s);
  }
  return s;
}
