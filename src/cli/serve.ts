// genstudy serve: the built-in engine behind an OpenAI-compatible completions API (src/serve), on
// loopback unless told otherwise; prints its URL, runs until SIGINT / SIGTERM.
import { Command } from 'commander';
import { UserError } from '../errors.ts';
import { startServer } from '../serve/index.ts';
import { wholeNumber } from './flag-values.ts';

interface ServeFlags { host: string; port: string; modelName?: string; batchTokens?: string }

function portNumber(value: string): number {
  return wholeNumber('--port', value, { min: 0, max: 65535 })!;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description("Serve a model folder over an OpenAI-compatible completions API (echo + logprobs, LoRA adapters by name) for genstudy's remote engine (src/engine/remote) and other clients")
    .argument('<model>', 'a Hugging Face model folder (config.json, safetensors, tokenizer.json)')
    .option('--host <host>', 'address to listen on (loopback by default; the API has no authentication)', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', '8000')
    .option('--model-name <name>', 'the name clients send as "model" (default: the folder name)')
    .option('--batch-tokens <n>', "the engine's padded tokens per forward batch")
    .action(async (model: string, flags: ServeFlags) => {
      const port = portNumber(flags.port);
      const batchTokens = wholeNumber('--batch-tokens', flags.batchTokens);
      const server = await startServer({
        modelDir: model, host: flags.host, port, modelName: flags.modelName, maxBatchTokens: batchTokens,
        log: (line) => process.stderr.write(`genstudy serve: ${line}\n`),
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') throw new UserError(`--port ${port}: already in use on ${flags.host}`);
        if (err.code === 'EADDRNOTAVAIL') throw new UserError(`--host ${flags.host}: not an address of this machine`);
        throw err;
      });
      if (!['127.0.0.1', 'localhost', '::1'].includes(flags.host)) {
        process.stderr.write(`genstudy serve: listening on ${flags.host}, beyond this machine; the API has no authentication\n`);
      }
      process.stdout.write(`genstudy serve: model "${server.modelName}" at ${server.url}/v1 (POST /v1/completions, GET /v1/models, GET /health)\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => { process.off('SIGINT', stop); process.off('SIGTERM', stop); void server.close().then(resolve); };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
