// genstudy cache: what the evaluation cache holds (by who answered and for which model), and
// dropping what one server, model or time span answered, so the next evaluation asks again (for
// answers a misbehaving server gave that looked right: no check can see those).
import fs from 'node:fs';
import { Command } from 'commander';
import { storeOption } from './shared-options.ts';
import { formatTextTable } from '../text-table.ts';
import { UserError } from '../errors.ts';
import { normaliseBase } from '../engine/index.ts';
import type { EvaluationTables } from '../store/evaluation-tables.ts';
import { ResultStore } from '../store/result-store.ts';

interface CacheFlags { store: string; source?: string; model?: string; since?: string; until?: string }

function isoTime(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new UserError(`${flag} ${value}: expected a date and time, e.g. 2026-11-30T10:00:00Z or 2026-11-30`);
  return new Date(t).toISOString();
}

function withTables<T>(storePath: string, fn: (tables: EvaluationTables) => T): T {
  if (!fs.existsSync(storePath)) throw new UserError(`--store ${storePath}: no such results store`);
  const store = ResultStore.open(storePath); // brings an older store's schema up to date
  try {
    return fn(store.evaluation);
  } finally {
    store.close();
  }
}

export function registerCache(program: Command): void {
  const cache = program.command('cache').description(
    'The evaluation cache: list what answered it, drop what one server, model or time span answered');
  cache.command('list')
    .description('cached answers by source (builtin, or server URLs) and model, with their time span')
    .addOption(storeOption())
    .action((flags: CacheFlags) => {
      const groups = withTables(flags.store, (t) => t.cacheGroups());
      const rows = groups.map((g) => [g.source ?? '(unknown)', g.modelId, String(g.answers), g.first, g.last]);
      process.stdout.write(formatTextTable(['source', 'model', 'answers', 'first', 'last'], rows));
    });
  cache.command('drop')
    .description('drop cached answers matching every filter given, so the next evaluation asks again (scores are rewritten then)')
    .addOption(storeOption())
    .option('--source <url>', 'answers from this server (its base URL, as given to --remote), or "builtin"')
    .option('--model <id>', "answers for this model identity (or a prefix of it, as `cache list` shows)")
    .option('--since <time>', 'answers cached at or after this time (ISO 8601, UTC)')
    .option('--until <time>', 'answers cached at or before this time (ISO 8601, UTC)')
    .action((flags: CacheFlags) => {
      if ([flags.source, flags.model, flags.since, flags.until].every((f) => f === undefined)) {
        throw new UserError(
          'cache drop: say what to drop (--source URL, --model ID, --since / --until TIME); `genstudy cache list` shows what is cached');
      }
      const source = flags.source === undefined || flags.source === 'builtin' ? flags.source : normaliseBase(flags.source);
      const dropped = withTables(flags.store,
        (t) => t.dropCache({ source, modelId: flags.model, since: isoTime('--since', flags.since), until: isoTime('--until', flags.until) }));
      process.stdout.write(`genstudy: dropped ${dropped} cached answers from ${flags.store}; the next evaluation asks for them again\n`);
    });
}
