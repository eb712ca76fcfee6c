// renderReport: a results store -> one self-contained HTML page (inline SVG charts, inline styles,
// no scripts, nothing fetched) plus every table as CSV and JSON. writeReport puts them in a folder
// that appears whole (report-folder.ts), so a reader never sees half a report or a stale table;
// asked for, the paper files (each figure as SVG and PDF, the paper tables as LaTeX and Markdown:
// paper-files.ts) go into a second folder written with it (paper-folder.ts).
import type { ExampleResultSource } from '../analyze/example-results.ts';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { UserError } from '../errors.ts';
import type { AnalysisProgress, AnalysisResult, AnalyzeOptions } from '../analyze/analysis.ts';
import { anchor, esc, PAGE_END, pageStart } from './html.ts';
import { provenanceSection, sha256, type Provenance } from './provenance-section.ts';
import type { RunNaming } from '../analyze/run-names.ts';
import { loadReportInput, type ReportData } from './report-data.ts';
import { agreementSection, studyAHeadline } from './study-a-section.ts';
import { runSections, type RunFigures } from './runs-section.ts';
import { studyA, type StudyA } from './study-a.ts';
import { studyBHeadline, studyBSection } from './study-b-section.ts';
import { methodOf, studyB, type StudyB } from './study-b.ts';
import { tableToCsv, tableToCsvParts, tableToJson, type Table } from './table.ts';
import { buildTables } from './tables.ts';
import { designComparisonTable, designSection, type DesignComparison } from './design-section.ts';
import { checkReportFolder, writeReportFolder, type FileContents } from './report-folder.ts';
import type { PaperTable } from './paper-table.ts';
import { paperTables } from './paper-tables.ts';
import { checkPaperFolder, writePaperFolder } from './paper-folder.ts';

export interface ReportInput {
  /** A results store, or any other input `analyze` takes (score table, lm-eval or Trainer folder). */
  storePath: string;
  /** Wide tables: "column=test_set:metric" for columns whose names do not say them. */
  columns?: readonly string[];
  /** Examples behind every score that gives neither its own n nor a stderr (--sample-size). */
  sampleSize?: number;
  /** Per-example results given beside an input that holds none (--example-results). */
  exampleResults?: ExampleResultSource;
  /** Runs renamed (a prefix taken off, names given: analyze/run-names.ts), for every input. */
  runNames?: RunNaming;
  /** The in-domain test set regressed out (default: the runs' "control_test_set" attribute). */
  control?: string;
  /** The metric analysed and drawn (default: per test set, its only metric, else accuracy / acc). */
  metric?: string;
  promptVariant?: string;
  analysis?: Partial<Omit<AnalyzeOptions, 'control'>>;
  /** Told how far the study-A analysis is (the CLI prints it on long analyses). */
  progress?: AnalysisProgress;
  /** The analysis already made from this input (a study's, pipeline/run-study.ts): drawn as it is, not computed again. */
  result?: AnalysisResult;
  title?: string;
  /** The pair of OOD test sets whose residuals are drawn per run (default: chosen by run-figures.ts). */
  pair?: readonly [string, string];
  /**
   * Whose figures the page draws: 'all' runs, the first n, or by default the first runs in run order
   * until their figures take RUN_FIGURES_BUDGET of the page (runs-section.ts); the page says which it does not draw.
   */
  runFigures?: RunFigures;
  /** How many characters of the page the runs' figures may take when `runFigures` is not given (default RUN_FIGURES_BUDGET, 8 MB). */
  runFiguresBudget?: number;
  /** A study file to embed (its text and sha256) in the provenance section. */
  studyFile?: string;
  /** When the report says it was made (default: now). */
  generatedAt?: Date;
  /** The analysis compared with the correlation signs the test sets were built with (a synthetic suite's): adds "designed against found". */
  designCheck?: DesignComparison;
}

export interface ReportTableOutput {
  /** The CSV as one string, joined from `csvParts` when first read (writeReport writes the parts). */
  readonly csv: string;
  csvParts: Iterable<string>;
  json: unknown;
}

