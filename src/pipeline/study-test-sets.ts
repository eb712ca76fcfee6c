// A study's test sets: the data sets and synthetic sets its evaluation.testSets name, loaded with
// the study's protocol rules, tagged with what the report's study-B matrices read, and the notes
// on the rows each kept or dropped; plus the synthetic suite they may come from.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.ts';
import type { Study } from '../config/schema.ts';
import type { StudySettings } from '../config/settings.ts';
import { readRegistry } from '../data/index.ts';
import { generateSuite, suiteManifestText, writeSuite } from '../synth/index.ts';
import { resolveTestSets, syntheticArg, type EvalTestSet } from '../evaluate/index.ts';
import { taskPreset } from '../tasks/index.ts';

/** evaluation.testSets: data set ids and spec files as evaluate takes them; "synthetic" (every set of the suite) or "synthetic:a,b". */
export async function studyTestSets(study: Study, settings: StudySettings, suiteDir: string | undefined, dataDir: string | undefined,
  studyFile: string): Promise<EvalTestSet[]> {
  const out: EvalTestSet[] = [];
  for (const [i, arg] of study.evaluation.testSets.entries()) {
    const field = `${studyFile}: evaluation.testSets[${i}]`;
    const synthetic = syntheticArg(arg);
    if (synthetic) {
      if (!suiteDir) throw new UserError(`${field}: "${arg}" needs a "synthetic:" section in the study`);
      const sets = await resolveTestSets([suiteDir], { limit: study.evaluation.limit });
      const wanted = synthetic.sets;
      for (const w of wanted ?? []) {
        if (!sets.some((s) => s.id === w)) {
          throw new UserError(`${field}: the synthetic suite has no set "${w}" (it has ${sets.map((s) => s.id).join(', ')})`);
        }
      }
      out.push(...sets.filter((s) => !wanted || wanted.includes(s.id)));
    } else {
      try {
        // Rows without gold are study B's "-"; study A's dropped labels (neutral) are its binarisation, kept only as a replayed bug.
        const studyA = taskPreset(readRegistry().sets[arg.split(':')[0]]?.preset)?.study === 'A';
        out.push(...(await resolveTestSets([arg], {
          limit: study.evaluation.limit, dataDir, origin: `${field} "${arg}"`, unlabeledRows: studyA ? 'drop' : settings.unlabeledRows,
          replayBugs: settings.studyAMnliNeutral === 'keep-as-bug',
        })));
      } catch (err) {
        // An error that already names where it is (the origin passed down) is not wrapped twice.
        if (err instanceof UserError && err.field === undefined) {
          throw new UserError(`${field}: ${err.message}`, { file: studyFile, field: `evaluation.testSets[${i}]` });
        }
        throw err;
      }
    }
  }
  return out;
}

/**
 * Records each test set's task and whether it is in-domain for the training set of that task, as
 * the report's study-B matrices read them (test_sets.spec.task / spec.domain), and the metric the
 * report shows for a generation set (spec.metric: the ROUGE-L F the protocol reports).
 */
export function tagTestSets(study: Study, settings: StudySettings, sets: EvalTestSet[]): EvalTestSet[] {
  const inDomain = new Set(study.training.flatMap((t) => t.inDomain ?? []));
  return sets.map((set) => {
    const preset = taskPreset(set.taskPreset);
    if (preset?.study !== 'B') return set;
    const spec: Record<string, unknown> = { ...set.spec, task: preset.shortName, domain: inDomain.has(set.id) ? 'in-domain' : 'cross-domain' };
    if (preset.kind === 'generate') {
      spec.metric = settings.rouge === 'bootstrap-mid' ? 'rougeL_mid_f' : 'rougeL_f';
    }
    return { ...set, spec };
  });
}

/** What happened to rows without a gold label, per test set: dropped (and how many), or kept and counted wrong. */
export function rowNotes(sets: readonly EvalTestSet[]): string[] {
  const out: string[] = [];
  for (const set of sets) {
    const bug = set.spec.replayedBug as { label: string; gold: string; kept: number; source: string } | undefined;
    if (bug) out.push(`test set "${set.id}": ${bug.kept} of its ${set.examples.length} rows are ${bug.label} rows kept with gold ` +
      `"${bug.gold}" (studyAMnliNeutral: keep-as-bug, a replayed bug of ${bug.source})`);
    const kept = set.spec.unlabeledKept as number | undefined;
    if (kept) out.push(`test set "${set.id}": ${kept} of its ${set.examples.length} rows have no gold label ` +
      `(${set.unlabeled!.map((l) => `"${l}"`).join(', ')}); they are kept and count as wrong (unlabeledRows: wrong)`);
    const dropped = (set.spec.dropped as { reason: string; count: number }[] | undefined) ?? [];
    const n = dropped.reduce((a, d) => a + d.count, 0);
    if (n > 0) {
      out.push(`test set "${set.id}": ${n} rows dropped (${dropped.map((d) => `${d.count} ${d.reason}`).join('; ')}); its ` +
        `${set.examples.length} rows are the first ${set.examples.length} with a gold label, read from the file's first ` +
        `${String(set.spec.rowsRead ?? '?')} rows`);
    }
  }
  return out;
}

/**
 * Writes the synthetic suite (its files double as the from-scratch tokenizer), and writes it again
 * when this version of genstudy builds a different one from the same options: the changed test
 * sets are then evaluated afresh (their content hashes change) and the rest is reused.
 */
export async function prepareSynthetic(study: Study, syntheticDir: string): Promise<string | undefined> {
  if (!study.synthetic) return undefined;
  const suite = generateSuite(study.synthetic);
  const manifest = path.join(syntheticDir, 'suite.json');
  const current = fs.existsSync(manifest) ? fs.readFileSync(manifest, 'utf8') : null;
  if (current !== suiteManifestText(suite)) await writeSuite(syntheticDir, suite);
  return syntheticDir;
}
