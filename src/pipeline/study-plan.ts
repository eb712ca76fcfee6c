// What `genstudy run --dry-run` prints: the runs a study file makes and the work each asks for,
// read from the file alone (no data loaded, no model touched), so a researcher sees a study's size
// before it starts: per run its method, seed, demonstrations, optimiser steps and the checkpoints
// its policy saves; then the test sets and prompt cells every checkpoint is evaluated on, and the
// totals in those units. Examples per test set are not known until the data is read.
import { expandStudy, type RunPlan } from '../config/expand.ts';
import type { Study } from '../config/schema.ts';
import { evaluationCellsFor, gradAccumOf, studySettings } from '../config/settings.ts';
import { promptVariants } from '../evaluate/index.ts';
import { checkpointSteps } from '../train/policy.ts';
import { alignColumns, wrapText } from '../text-table.ts';
import { SUMMARY_WIDTH } from '../analyze/format-summary.ts';

export interface PlannedRun {
  id: string;
  method: string;
  seed: number;
  shots: number;
  /** Optimiser steps (0 for a base model; undefined when they depend on the data's size). */
  steps?: number;
  /** Checkpoints the run is evaluated at (1 for a base model; undefined with the steps). */
  checkpoints?: number;
  /** Prompt cells per test set entry of the study (prompt x shots). */
  cells: number;
}

/** The optimiser steps of a trained run when the study file fixes them (steps, or epochs of a set of stated size). */
function stepsOf(run: RunPlan): number | undefined {
  const m = run.method;
  if (m.steps !== undefined) return m.steps;
  const size = run.trainingSet.size;
  if (m.epochs === undefined || size === undefined) return undefined;
  return Math.ceil(size / (m.batchSize * gradAccumOf(m))) * m.epochs;
}

export function planStudy(study: Study): PlannedRun[] {
  const settings = studySettings(study);
  return expandStudy(study).map((run) => {
    const base = run.method.kind === 'base';
    const steps = base ? 0 : stepsOf(run);
    const checkpoints = base ? 1 : steps === undefined ? undefined : checkpointSteps(study.checkpoints, steps).length;
    // cells for a set with no task preset: the study's prompts at the run's shots (the every-k grid adds per-task k when the data is read)
    const cells = evaluationCellsFor(study, settings, run.shots, undefined);
    const named = run.method.name === run.method.kind ? '' : `${run.method.name}: `;
    return {
      id: run.id, method: `${named}${run.method.kind}${base ? '' : ` ${run.method.finetune}`}`, seed: run.seed, shots: run.shots,
      ...(steps !== undefined ? { steps } : {}), ...(checkpoints !== undefined ? { checkpoints } : {}),
      cells: promptVariants(cells.prompts, cells.shots).length,
    };
  });
}

export function formatStudyPlan(study: Study, plan: readonly PlannedRun[]): string[] {
  const n = (x: number | undefined) => (x === undefined ? '?' : String(x));
  const out = wrapText(`study "${study.name}": ${plan.length} run(s), evaluated on ${study.evaluation.testSets.join(', ')} ` +
    (study.evaluation.control ? `(control ${study.evaluation.control})` : ''), SUMMARY_WIDTH);
  out.push(...alignColumns([['run', 'method', 'seed', 'shots', 'steps', 'checkpoints', 'prompt cells'],
    ...plan.map((r) => [r.id, r.method, String(r.seed), String(r.shots), n(r.steps), n(r.checkpoints), String(r.cells)])],
  { indent: 2, rightAligned: [2, 3, 4, 5, 6] }));
  const known = plan.every((r) => r.steps !== undefined);
  const steps = plan.reduce((s, r) => s + (r.steps ?? 0), 0);
  const evaluations = plan.reduce((s, r) => s + (r.checkpoints ?? 0) * r.cells, 0);
  const atLeast = known ? '' : 'at least ';
  out.push(...wrapText(`in all: ${atLeast}${steps} optimiser steps; ${atLeast}${evaluations} evaluations of each test set (a checkpoint ` +
    'in a prompt cell, over the set\'s examples)', SUMMARY_WIDTH));
  if (!known) out.push(...wrapText('"?": the steps follow from the training data\'s size, known once it is read', SUMMARY_WIDTH));
  if (studySettings(study).grid === 'every-k-and-prompt') {
    out.push(...wrapText("every-k grid: each study-B task's test sets add its k values to the prompt cells (known once the sets are read)",
      SUMMARY_WIDTH));
  }
  return out;
}
