// genstudy data: pull (Hugging Face hub -> the shared cache), inspect (what a data set spec or a
// registry id loads to), list (the registry's ids).
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { UserError } from '../errors.ts';
import { wholeNumber } from './flag-values.ts';
import { addOptionFlags, optionFlagValues } from './option-flags.ts';
import type { OptionTable } from '../option-table.ts';
import { addDataDirOption, addFormatOption } from './shared-options.ts';
import type { Example } from '../types.ts';
import {
  DATA_SOURCES,
  REPO_TYPES,
  loadNamedDataSet,
  pullRepo,
  readRegistry,
  registeredIds,
  type DataSource,
  type HubOptions,
  type RepoType,
  type LoadedDataSet,
} from '../data/index.ts';
import { parseTemplate, renderTemplate, taskPreset } from '../tasks/index.ts';

/** The hub flags of `pull` and `inspect`, declared once: the hub's address, the cache folder, cache only. */
const HUB_FLAGS = {
  endpoint: { kind: 'string', metavar: 'url', help: 'hub address (default: HF_ENDPOINT or https://huggingface.co)' },
  cacheDir: { kind: 'string', metavar: 'dir', help: 'cache folder (default: HF_HUB_CACHE, HF_HOME/hub or ~/.cache/huggingface/hub)' },
  offline: { kind: 'boolean', default: false, help: 'use only the cache (as HF_HUB_OFFLINE=1)' },
} as const satisfies OptionTable;

/** What commander hands over (HUB_FLAGS' values among them). */
type HubFlags = Record<string, unknown>;

function hubOptions(given: HubFlags, log: (m: string) => void): HubOptions {
  const flags = optionFlagValues(given, HUB_FLAGS);
  return {
    ...(flags.endpoint ? { endpoint: flags.endpoint } : {}),
    ...(flags.cacheDir ? { cacheDir: resolve(flags.cacheDir) } : {}),
    ...(flags.offline ? { offline: true } : {}),
    log,
  };
}

/** Where the commands write; tests pass their own (the test runner owns this process's stdout). */
export interface DataCliIO {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown; isTTY?: boolean };
}

type InspectFlags = HubFlags & {
  dataDir?: string; source: DataSource; limit?: string; label?: string; template?: string; example: string; format: 'table' | 'json';
};

export function registerData(program: Command, io: DataCliIO = { out: process.stdout, err: process.stderr }): void {
  const note = (m: string): void => void io.err.write(`genstudy: ${m}\n`);
  const data = program.command('data').description('Data sets: download from the Hugging Face hub, inspect, list the registry');

  const pull = data
    .command('pull')
    .description('Download a Hugging Face repo (or the files matching --include) into the Hugging Face cache')
    .argument('<repo>', 'owner/name on the hub')
    .option('--revision <rev>', 'branch, tag or commit', 'main')
    .option('--include <glob...>', 'only files matching these patterns ("*" also matches "/", as in huggingface-cli)')
    .option('--exclude <glob...>', 'leave out files matching these patterns')
    .addOption(new Option('--repo-type <type>', 'kind of repo').choices(REPO_TYPES).default(REPO_TYPES[0]));
  addOptionFlags(pull, HUB_FLAGS)
    .action(async (repo: string, flags: HubFlags & { revision: string; include?: string[]; exclude?: string[]; repoType: RepoType }) => {
      const progress = progressPrinter(io.err);
      const result = await pullRepo(
        { repo, repoType: flags.repoType, revision: flags.revision, include: flags.include, exclude: flags.exclude },
        { ...hubOptions(flags, note), onProgress: progress.update },
      );
      progress.done();
      for (const f of result.files) {
        const resumed = f.resumedFrom ? ` (resumed at ${formatBytes(f.resumedFrom)})` : '';
        io.out.write(`${f.status.padEnd(10)} ${formatBytes(f.size).padStart(9)}  ${f.path}${resumed}\n`);
      }
      io.out.write(`${result.repoType} ${result.repo}@${result.revision} = ${result.commit}${result.offline ? ' (from the cache)' : ''}\n`);
      io.out.write(`${result.snapshotDir}\n`);
    });

  const inspect = data
    .command('inspect')
    .description('Load a data set and show its size, labels, dropped rows and one rendered prompt')
    .argument('<spec>', 'a registry id (genstudy data list), a spec file (.yaml / .json), or a data file');
  addDataDirOption(inspect)
    .addOption(new Option('--source <where>', 'for registry ids: the local file or the hub copy').choices(DATA_SOURCES).default(DATA_SOURCES[0]))
    .option('--limit <n>', 'read only until this many examples are kept')
    .option('--label <column>', 'for a bare data file: the label column')
    .option('--template <text>', 'render the prompt with this {field} template instead of the study preset')
    .option('--example <k>', 'which example to render (0-based)', '0');
  addOptionFlags(inspect, HUB_FLAGS);
  addFormatOption(inspect)
    .action(async (target: string, flags: InspectFlags) => {
      const limit = wholeNumber('--limit', flags.limit);
      const index = wholeNumber('--example', flags.example, { min: 0 })!;
      const loaded = await loadNamedDataSet(target, {
        dataDir: flags.dataDir ? resolve(flags.dataDir) : undefined, source: flags.source, hub: hubOptions(flags, note), limit, label: flags.label,
      });
      const { name, task, preset } = loaded;
      const example = loaded.examples[index];
      if (!example) throw new UserError(`--example ${index}: the data set has ${loaded.examples.length} examples`);
      const prompt = renderPrompt(preset, example, flags.template);
      const labels = labelCounts(loaded.examples);
      if (flags.format === 'json') {
        io.out.write(
          JSON.stringify({
            name, source: loaded.source, task: task ?? null, rowsRead: loaded.rowsRead, examples: loaded.examples.length, labels,
            dropped: loaded.dropped, contentHash: loaded.contentHash, example, prompt: prompt?.text ?? null, template: prompt?.template ?? null,
          }, null, 2) + '\n',
        );
        return;
      }
      io.out.write(inspectText(name, task, loaded, labels, example, index, prompt));
    });

  data
    .command('list')
    .description('The registry of known data sets: "<set>:<split>" ids for inspect and study files')
    .action(() => {
      const registry = readRegistry();
      const lines: string[] = [];
      for (const id of registeredIds(registry)) {
        const [set, split] = id.split(':');
        const entry = registry.sets[set];
        const s = entry.splits[split];
        const where = [s.local ? `local ${s.local.path}` : '',
          s.hub ? `hub ${s.hub.repo}${s.hub.repoType === 'model' ? ' (model)' : ''}` : ''].filter(Boolean).join(', ');
        lines.push(`${id.padEnd(44)} ${entry.task.padEnd(9)} ${where}\n`);
      }
      io.out.write(lines.join(''));
    });
}

