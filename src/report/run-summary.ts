// A run's settings at a glance, above its figures: what was trained, how long (steps and the
// epochs they make, as the trainer records them), with what settings. Fields a run does not have
// (no LoRA in a full fine-tune, no prompt variant for the plain prompt) are left out, not shown as
// "null" or empty; the full record is in the provenance section and runs.csv.
import { esc } from './html.ts';
import type { ReportRun } from './report-data.ts';

type Attrs = Record<string, unknown>;

const present = (v: unknown): boolean => v !== null && v !== undefined && v !== '' && !(typeof v === 'number' && !Number.isFinite(v));

function num(v: unknown): string {
  if (typeof v !== 'number') return String(v);
  return Number.isInteger(v) ? String(v) : String(+v.toPrecision(3));
}

/**
 * The training length: steps and epochs. Stores written before the trainer recorded its steps have a default "epochs" that a steps-limited
 * run did not do; those show steps only.
 */
function length(a: Attrs, lastStep: number | undefined): string | undefined {
  const steps = present(a.steps) ? Number(a.steps) : present(a.maxSteps) ? Number(a.maxSteps) : lastStep;
  const epochsKnown = present(a.steps) || !present(a.maxSteps);
  const epochs = epochsKnown && present(a.epochs) ? Number(a.epochs) : undefined;
  if (steps === undefined && epochs === undefined) return undefined;
  const parts = [steps !== undefined ? `${steps} steps` : '',
    epochs !== undefined ? `${num(epochs)} epoch${epochs === 1 ? '' : 's'}` : ''].filter(Boolean);
  return parts.join(' = ');
}

function lora(a: Attrs): string | undefined {
  const l = a.lora as { r?: number; alpha?: number; dropout?: number; targetModules?: string[] } | null | undefined;
  if (!l || typeof l !== 'object') return undefined;
  return `r ${l.r}, alpha ${l.alpha}, dropout ${l.dropout}${l.targetModules?.length ? `, on ${l.targetModules.join(', ')}` : ''}`;
}

/** Label -> text of the run's settings, in reading order, only those the run has. */
export function runFields(run: ReportRun): [string, string][] {
  const a: Attrs = run.attributes ?? {};
  const steps = run.checkpoints.map((c) => c.step);
  const method = [run.method, present(a.finetune) ? (a.finetune === 'lora' ? 'LoRA' : `${a.finetune} fine-tuning`) : '',
    present(a.method_name) && a.method_name !== run.method ? `"${a.method_name}"` : '']
    .filter(Boolean).join(', ');
  const batch = present(a.batchSize)
    ? `${a.batchSize}${present(a.gradAccum) && Number(a.gradAccum) > 1 ? ` x ${a.gradAccum} accumulated` : ''}`
    : undefined;
  const fields: [string, string | undefined][] = [
    ['model', run.model ?? undefined],
    ['method', method || undefined],
    ['training set', run.trainingSet ?? undefined],
    ['training task', present(a.training_task) ? String(a.training_task) : undefined],
    ['examples', present(a.trainExamples) ? String(a.trainExamples) : present(a.train_size) ? String(a.train_size) : undefined],
    ['trained', length(a, steps.length ? Math.max(...steps) : undefined)],
    ['learning rate', present(a.lr) ? `${num(a.lr)}${present(a.schedule) ? ` (${a.schedule})` : ''}` : undefined],
    ['batch', batch],
    ['LoRA', lora(a)],
    ['shots', present(a.shots) && Number(a.shots) > 0 ? String(a.shots) : undefined],
    ['prompt variant', present(a.prompt_variant) ? String(a.prompt_variant) : undefined],
    ['seed', run.seed !== null && run.seed !== undefined ? String(run.seed) : undefined],
    ['checkpoints',
      steps.length ? `${steps.length}${steps.length > 1 ? ` (steps ${Math.min(...steps)} to ${Math.max(...steps)})` : ` (step ${steps[0]})`}` : '0'],
  ];
  return fields.filter((f): f is [string, string] => f[1] !== undefined && f[1] !== '');
}

export function runSummary(run: ReportRun): string {
  return `<dl class="run-summary">${runFields(run).map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`).join('')}</dl>`;
}
