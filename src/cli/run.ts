// genstudy run <study.yaml>: train, evaluate along the way, analyse and report, resumably.
import { Command } from 'commander';
import { loadStudyFile } from '../config/load.ts';
import type { Study } from '../config/schema.ts';
import { runStudy, type RunStudyOptions, type StudyResult } from '../pipeline/run-study.ts';
import { writeStudyOutputs, printStudySummary, type StudyOutputs } from '../pipeline/outputs.ts';
import { studyProgress } from '../pipeline/study-progress.ts';
import { listValues } from './flag-values.ts';
import { terminalSafe } from '../terminal-safe.ts';
import { formatStudyPlan, planStudy } from '../pipeline/study-plan.ts';
import { selectRuns } from '../config/expand.ts';

/**
 * A study run from the command line (run, demo): its progress on stderr, then its outputs written and
 * its summary printed (after the lines `beforeSummary` prints, if given).
 */
export async function runStudyCommand(
  study: Study, file: string, opts: Pick<RunStudyOptions, 'out' | 'only'>, beforeSummary?: (result: StudyResult) => void,
): Promise<{ result: StudyResult; written: StudyOutputs }> {
  const progress = studyProgress(process.stderr);
  let result;
  try {
    result = await runStudy(study, file, { ...opts, ...progress });
  } finally {
    progress.finish();
  }
  const written = await writeStudyOutputs(study, result);
  beforeSummary?.(result);
  printStudySummary(result, written, (s) => process.stdout.write(terminalSafe(s, { lines: true })));
  return { result, written };
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Run a study file: train every run, evaluate its checkpoints as they are written, analyse and write the report; ' +
      'running it again does only what is missing')
    .argument('<study>', 'study file (YAML or JSON); presets in examples/: demo.yaml, study-a.yaml, study-b.yaml')
    .option('--out <dir>', 'results folder (default: the study\'s "out", else <name>/ beside the study file)')
    .option('--only <run...>', 'the run ids to do (default: all)')
    .option('--set <field=value>',
      'override a field of the study file, e.g. models.0.path=/models/opt-125m or seeds=[1] (repeatable; the value is YAML)',
      (value: string, previous: string[] = []) => [...previous, value])
    .option('--dry-run', 'print the runs the study file makes and the work each asks for (steps, checkpoints, prompt cells), and stop')
    .action(async (file: string, flags: { out?: string; only?: string[]; set?: string[]; dryRun?: boolean }) => {
      const only = listValues(flags.only)?.flatMap((s) => s.split(',')).filter(Boolean);
      const study = loadStudyFile(file, flags.set ?? []);
      if (flags.dryRun) {
        const plan = selectRuns(planStudy(study), only);
        process.stdout.write(terminalSafe(formatStudyPlan(study, plan).join('\n') + '\n', { lines: true }));
        return;
      }
      await runStudyCommand(study, file, { out: flags.out, only });
    });
}
