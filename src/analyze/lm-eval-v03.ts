// lm-evaluation-harness 0.3 output (`main.py --output_path file.json`, as EleutherAI published
// Pythia's evaluations): {"results": {task: {metric: value, metric_stderr: value}}, "versions",
// "config": {"model_args": "pretrained=...,revision=step1000", ...}}. Metric names carry no filter;
// a metric's standard error is its "<metric>_stderr" beside it. 0.3 does not record the sample size.
import type { LmEvalFile } from './lm-eval-v04.ts';

export function parseLmEval03(doc: { results: Record<string, unknown>; config?: { model_args?: unknown } }): LmEvalFile {
  const scores: LmEvalFile['scores'] = [];
  const missing: string[] = [];
  for (const [task, metrics] of Object.entries(doc.results)) {
    if (typeof metrics !== 'object' || metrics === null) continue;
    for (const [metric, value] of Object.entries(metrics as Record<string, unknown>)) {
      if (metric.endsWith('_stderr')) continue;
      if (value === null) missing.push(`results.${task}.${metric}`);
      if (typeof value !== 'number') continue;
      const stderr = (metrics as Record<string, unknown>)[`${metric}_stderr`];
      scores.push({ testSet: task, metric, value, key: `results.${task}.${metric}`,
        ...(stderr === undefined ? {} : { stderr: { value: stderr, key: `results.${task}.${metric}_stderr` } }) });
    }
  }
  const modelArgs = typeof doc.config?.model_args === 'string' ? doc.config.model_args : undefined;
  return { version: '0.3', scores, missing, notScores: [], modelArgs, groups: new Map() };
}
