// genstudy serve: the built-in engine behind an OpenAI-compatible completions API (src/serve), on
// loopback unless told otherwise; prints its URL, runs until SIGINT / SIGTERM.
import { Command, Option } from 'commander';
import { UserError } from '../errors.ts';
import { terminalSafe } from '../terminal-safe.ts';
import { SERVE_DEFAULTS, SERVE_PROFILES, startServer, type ServeProfile } from '../serve/index.ts';
import { numberIn, wholeNumber } from './flag-values.ts';

interface ServeFlags { host: string; port: string; modelName?: string; batchTokens?: string; loraRoot?: string[]; maxLoras: string;
  maxBodyMb: string; maxPromptTokens: string; mimic: ServeProfile; startupDelay?: string }

function portNumber(value: string): number {
  return wholeNumber('--port', value, { min: 0, max: 65535 })!;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description("Serve a model folder over an OpenAI-compatible completions API (echo + logprobs, LoRA adapters by name) for " +
      "genstudy's remote engine (src/engine/remote) and other clients")
    .argument('<model>', 'a Hugging Face model folder (config.json, safetensors, tokenizer.json)')
    .option('--host <host>', 'address to listen on (loopback by default; the API has no authentication)', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', '8000')
    .option('--model-name <name>', 'the name clients send as "model" (default: the folder name)')
    .option('--batch-tokens <n>', "the engine's padded tokens per forward batch")
    .option('--lora-root <dir...>',
      'folders whose LoRA adapter folders clients may load at run time (POST /v1/load_lora_adapter); none: run-time loading is off')
    .option('--max-loras <n>', 'merged copies of the model in memory at once: one per loaded LoRA adapter, and one per adapter unloaded ' +
      '(or evicted) while its requests are answered; a load past it waits for a copy to be freed', String(SERVE_DEFAULTS.maxLoras))
    .option('--max-body-mb <n>', 'largest request body in MiB (larger: HTTP 413)', String(SERVE_DEFAULTS.maxBodyBytes / 2 ** 20))
    .option('--max-prompt-tokens <n>', 'prompt tokens per completions request (more: HTTP 413)', String(SERVE_DEFAULTS.maxPromptTokens))
    .option('--startup-delay <seconds>', 'wait this long before listening, as a large model loading would (for testing clients)')
    .addOption(new Option('--mimic <server>', "answer as this server does where servers differ (vllm: vLLM's /v1/models, context limit, " +
      "generation_config defaults, LoRA errors; for testing clients against " +
      "vLLM's behaviour)").choices(SERVE_PROFILES).default(SERVE_DEFAULTS.profile))
    .action(async (model: string, flags: ServeFlags) => {
      const port = portNumber(flags.port);
      const batchTokens = wholeNumber('--batch-tokens', flags.batchTokens);
      const limits = {
        loraRoots: flags.loraRoot ?? [], maxLoras: wholeNumber('--max-loras', flags.maxLoras, { min: 1 }),
        maxBodyBytes: Math.floor(numberIn('--max-body-mb', flags.maxBodyMb, { min: 0, minOpen: true })! * 2 ** 20),
        maxPromptTokens: wholeNumber('--max-prompt-tokens', flags.maxPromptTokens, { min: 1 }),
      };
      const server = await startServer({
        modelDir: model, host: flags.host, port, modelName: flags.modelName, maxBatchTokens: batchTokens, ...limits, profile: flags.mimic,
        startupDelayMs: (numberIn('--startup-delay', flags.startupDelay, { min: 0 }) ?? 0) * 1000,
        // Problems name what clients sent (routes, adapter names and paths): shown, never obeyed by the
        // terminal; a stack's lines are kept, indented, so no line a client wrote can pass for the server's.
        log: (line) => process.stderr.write(`genstudy serve: ${terminalSafe(line, { lines: true }).replace(/\n/g, '\n  ')}\n`),
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') throw new UserError(`--port ${port}: already in use on ${flags.host}`);
        if (err.code === 'EADDRNOTAVAIL') throw new UserError(`--host ${flags.host}: not an address of this machine`);
        throw err;
      });
      if (!['127.0.0.1', 'localhost', '::1'].includes(flags.host)) {
        process.stderr.write(`genstudy serve: listening on ${terminalSafe(flags.host)}, beyond this machine; the API has no authentication\n`);
      }
      // The model's name is the folder's (or --model-name): a file name, shown as it is, escapes escaped.
      process.stdout.write(`genstudy serve: model "${terminalSafe(server.modelName)}" at ${server.url}/v1 ` +
        '(POST /v1/completions, GET /v1/models, GET /health)\n');
      process.stderr.write(limits.loraRoots.length === 0 ? 'genstudy serve: run-time LoRA loading is off (--lora-root DIR turns it on)\n'
        : `genstudy serve: LoRA adapters may be loaded from ${terminalSafe(limits.loraRoots.join(', '))} (at most ${limits.maxLoras} ` +
          'merged copies of the model at once, adapters unloaded but still answering included)\n');
      await new Promise<void>((resolve) => {
        const stop = (): void => { process.off('SIGINT', stop); process.off('SIGTERM', stop); void server.close().then(resolve); };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
