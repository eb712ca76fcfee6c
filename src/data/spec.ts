// The data set spec: where rows come from and how they become Examples (see README in this folder).
import { z } from 'zod';
import { UserError } from '../errors.ts';
import type { TaskKind } from '../types.ts';
import { FORMATS } from './readers/row.ts';
import { REPO_TYPES } from './hub/cache.ts';


const nonEmpty = z.string().min(1, 'expected a non-empty string');

export const HubFileSchema = z.strictObject({
  /** "owner/name" on the hub. */
  repo: nonEmpty,
  repoType: z.enum(REPO_TYPES).default(REPO_TYPES[0]),
  /** A branch, tag or commit; a 40-hex commit makes the load reproducible. */
  revision: nonEmpty.default('main'),
  /** The file's path inside the repo. */
  file: nonEmpty,
  /** Expected content, checked after download when given (the hub's own hashes are always checked). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits').optional(),
  size: z.number().int().nonnegative().optional(),
});

export const SampleSchema = z.strictObject({
  /** first: the first n rows; random: n rows drawn with the seed; perClass: n rows of every label, drawn with the seed. */
  mode: z.enum(['first', 'random', 'perClass']),
  n: z.number().int().positive(),
  seed: z.number().int().nonnegative().default(0),
});

/** The mapping from source rows to Examples; shared by a spec and the registry's entries. */
export const MappingShape = {
  /** The Example's field name -> the source column, e.g. { premise: "sentence1" }. Default: every other column under its own name. */
  fields: z.record(nonEmpty, nonEmpty).optional(),
  /** The source column holding the label (classification). */
  label: nonEmpty.optional(),
  /** Class names by integer code (a Hugging Face ClassLabel): the code is named before `labels` applies. */
  labelNames: z.array(nonEmpty).optional(),
  /** Source label -> Example label, e.g. { entailment: "Yes", contradiction: "No" }. Default: labels kept as they are. */
  labels: z.record(z.string(), nonEmpty).optional(),
  /** Source labels whose rows are dropped, e.g. ["neutral", "-"]. */
  dropLabels: z.array(z.string()).optional(),
  /** What to do with a label that is neither in `labels` nor in `dropLabels`. */
  unknownLabels: z.enum(['error', 'drop']).optional(),
  /** The source column holding the reference output (generation). */
  target: nonEmpty.optional(),
  /** The source column holding a unique id. Default: the row's 0-based position. */
  id: nonEmpty.optional(),
};

export const SourceShape = {
  /** A local file (relative paths resolve against the spec's folder). */
  path: nonEmpty.optional(),
  /** A file in a Hugging Face repo. */
  hub: HubFileSchema.optional(),
  /** Default: from the extension. */
  format: z.enum(FORMATS).optional(),
  /** CSV/TSV: whether `"` quotes fields. Default: true for csv, false for tsv (GLUE style). */
  quote: z.boolean().optional(),
  /** CSV/TSV field separator. */
  delimiter: z.string().length(1, 'expected one character').optional(),
};

export const DataSetSpecSchema = z
  .strictObject({
    /** A name for messages and reports. */
    name: nonEmpty.optional(),
    /** The split this file is (informational: the file decides). */
    split: nonEmpty.optional(),
    ...SourceShape,
    ...MappingShape,
    sample: SampleSchema.optional(),
  })
  .superRefine((spec, ctx) => {
    if ((spec.path === undefined) === (spec.hub === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of "path" (a local file) or "hub" (a file in a Hugging Face repo)', path: [] });
    }
    if (spec.sample?.mode === 'perClass' && spec.label === undefined) {
      ctx.addIssue({ code: 'custom', message: 'sample mode "perClass" needs a "label" column', path: ['sample', 'mode'] });
    }
    if ((spec.labels || spec.labelNames || spec.dropLabels) && spec.label === undefined) {
      ctx.addIssue({ code: 'custom', message: '"labels", "labelNames" and "dropLabels" need a "label" column', path: ['label'] });
    }
  });

export type DataSetSpecInput = z.input<typeof DataSetSpecSchema>;
export type DataSetSpec = z.output<typeof DataSetSpecSchema>;
export type HubFile = z.output<typeof HubFileSchema>;
export type Sample = z.output<typeof SampleSchema>;

/** The task kind a spec's columns make: a target column, generation; a label column, classification; neither, not known. */
export function taskKindOf(spec: DataSetSpec): TaskKind | undefined {
  return spec.target !== undefined ? 'generate' : spec.label !== undefined ? 'classify' : undefined;
}

/** Validates a spec; `origin` (a file name, or "spec") starts every error message. */
export function parseDataSetSpec(value: unknown, origin = 'data set spec'): DataSetSpec {
  const result = DataSetSpecSchema.safeParse(value);
  if (result.success) return result.data;
  throw new UserError(formatIssues(origin, result.error.issues));
}

export function formatIssues(origin: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.map((issue) => {
    const at = issue.path.length ? `field "${issue.path.join('.')}"` : 'top level';
    let message = issue.message.replace(/^Invalid input: /, '');
    if (issue.code === 'unrecognized_keys') message = `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    return `${at}: ${message}`;
  });
  return lines.length === 1 ? `${origin}: ${lines[0]}` : `${origin}:\n  ${lines.join('\n  ')}`;
}
