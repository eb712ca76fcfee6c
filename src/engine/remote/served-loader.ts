// Evaluation through servers genstudy starts itself, one model folder at a time: for each
// checkpoint the loader makes sure a server runs on the folder it needs (a full checkpoint: itself;
// a LoRA adapter: its base, on which the adapters are loaded one after another), started from a
// command template ({model} = the folder, {port} = a free loopback port), and stops it when another
// folder is needed or at close(). This is how full fine-tuned checkpoints are evaluated on vLLM,
// which serves one model per process and does not say which weights it holds.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { UserError } from '../../errors.ts';
import type { CheckpointRef, ModelHandle, ModelLoader } from '../../types.ts';
import { remoteLoader, type RemoteLoaderOptions } from './loader.ts';

export interface ServedLoaderOptions extends Omit<RemoteLoaderOptions, 'urls' | 'modelName'> {
  /** The server's command line, e.g. ["vllm", "serve", "{model}", "--port", "{port}", "--enable-lora"]. */
  command: string[];
  /** How long a server may take to answer GET /v1/models (default 20 minutes: a 7B model loads in minutes). */
  startupMs?: number;
  log?: (line: string) => void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, child: ChildProcess, output: () => string, startupMs: number): Promise<void> {
  const until = Date.now() + startupMs;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new UserError(`the evaluation server exited (${child.exitCode ?? child.signalCode}) before answering: ` +
        `${output().trim().split('\n').slice(-5).join(' | ')}`);
    }
    try {
      const r = await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(5000) });
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new UserError(`the evaluation server at ${url} did not answer within ${startupMs / 1000} s`);
}

export function servedLoader(o: ServedLoaderOptions): ModelLoader & { close(): Promise<void> } {
  if (!o.command.some((a) => a.includes('{model}')) || !o.command.some((a) => a.includes('{port}'))) {
    throw new UserError(`serve command ${JSON.stringify(o.command.join(' '))}: it must name {model} and {port}`);
  }
  let current: { folder: string; child: ChildProcess; loader: ModelLoader } | undefined;
  const stop = async (): Promise<void> => {
    const c = current;
    current = undefined;
    if (!c || c.child.exitCode !== null) return;
    const gone = new Promise((r) => c.child.once('exit', r));
    c.child.kill('SIGTERM');
    const timer = setTimeout(() => c.child.kill('SIGKILL'), 30_000);
    await gone;
    clearTimeout(timer);
  };
  const serverFor = async (folder: string) => {
    if (current?.folder === folder) return current;
    await stop();
    const port = await freePort();
    const args = o.command.map((a) => a.replaceAll('{model}', folder).replaceAll('{port}', String(port)));
    o.log?.(`starting ${args.join(' ')}`);
    let output = '';
    const child = spawn(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => { output = (output + d.toString()).slice(-20_000); };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) => reject(new UserError(`serve command ${args[0]}: ${err.message}`)));
    });
    await spawned;
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitReady(url, child, () => output, o.startupMs ?? 20 * 60_000);
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
    current = { folder, child, loader: remoteLoader({ ...o, urls: [url] }) };
    return current;
  };
  const loader = async (cp: CheckpointRef): Promise<ModelHandle> => (await serverFor(path.resolve(cp.base ?? cp.dir))).loader(cp);
  return Object.assign(loader, { close: stop });
}
