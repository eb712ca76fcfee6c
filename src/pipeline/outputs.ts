// What a finished study leaves behind besides the store: the analysis (JSON and CSV) and the
// report, and the few lines printed at the end.
import { mkdir } from 'node:fs/promises';
import { writeFileAtomic } from '../atomic-write.ts';
import path from 'node:path';
import type { Study } from '../config/schema.ts';
import { formatAgreementCsv, formatTable, jsonParts, pairsCsvParts } from '../analyze/format.ts';
import { formatSummary, SUMMARY_WIDTH } from '../analyze/format-summary.ts';
import { wrapText } from '../text-table.ts';
import { formatMetaCsv } from '../analyze/format-meta.ts';
import { reportedVariant, type StudyResult } from './run-study.ts';
import { studySettings } from '../config/settings.ts';
import { writeReport } from '../report/index.ts';
import { syntheticArg } from '../evaluate/index.ts';
import { checkAgainstDesign } from './demo-check.ts';

export interface StudyOutputs { analysis?: string; report?: string }

export async function writeStudyOutputs(study: Study, result: StudyResult): Promise<StudyOutputs> {
  const out: StudyOutputs = {};
  if (result.analysis) {
    const dir = path.join(result.paths.out, 'analysis');
    await mkdir(dir, { recursive: true });
    writeFileAtomic(path.join(dir, 'analysis.json'), jsonParts(result.analysis));
    writeFileAtomic(path.join(dir, 'pairs.csv'), pairsCsvParts(result.analysis, result.analyzeOptions.alpha));
    writeFileAtomic(path.join(dir, 'agreement.csv'), formatAgreementCsv(result.analysis));
    writeFileAtomic(path.join(dir, 'meta.csv'), formatMetaCsv(result.analysis.meta));
    writeFileAtomic(path.join(dir, 'analysis.txt'), formatTable(result.analysis, result.analyzeOptions));
    out.analysis = dir;
  }
  const { analysis: a } = study;
  const report = await writeReport(path.join(result.paths.out, 'report'), {
    storePath: result.paths.store, control: study.evaluation.control, metric: a.metric, title: `genstudy: ${study.name}`,
    // The plain cell (Prompt-1, 0 shots) as this study's variants name it ("" unless it lists prompts or evaluates the every-k grid).
    promptVariant: reportedVariant(study, studySettings(study), 0),
    studyFile: result.paths.studyFile,
    // A study on the synthetic suite has a known correlation structure: the report shows it against the analysis.
    ...(result.analysis && study.synthetic && usesSyntheticTestSets(study)
      ? { designCheck: checkAgainstDesign(result.analysis, result.paths.synthetic, { runs: result.runs, alpha: result.analyzeOptions.alpha }) }
      : {}),
    analysis: result.analyzeOptions,
    // The report draws the study's analysis, not a second one of its own.
    ...(result.analysis ? { result: result.analysis } : {}),
  });
  out.report = report.html;
  return out;
}

export function printStudySummary(result: StudyResult, written: StudyOutputs, print: (s: string) => void): void {
  if (result.analysis) {
    const full = written.analysis ? path.join(written.analysis, 'analysis.txt') : undefined;
    print(formatSummary(result.analysis, full).join('\n') + '\n');
  } else {
    print(wrapText(`No analysis: ${result.analysisSkipped}`, SUMMARY_WIDTH).join('\n') + '\n');
  }
  print(`\nStore: ${result.paths.store}\n`);
  if (written.report) print(`Report: ${written.report}\n`);
}

function usesSyntheticTestSets(study: Study): boolean {
  return study.evaluation.testSets.some((t) => syntheticArg(t) !== undefined);
}