/** The Prompt-1 template of a registered set's preset (none for other data). */
function presetTemplate(presetName: string | undefined): { source: string; name: string } | undefined {
  const t = taskPreset(presetName)?.spec(1, 'first-token');
  return t && { source: t.template, name: t.name };
}

function renderPrompt(presetName: string | undefined, example: Example, template?: string): { text: string; template: string } | undefined {
  const chosen = template !== undefined ? { source: template, name: '--template' } : presetTemplate(presetName);
  if (!chosen) return undefined;
  return { text: renderTemplate(parseTemplate(chosen.source, chosen.name), example.fields, example.id), template: chosen.name };
}

function labelCounts(examples: Example[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of examples) if (e.label !== undefined) counts[e.label] = (counts[e.label] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function inspectText(
  name: string,
  task: string | undefined,
  loaded: LoadedDataSet,
  labels: Record<string, number>,
  example: Example,
  index: number,
  prompt: { text: string; template: string } | undefined,
): string {
  const out: string[] = [];
  const n = loaded.examples.length;
  out.push(`data set   ${name}`);
  out.push(`source     ${loaded.source}`);
  if (task) out.push(`task       ${task}`);
  out.push(`rows read  ${loaded.rowsRead}`);
  out.push(`examples   ${n}`);
  const labelList = Object.entries(labels);
  if (labelList.length) {
    out.push('labels');
    for (const [label, count] of labelList) out.push(
      `  ${label.padEnd(16)} ${String(count).padStart(7)}  ${((100 * count) / n).toFixed(1).padStart(5)}%`);
  }
  if (loaded.dropped.length) {
    out.push('dropped');
    for (const d of loaded.dropped) out.push(`  ${String(d.count).padStart(7)}  ${d.reason}`);
  } else out.push('dropped    none');
  out.push(`hash       sha256:${loaded.contentHash}`);
  out.push('');
  out.push(`example ${index} (id ${JSON.stringify(example.id)})`);
  if (prompt) {
    out.push(`--- prompt (${prompt.template}) ---`);
    out.push(prompt.text);
    out.push('--- end of prompt ---');
  } else {
    out.push(`fields: ${JSON.stringify(example.fields, null, 2)}`);
    out.push('(no study preset for this data set: pass --template "...{field}..." to render a prompt)');
  }
  if (example.label !== undefined) out.push(`label: ${JSON.stringify(example.label)}`);
  if (example.target !== undefined) out.push(`target: ${JSON.stringify(example.target)}`);
  return out.join('\n') + '\n';
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/** One updating line per file on a terminal; nothing on a pipe (the final listing says it all). */
function progressPrinter(err: DataCliIO['err']): { update: (file: string, bytes: number, total: number) => void; done: () => void } {
  const tty = err.isTTY === true;
  let last = 0;
  let shown = false;
  return {
    update(file, bytes, total) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 200 && bytes < total) return;
      last = now;
      shown = true;
      const pct = total ? ((100 * bytes) / total).toFixed(0) : '100';
      err.write(`\r\x1b[K${file}  ${formatBytes(bytes)} / ${formatBytes(total)} (${pct}%)`);
    },
    done() {
      if (shown) err.write('\r\x1b[K');
    },
  };
}
