// Runs `genstudy <args>` in this process through main(), as bin/genstudy.js does in its own: the
// exit code and what the command wrote, in the shape test/support/genstudy-process.ts gives for a
// child process. For tests that are not about the process boundary (a signal, a crash's report, the
// bin script, what the process leaves behind at exit): no tsx start-up and no module loading per
// command, which on a loaded machine is most of such a test's time.
import { main } from '../../src/cli/main.ts';

export { repoRoot } from './genstudy-process.ts';

type Write = typeof process.stdout.write;

/** One command at a time: what it writes is caught on process.stdout and process.stderr. */
let last: Promise<unknown> = Promise.resolve();

export function genstudy(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = last.then(() => once(args));
  last = run.catch(() => undefined);
  return run;
}

async function once(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const got = { stdout: '', stderr: '' };
  const { write: out } = process.stdout;
  const { write: err } = process.stderr;
  // A write's callback, if given, is called as a stream would once the text is taken.
  const taken = (rest: unknown[]) => {
    const done = rest.at(-1);
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  };
  // The command writes text; the test runner's own messages to its parent (bytes) pass through.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (typeof chunk !== 'string') return (out as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
    got.stdout += chunk;
    return taken(rest);
  }) as Write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    got.stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return taken(rest);
  }) as Write;
  try {
    return { code: await main(args), ...got };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}