export interface RenderedReport {
  /**
   * The page as one string, joined from `parts` when first read. writeReport writes the parts one
   * after the other and never joins them, so a page larger than a string can be is still written.
   */
  readonly html: string;
  /** The page in parts, in order (the page's head, each section, each run's article, the end): together they are `html`. */
  parts: readonly string[];
  tables: Record<string, ReportTableOutput>;
  /** Study A's answer in one sentence (or why there is none). */
  headline: string;
  /** Study B's summary sentence, when the store has study-B runs. */
  studyBHeadline?: string;
  /** The designed-against-found verdict, when the input named a design. */
  designVerdict?: string;
  /** The tables a paper prints (study A's verdicts and meta-analysis, study B's grid), as LaTeX and Markdown render them. */
  paperTables: PaperTable[];
}

export async function renderReport(input: ReportInput): Promise<RenderedReport> {
  const loaded = await loadReportInput(input.storePath, input.promptVariant ?? '', input.columns, input.runNames);
  const data = input.exampleResults ? { ...loaded, exampleResults: input.exampleResults } : loaded;
  const a = studyA(data, { control: input.control, metric: input.metric, analysis: input.analysis, result: input.result, progress: input.progress,
    sampleSize: input.sampleSize });
  const b = studyB(data, { metric: input.metric });
  const tableList = buildTables(data, a, b);
  const check = input.designCheck ?? null;
  const checkTable = check ? designComparisonTable(check) : null;
  if (checkTable) tableList.push(checkTable);
  const tables = new Map(tableList.map((t) => [t.name, t]));
  const prov: Provenance = {
    studyFile: input.studyFile ? await readStudyFile(input.studyFile) : null,
    ...toolVersions(),
    generatedAt: (input.generatedAt ?? new Date()).toISOString(),
  };

  const title = input.title ?? `genstudy report: ${basename(input.storePath)}`;
  const runs = await runSections(data, a, tables, { metric: input.metric, pair: input.pair, runFigures: input.runFigures,
    budget: input.runFiguresBudget });
  const withStudyA = studyAShown(data, a, b);
  const sections: (string | readonly string[])[] = [
    `<header><h1>${esc(title)}</h1><p class="meta">${data.runs.length} runs · ${data.testSets.length} test sets · ${data.scores.length} ` +
    `scores · ${data.schemaVersion ? "store" : "read from"} ${esc(data.storePath)}</p></header>`,
    nav(runs.toc, withStudyA, b.present, check !== null),
  ];
  if (withStudyA) sections.push(await agreementSection(a, tables));
  if (check && checkTable) sections.push(designSection(check, checkTable));
  if (b.present) sections.push(await studyBSection(b));
  sections.push(runs.parts, provenanceSection(data, prov, tableList));

  // the body's pieces one line apart, as one string joined with '\n' would have them
  const body = sections.flat();
  const parts = [pageStart(title), ...body.map((p, i) => (i < body.length - 1 ? `${p}\n` : p)), PAGE_END];
  let joined: string | undefined;
  const out: RenderedReport = {
    parts,
    get html() {
      return (joined ??= parts.join(''));
    },
    tables: Object.fromEntries(tableList.map((t) => [t.name, tableOutput(t)])),
    headline: studyAHeadline(a),
    paperTables: paperTables(a, b),
  };
  if (b.present) out.studyBHeadline = studyBHeadline(b);
  if (check) out.designVerdict = check.verdict;
  return out;
}

export interface WrittenReport {
  dir: string; html: string; files: string[]; report: RenderedReport;
  /** The paper files, when asked for: their folder, paths, and what a file cannot show. */
  figures?: { dir: string; files: string[]; notes: string[] };
}

export interface WriteReportOptions {
  /** A folder for the paper files (every figure as SVG and PDF, the paper tables as LaTeX and Markdown), replaced whole. */
  figures?: string;
}

/**
 * Renders the report and replaces the folder `outDir` by one holding report.html, <table>.csv and
 * <table>.json (a UserError when `outDir` holds anything but an earlier report); with `figures`,
 * replaces that folder by the paper files, made before either folder is touched.
 */
