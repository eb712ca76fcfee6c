// The --remote flags of the commands that evaluate (evaluate, watch), declared once: the servers,
// the served model's name, how long to wait for a server to start, answer, and how often to retry it
// (defaults: the remote engine's own, REMOTE_DEFAULTS), and how its model is matched with each checkpoint.
import { Option, type Command } from 'commander';
import { REMOTE_DEFAULTS, remoteLoader } from '../engine/index.ts';
import { IDENTITY_CHECKS, type IdentityCheck, type ModelLoader } from '../types.ts';
import { numberIn, wholeNumber } from './flag-values.ts';

export interface RemoteFlags { remote?: string[]; remoteModel?: string; remoteTimeout?: string; remoteRetries?: string;
  remoteStartup?: string; remoteIdentity?: IdentityCheck }

export function addRemoteOptions(command: Command): Command {
  return command
    .option('--remote <url...>', 'evaluate through these OpenAI-compatible servers (vLLM, genstudy serve) instead of the built-in engine')
    .option('--remote-model <name>', 'the served model name for full checkpoints (default: the one the server lists)')
    .option('--remote-timeout <seconds>', 'give up on a server request after this long (then retry)', String(REMOTE_DEFAULTS.timeoutMs / 1000))
    .option('--remote-retries <n>', 'tries after the first one for a request that failed (429, 5xx, timeout, lost connection)',
      String(REMOTE_DEFAULTS.retries))
    .option('--remote-startup <seconds>', 'how long a server that refuses connections may take to start (GET /health polled, progress ' +
      'shown) before its refusals count as failures', String(REMOTE_DEFAULTS.startupMs / 1000))
    .addOption(new Option('--remote-identity <check>', "how a server that does not report its weights (vLLM) is matched with each " +
      "checkpoint: path (its /v1/models root must be the checkpoint's folder) or probe (a few prompt log-probs compared with the " +
      "built-in engine on the local files)").choices(IDENTITY_CHECKS).default(IDENTITY_CHECKS[0]));
}

/** The remote loader the flags ask for, or undefined without --remote. */
export function remoteLoaderOf(flags: RemoteFlags): ModelLoader | undefined {
  const timeout = numberIn('--remote-timeout', flags.remoteTimeout, { min: 0, minOpen: true }) ?? REMOTE_DEFAULTS.timeoutMs / 1000;
  const retries = wholeNumber('--remote-retries', flags.remoteRetries, { min: 0 }) ?? REMOTE_DEFAULTS.retries;
  const startup = numberIn('--remote-startup', flags.remoteStartup, { min: 0 }) ?? REMOTE_DEFAULTS.startupMs / 1000;
  if (!flags.remote) return undefined;
  return remoteLoader({ urls: flags.remote, modelName: flags.remoteModel, timeoutMs: timeout * 1000, retries, startupMs: startup * 1000,
    identity: flags.remoteIdentity });
}
