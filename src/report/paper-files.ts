// What goes into a paper, from a rendered report: every figure of the page as SVG and PDF, every
// paper table (study A's verdicts and meta-analysis, study B's grid) as LaTeX and Markdown, the
// figures' captions as LaTeX figure floats (figures.tex), and README.md saying what each file is.
// Nothing is written here (paper-folder.ts writes the folder); every file exists in memory first,
// so a chart that cannot be converted stops the export before anything is replaced.
import { escapeLatex, tableToLatex } from './latex-table.ts';
import { escapeMarkdown, tableToMarkdown } from './markdown-table.ts';
import { pageFigures, pageText, type PageFigure } from './page-figures.ts';
import { INDEX, INDEX_MARK } from './paper-folder.ts';
import { titleSentence, type PaperTable } from './paper-table.ts';
import { PDF_FONT, svgToPdf } from './svg-pdf.ts';

const FLOATS = 'figures.tex';

export interface PaperFiles {
  /** File name -> contents, the index last. */
  files: [string, string | Buffer][];
  /** What a file cannot show (characters without a glyph in a PDF), one sentence each. */
  notes: string[];
}

export async function paperFiles(report: { parts: readonly string[]; paperTables: readonly PaperTable[] },
  opts: { createdAt: Date }): Promise<PaperFiles> {
  // the page's parts as they are (render.ts): the title is in its head
  let title = 'genstudy report';
  for (const part of report.parts) {
    const found = /<title>([\s\S]*?)<\/title>/.exec(part);
    if (found) {
      title = pageText(found[1]);
      break;
    }
  }
  const figures = pageFigures(report.parts);
  const files: [string, string | Buffer][] = [];
  const figureNotes = new Map<string, string>();
  const missingAll = new Set<string>();
  for (const f of figures) {
    const { pdf, missing } = await svgToPdf(f.svg, { title: `${title}: ${f.name}`, createdAt: opts.createdAt });
    files.push([`${f.name}.svg`, f.svg], [`${f.name}.pdf`, pdf]);
    if (missing.length) {
      figureNotes.set(f.name, `${f.name}.pdf draws ${quoted(missing)} as empty boxes: its font (${PDF_FONT}) has no glyph for them; ` +
        `${f.name}.svg shows them in the fonts of whatever opens it`);
      for (const c of missing) missingAll.add(c);
    }
  }
  // one sentence for all the figures (a name without glyphs is in most of them)
  const notes = figureNotes.size === 0 ? [] : [`${figureNotes.size} of the ${figures.length} figures' PDFs draw ${quoted([...missingAll])} ` +
    `as empty boxes (${PDF_FONT}, the font they embed, has no glyph for them): ${[...figureNotes.keys()].join(', ')}; the SVGs show them`];
  for (const t of report.paperTables) files.push([`${t.name}.tex`, tableToLatex(t)], [`${t.name}.md`, tableToMarkdown(t)]);
  if (figures.length) files.push([FLOATS, figureFloats(figures)]);
  files.push([INDEX, index(title, opts.createdAt, figures, report.paperTables, figureNotes)]);
  const names = files.map(([name]) => name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new Error(`two paper files would be called ${twice}`);
  return { files, notes };
}

function quoted(chars: readonly string[]): string {
  return chars.map((c) => `"${c}"`).join(', ');
}

/** Each figure as a LaTeX float with its caption, for \input or for copying from. */
function figureFloats(figures: readonly PageFigure[]): string {
  const floats = figures.map((f) => [
    '\\begin{figure}[htbp]',
    '\\centering',
    `\\includegraphics[width=\\linewidth,height=0.8\\textheight,keepaspectratio]{${f.name}.pdf}`,
    `\\caption{${escapeLatex(f.caption)}}`,
    `\\label{fig:${f.name}}`,
    '\\end{figure}',
    '',
  ].join('\n'));
  return ['% The report\'s figures as LaTeX floats: written by genstudy report --figures. Needs \\usepackage{graphicx}, with these PDFs',
    '% where \\includegraphics finds them (beside the document, or \\graphicspath).', '', floats.join('\n')].join('\n');
}

function index(title: string, createdAt: Date, figures: readonly PageFigure[], tables: readonly PaperTable[],
  figureNotes: ReadonlyMap<string, string>): string {
  const code = (name: string) => `\`${name}\``;
  const out = [
    INDEX_MARK,
    '',
    `# Figures and tables: ${escapeMarkdown(title)}`,
    '',
    `Written by \`genstudy report --figures\` with the report of ${createdAt.toISOString()}. Each figure of the report as SVG and as ` +
    `PDF (vector, ${PDF_FONT} embedded; for LaTeX), ` + 'their captions as LaTeX floats in `figures.tex` (`\\usepackage{graphicx}`), and ' +
    'each table a paper prints as LaTeX (a table float with booktabs rules: `\\usepackage{booktabs}`) and as Markdown. The numbers ' +
    'are rounded for reading; the report\'s CSV and JSON tables hold them in full.',
    '',
    '## Tables',
    '',
  ];
  if (!tables.length) out.push('None: the report has no study-A meta-analysis and no study-B grid.', '');
  for (const t of tables) {
    out.push(`- ${code(`${t.name}.tex`)}, ${code(`${t.name}.md`)}: ${escapeMarkdown(titleSentence(t.title))} ${escapeMarkdown(t.description)}`);
  }
  out.push('', '## Figures', '');
  if (!figures.length) out.push('None: the report has no charts.', '');
  for (const f of figures) {
    out.push(`### ${f.name}`, '', `![${escapeMarkdown(f.name)}](${f.name}.svg)`, '', `${code(`${f.name}.svg`)}, ${code(`${f.name}.pdf`)}: ` +
      escapeMarkdown(f.caption), '');
    const note = figureNotes.get(f.name);
    if (note) out.push(`Note: ${escapeMarkdown(note)}`, '');
  }
  return out.join('\n');
}