export async function writeReport(outDir: string, input: ReportInput, options: WriteReportOptions = {}): Promise<WrittenReport> {
  const dir = resolve(outDir);
  // A folder that would be refused is said before the report is made, not after
  checkReportFolder(dir);
  if (options.figures !== undefined) checkPaperFolder(options.figures, dir);
  const generatedAt = input.generatedAt ?? new Date();
  const report = await renderReport({ ...input, generatedAt });
  const contents: [string, FileContents][] = Object.entries(report.tables).flatMap(([name, t]): [string, FileContents][] => [
    [`${name}.csv`, t.csvParts], [`${name}.json`, jsonText(t.json)],
  ]);
  // the page in its parts, written one after the other: never one string (a sweep's page may be longer than a string can be)
  contents.push(['report.html', report.parts]);
  if (options.figures === undefined) {
    const files = writeReportFolder(dir, contents);
    return { dir, html: files[files.length - 1], files, report };
  }
  // Loaded here so that a report without paper files does not pay for loading PDFKit and its fonts.
  const { paperFiles } = await import('./paper-files.ts');
  const paper = await paperFiles(report, { createdAt: generatedAt });
  let files: string[] = [];
  const figures = writePaperFolder(options.figures, dir, paper.files, () => { files = writeReportFolder(dir, contents); });
  return { dir, html: files[files.length - 1], files, report, figures: { dir: resolve(options.figures), files: figures, notes: paper.notes } };
}

/** A table's CSV (in parts, joined only when `csv` is read) and JSON. */
function tableOutput(table: Table): ReportTableOutput {
  let joined: string | undefined;
  return {
    get csv() {
      return (joined ??= tableToCsv(table));
    },
    csvParts: tableToCsvParts(table),
    json: tableToJson(table),
  };
}

/**
 * JSON.stringify(value, null, 2) and a newline, an array's rows made a thousand at a time, so a
 * table of millions of rows (scores.json) is written without being one string.
 */
export function jsonText(value: unknown): FileContents {
  if (!Array.isArray(value) || value.length === 0) return JSON.stringify(value, null, 2) + '\n';
  const rows = value;
  return (function* chunks(): Generator<string> {
    const BATCH = 1000;
    for (let i = 0; i < rows.length; i += BATCH) {
      // a slice's text is "[\n" + its rows, indented as in the whole array and one ",\n" apart + "\n]"
      const text = JSON.stringify(rows.slice(i, i + BATCH), null, 2);
      const inner = text.slice(2, -2);
      yield `${i === 0 ? '[\n' : ',\n'}${inner}${i + BATCH >= rows.length ? '\n]\n' : ''}`;
    }
  })();
}

async function readStudyFile(path: string): Promise<NonNullable<Provenance['studyFile']>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UserError(`${path}: cannot read the study file: ${(err as Error).message}`);
  }
  return { path, text, sha256: sha256(text) };
}

const LIBRARIES = ['vega', 'vega-lite', 'better-sqlite3', 'commander', '@huggingface/tokenizers', '@tensorflow/tfjs-core'];

/** genstudy's version and the exact (pinned) versions of the libraries the report depends on. */
function toolVersions(): Pick<Provenance, 'genstudyVersion' | 'libraries' | 'node'> {
  const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
    version: string; dependencies?: Record<string, string>;
  };
  const libraries: Record<string, string> = {};
  for (const name of LIBRARIES) if (pkg.dependencies?.[name]) libraries[name] = pkg.dependencies[name];
  return { genstudyVersion: pkg.version, libraries, node: process.versions.node };
}

/**
 * Whether the page has a study-A section: when a control was given or recorded, or some run is not
 * a study-B run (then "no control" tells its reader what to pass), or there is no study B either.
 * A study-B store without a control gets no empty study-A section.
 */
function studyAShown(data: ReportData, a: StudyA, b: StudyB): boolean {
  return a.options !== null || !b.present || data.runs.some((r) => methodOf(r) === null);
}

function nav(toc: { id: string; label: string }[], studyA: boolean, studyB: boolean, design: boolean): string {
  const items = [
    studyA ? '<li><a href="#study-a">Do generalisation results generalise?</a></li>' : '',
    design ? '<li><a href="#designed-vs-found">Designed against found</a></li>' : '',
    studyB ? '<li><a href="#study-b">Study B matrices</a></li>' : '',
    '<li><a href="#runs">Runs</a></li>',
    ...toc.map((t) => `<li><a href="#${t.id}">${esc(t.label)}</a></li>`),
    '<li><a href="#provenance">Provenance</a></li>',
  ];
  return `<nav id="${anchor('toc', 'contents', 0)}"><ul>${items.join('')}</ul></nav>`;
}
