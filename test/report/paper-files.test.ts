// What goes into a paper (genstudy report --figures): every figure of the page as SVG and PDF, the
// verdict, meta-analysis and study-B tables as LaTeX and Markdown. Each file is read back as its
// reader would: the SVG parsed as XML, the PDF opened by poppler (pdftoppm, pdftotext), the LaTeX
// checked structurally and compiled by pdflatex, the Markdown checked row by row. Names as hostile
// as input files may hold (every LaTeX special character, a pipe, a tag, a control character) must
// come out escaped in each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { UserError } from '../../src/errors.ts';
import { writeReport, type WrittenReport } from '../../src/report/index.ts';
import { escapeLatex, tableToLatex } from '../../src/report/latex-table.ts';
import { escapeMarkdown, tableToMarkdown } from '../../src/report/markdown-table.ts';
import { paperFiles } from '../../src/report/paper-files.ts';
import type { PaperTable } from '../../src/report/paper-table.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { genstudyKilledAt } from '../support/killed-at.ts';
import { DEFAULT_SIMULATED_SETS, simulateScores } from '../support/simulated-scores.ts';

/** An OOD test set of study A: every character LaTeX gives a meaning to, a pipe and a tag. */
const HOSTILE = 'o&v_e%r#l$a{p}|<script>~^\\x';
const HOSTILE_LATEX = 'o\\&v\\_e\\%r\\#l\\$a\\{p\\}\\textbar{}\\textless{}script\\textgreater{}' +
  '\\textasciitilde{}\\textasciicircum{}\\textbackslash{}x';
const HOSTILE_MARKDOWN = 'o\\&v\\_e%r#l\\$a{p}\\|\\<script\\>\\~^\\\\x';
/** Another, with a control character (ESC), which XML does not allow and a terminal would obey. */
const ESCAPE_SET = 'neg\u001bbroken';
/** A name in a script DejaVu Sans Condensed (the PDFs' font) has no glyphs for. */
const CJK_SET = 'vocab-漢字';
/** Study B: a test set and a second model named as badly. */
const HOSTILE_B = 'y&e_l%p|<b>';
const MODEL_B = 'm$o#d{e}l';
const CREATED = new Date('2026-01-02T03:04:05Z');
/** Without the calibration's simulations, which take most of a report's time and draw no figure this exports. */
const QUICK = ['--control', 'in-domain', '--calibration', '0'];
/** The tests of how the folders are written read no table's content: the robustness table left out as well. */
const FOLDERS_ONLY = [...QUICK, '--no-robustness'];

let root: string;
let store: string;
let written: WrittenReport;
let figures: string;

function hostileStore(file: string): void {
  const renamed: Record<string, string> = { 'overlap-consistent': HOSTILE, 'negation-broken': ESCAPE_SET, 'vocabulary-shift': CJK_SET };
  const sets = DEFAULT_SIMULATED_SETS.map((s) => ({ ...s, id: renamed[s.id] ?? s.id }));
  const rows = simulateScores({ seed: 7, runs: 3, steps: 16, sets });
  const s = ResultStore.open(file);
  for (const run of new Set(rows.map((r) => r.run))) s.upsertRun({ id: run, attributes: { control_test_set: 'in-domain' } });
  s.writeScores(rows.map((r) => ({ run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value, n: 2000 })));
  // Study B in small: per model a base run and a fine-tuned one, scored on an in-domain and a (hostile) cross-domain set.
  for (const [id, domain] of [['amazon', 'in-domain'], [HOSTILE_B, 'cross-domain']]) {
    s.upsertTestSet({ id, n: 250, spec: { task: 'sentiment', domain, metric: 'accuracy' } });
  }
  for (const model of ['llama-tiny', MODEL_B]) {
    s.upsertRun({ id: `${model}-base`, model, method: 'base', attributes: {} });
    s.upsertRun({ id: `${model}-ft`, model, method: 'ft', attributes: { training_task: 'sentiment' } });
    for (const [run, gain] of [[`${model}-base`, 0], [`${model}-ft`, 0.2]] as const) {
      const value = (i: number) => 0.5 + gain - 0.1 * i;
      s.writeScores(['amazon', HOSTILE_B].map((testSet, i) => ({ run, step: 100, testSet, metric: 'accuracy', value: value(i), n: 250 })));
    }
  }
  s.close();
}

let made: Promise<void> | undefined;

/**
 * The store, the report and its figures the tests read, made by the first test that needs them and
 * removed when the process ends (no file-level hook: test/support/run-test-files.ts).
 */
function ready(): Promise<void> {
  made ??= (async () => {
    root = mkdtempSync(join(tmpdir(), 'genstudy-paper-'));
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
    store = join(root, 'results.sqlite');
    hostileStore(store);
    figures = join(root, 'figures');
    written = await writeReport(join(root, 'report'), input(), { figures });
  })();
  return made;
}

function input(robustness = true) {
  return { storePath: store, control: 'in-domain', generatedAt: CREATED, analysis: { calibration: 0, robustness } };
}

const files = (ext: string) => readdirSync(figures).filter((f) => f.endsWith(ext)).sort();
const read = (name: string) => readFileSync(join(figures, name), 'utf8');
const has = (tool: string) => spawnSync(tool, ['-v'], { encoding: 'utf8' }).error === undefined;

test('every figure of the page is an SVG file that parses as XML, draws marks, and shows the hostile names escaped', async () => {
  await ready();
  const html = readFileSync(written.html, 'utf8');
  const svgs = files('.svg');
  assert.equal(svgs.length, html.match(/<figure[\s>]/g)!.length, 'one SVG per figure of the page');
  for (const name of ['study-a-pooled.svg', 'study-a-agreement.svg', 'study-a-forest.svg', 'study-b-ft-llama-tiny.svg']) {
    assert.ok(svgs.includes(name), `${name} in ${svgs.join(', ')}`);
  }
  assert.ok(svgs.some((s) => /^runs-curves-/.test(s)) && svgs.some((s) => /^runs-heatmap-/.test(s)), svgs.join(', '));
  const texts: string[] = [];
  const collect = (node: unknown): void => {
    if (typeof node === 'string') texts.push(node);
    else if (node && typeof node === 'object') for (const v of Object.values(node)) collect(v);
  };
  for (const name of svgs) {
    const svg = read(name);
    assert.equal(XMLValidator.validate(svg), true, `${name} is well-formed XML`);
    assert.match(svg, /^<\?xml [^>]*\?>\n<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*width="\d+(\.\d+)?" height="\d+(\.\d+)?"/);
    assert.match(svg, /<g class="mark-[a-z]+ role-mark/, `${name} has marks`);
    assert.ok((svg.match(/<(path|text|line|rect)\b/g) ?? []).length > 5, `${name} draws something`);
    assert.ok(!svg.includes('<script') && !svg.includes('\u001b'), `${name}: no tag and no control character from a name`);
    collect(new XMLParser({ ignoreAttributes: false, processEntities: true, htmlEntities: false }).parse(svg));
  }
  assert.ok(texts.some((t) => t.includes(HOSTILE)), 'the hostile name reads back whole from the charts\' text');
  assert.ok(texts.some((t) => t.includes('neg\\x1bbroken')), 'the control character is written visibly');
  assert.ok(texts.some((t) => t.includes(HOSTILE_B)), 'study B\'s hostile test set too');
});

test('every figure is a one-page PDF that poppler opens, draws, and reads the names from', async (t) => {
  await ready();
  const pdfs = files('.pdf');
  assert.deepEqual(pdfs.map((p) => p.replace(/\.pdf$/, '')), files('.svg').map((s) => s.replace(/\.svg$/, '')), 'a PDF beside each SVG');
  for (const name of pdfs) {
    const pdf = readFileSync(join(figures, name));
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-', name);
    assert.match(pdf.subarray(-8).toString(), /%%EOF\s*$/, name);
  }
  if (!has('pdftoppm') || !has('pdftotext')) {
    t.skip('poppler-utils (pdftoppm, pdftotext) is not installed: only the PDFs\' header and trailer were checked');
    return;
  }
  const out = join(root, 'pages');
  mkdirSync(out, { recursive: true });
  for (const name of pdfs) {
    const r = spawnSync('pdftoppm', ['-r', '24', '-gray', join(figures, name), join(out, name)], { encoding: 'utf8' });
    assert.equal(r.status, 0, `pdftoppm ${name}: ${r.stderr}`);
    assert.equal(r.stderr, '', `pdftoppm ${name} complains`);
    const pages = readdirSync(out).filter((f) => f.startsWith(name));
    assert.equal(pages.length, 1, `${name}: one page`);
    // A PGM: "P5\n<w> <h>\n255\n" and the pixels; a chart has dark ones.
    const image = readFileSync(join(out, pages[0]));
    const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(image.subarray(0, 40).toString('latin1'))!;
    const pixels = image.subarray(header[0].length);
    assert.equal(pixels.length, Number(header[1]) * Number(header[2]));
    assert.ok(pixels.filter((p) => p < 128).length > 50, `${name} is not blank`);
  }
  const text = (name: string) => spawnSync('pdftotext', [join(figures, name), '-'], { encoding: 'utf8' }).stdout;
  const forest = text('study-a-forest.pdf');
  assert.ok(forest.includes('inconclusive') || forest.includes('generalises'), forest);
  // (the forest's names run left to right; pdftotext takes the matrices' slanted axis labels apart)
  assert.ok(forest.includes(HOSTILE), 'the hostile name is the PDF\'s text, whole');
  assert.ok(forest.includes('neg\\x1bbroken'), 'the control character written visibly');
  // The one thing a PDF cannot show is said, once, naming the figures: here the CJK name.
  assert.equal(written.figures!.notes.length, 1);
  assert.match(written.figures!.notes[0],
    /^\d+ of the \d+ figures' PDFs draw "漢", "字" as empty boxes \(DejaVu Sans Condensed, .*\): .*study-a-forest/);
  assert.doesNotMatch(written.figures!.notes[0], /"[a-z<&]"/, 'every other character of the names has its glyph');
  assert.match(read('README.md'), /study-a-forest\.pdf draws "漢", "字" as empty boxes/);
});

/** The paper tables written as LaTeX: a table float each. */
const LATEX_TABLES = ['study-a-verdicts.tex', 'study-a-meta-analysis.tex', 'study-b-grid.tex'];

/** A LaTeX cell or caption with the escapes, math and bold this export writes taken out: what is left must hold no special character. */
function bareText(latex: string): string {
  return latex
    .replace(/\\[&%$#_{}]|\\text(backslash|asciitilde|asciicircum|less|greater|bar|asciigrave)\{\}/g, '·')
    .replace(/\\ensuremath\{[^{}]*\}/g, 'S')
    .replace(/\$\\mathbf\{[^{}$]*\}\$/g, 'N')
    .replace(/\$[^$]*\$/g, 'N')
    .replace(/\\textbf\{([^{}]*)\}/g, '$1')
    .replace(/-\{\}|'\{\}/g, '');
}

/** The text inside the braces that open at `from` (a LaTeX argument), braces escaped with \ not counted. */
function argument(text: string, from: number): string {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') { i++; continue; }
    if (text[i] === '{') depth++;
    if (text[i] === '}' && --depth === 0) return text.slice(from + 1, i);
  }
  throw new Error(`unbalanced braces from ${text.slice(from, from + 40)}`);
}

test('LaTeX tables: booktabs rules, balanced environments, a cell per column in every row, every special character escaped', async () => {
  await ready();
  assert.deepEqual(files('.tex').filter((f) => f !== 'figures.tex'), [...LATEX_TABLES].sort());
  for (const name of LATEX_TABLES) {
    const tex = read(name);
    const lines = tex.split('\n');
    assert.deepEqual(lines.filter((l) => /^\\(top|mid|bottom)rule$/.test(l)), ['\\toprule', '\\midrule', '\\bottomrule'], name);
    const stack: string[] = [];
    for (const [, kind, env] of tex.matchAll(/\\(begin|end)\{([a-z]+)\}/g)) {
      if (kind === 'begin') stack.push(env);
      else assert.equal(stack.pop(), env, `${name}: \\end{${env}} closes what it opened`);
    }
    assert.deepEqual(stack, [], `${name}: every environment closed`);
    assert.deepEqual([...tex.matchAll(/\\begin\{([a-z]+)\}/g)].map((m) => m[1]), ['table', 'tabular'], name);
    const columns = /\\begin\{tabular\}\{([lrc]+)\}/.exec(tex)![1].length;
    const body = lines.slice(lines.indexOf('\\toprule') + 1, lines.indexOf('\\bottomrule')).filter((l) => l !== '\\midrule');
    assert.ok(body.length >= 2, `${name}: a header and rows`);
    for (const row of body) {
      assert.match(row, / \\\\$/, `${name}: a row ends with \\\\`);
      const cells = row.slice(0, -3).split(/(?<!\\)&/);
      assert.equal(cells.length, columns, `${name}: ${row}`);
      for (const cell of cells) assert.doesNotMatch(bareText(cell), /[&%$#_{}~^\\<>|]/, `${name}: unescaped in ${cell}`);
    }
    const caption = argument(tex, tex.indexOf('\\caption{') + '\\caption'.length);
    assert.doesNotMatch(bareText(caption), /[&%$#_{}~^\\<>|]/, `${name}: caption ${caption}`);
  }
  const verdicts = read('study-a-verdicts.tex');
  assert.ok(verdicts.includes(`${HOSTILE_LATEX} &`) || verdicts.includes(`& ${HOSTILE_LATEX} &`), 'the hostile pair name, escaped');
  assert.ok(verdicts.includes('neg\\textbackslash{}x1bbroken'), 'the control character written visibly');
  const grid = read('study-b-grid.tex');
  assert.ok(grid.includes('y\\&e\\_l\\%p\\textbar{}\\textless{}b\\textgreater{} (sentiment)'), 'study B\'s test set in the header');
  assert.ok(grid.includes('m\\$o\\#d\\{e\\}l & FT'), 'the second model, escaped');
  assert.match(grid, /\$\\mathbf\{0\.700\\ \(\+0\.200\)\}\$/, 'an in-domain cell: score and difference from base, bold');
  for (const caption of [...read('figures.tex').matchAll(/\\caption\{/g)].map((m) => argument(read('figures.tex'), m.index + 8))) {
    assert.doesNotMatch(bareText(caption), /[&%$#_{}~^\\<>|]/, `figures.tex caption ${caption}`);
  }
  assert.ok(read('figures.tex').includes('m\\$o\\#d\\{e\\}l, FT'), 'a figure caption names the hostile model, escaped');
});

test('the LaTeX compiles: pdflatex sets every table and includes every figure\'s PDF', async (t) => {
  await ready();
  if (!has('pdflatex')) {
    t.skip('pdflatex is not installed (texlive-latex-base, texlive-latex-recommended): the LaTeX was checked structurally only');
    return;
  }
  const build = join(root, 'latex');
  mkdirSync(build, { recursive: true });
  writeFileSync(join(build, 'paper.tex'), [
    '\\documentclass{article}', '\\usepackage{booktabs}', '\\usepackage{graphicx}', `\\graphicspath{{${figures}/}}`,
    // pdflatex sets no CJK of itself (xelatex or lualatex with a CJK font would): a document with such names says what to print
    '\\DeclareUnicodeCharacter{6F22}{[han]}', '\\DeclareUnicodeCharacter{5B57}{[zi]}', '\\begin{document}',
    ...LATEX_TABLES.map((n) => `\\input{${join(figures, n)}}`), `\\input{${join(figures, 'figures.tex')}}`, '\\end{document}', '',
  ].join('\n'));
  const r = spawnSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', 'paper.tex'], { cwd: build, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout.split('\n').filter((l) => l.startsWith('!') || l.startsWith('l.')).join('\n') || r.stdout.slice(-2000));
  assert.doesNotMatch(r.stdout, /Undefined control sequence|Missing \$|not set up for use with LaTeX|File .* not found/);
  const log = readFileSync(join(build, 'paper.log'), 'utf8');
  assert.equal((log.match(/\.pdf, id=/g) ?? []).length, files('.pdf').length, 'every figure\'s PDF was read');
  assert.ok(existsSync(join(build, 'paper.pdf')));
});

test('Markdown tables: a header, its separator, the same number of cells in every row; pipes and tags escaped', async () => {
  await ready();
  const tables = ['study-a-verdicts.md', 'study-a-meta-analysis.md', 'study-b-grid.md'];
  assert.deepEqual(files('.md').filter((f) => f !== 'README.md'), [...tables].sort());
  const cellsOf = (line: string) => line.slice(1, -1).split(/(?<!\\)\|/);
  for (const name of tables) {
    const rows = read(name).split('\n').filter((l) => l.startsWith('|'));
    assert.ok(rows.length >= 3, name);
    const columns = cellsOf(rows[0]).length;
    assert.match(rows[1], /^\|( ---:? \|)+$/, `${name}: the header's separator`);
    for (const row of rows) {
      assert.match(row, /^\| .* \|$/, `${name}: ${row}`);
      assert.equal(cellsOf(row).length, columns, `${name}: ${row}`);
    }
  }
  const all = tables.map(read).join('\n') + read('README.md');
  assert.doesNotMatch(all, /(?<!\\)<(script|b)>/, 'no tag from a name');
  assert.ok(read('study-a-verdicts.md').includes(`| ${HOSTILE_MARKDOWN} |`), 'the hostile name escaped as a cell of its own');
  assert.ok(read('study-b-grid.md').includes('y\\&e\\_l%p\\|\\<b\\> (sentiment)'));
  assert.match(read('study-b-grid.md'), /\| \*\*0\.700 \(\+0\.200\)\*\* \|/, 'the in-domain cell in bold');
});

test('README.md says what each file is; figures.tex has a float per figure; the same report gives the same bytes', async () => {
  await ready();
  const readme = read('README.md');
  const figureNames = files('.svg').map((s) => s.replace(/\.svg$/, ''));
  for (const f of figureNames) {
    assert.ok(readme.includes(`\`${f}.svg\`, \`${f}.pdf\`: `), `README names ${f}`);
    assert.ok(read('figures.tex').includes(`\\includegraphics[width=\\linewidth,height=0.8\\textheight,keepaspectratio]{${f}.pdf}`));
  }
  for (const tex of LATEX_TABLES) assert.ok(readme.includes(`\`${tex}\`, \`${tex.replace(/\.tex$/, '.md')}\`: `), tex);
  assert.equal((read('figures.tex').match(/\\begin\{figure\}/g) ?? []).length, figureNames.length);
  const again = await paperFiles(written.report, { createdAt: CREATED });
  assert.deepEqual(again.files.map(([n]) => n).sort(), readdirSync(figures).sort());
  for (const [name, data] of again.files) assert.ok(Buffer.from(data).equals(readFileSync(join(figures, name))), `${name} is the same bytes`);
});

test('tables in LaTeX and Markdown: exact forms of escapes, numbers, missing values and bold', () => {
  const table: PaperTable = {
    name: 'demo', title: 'A 100% <test>?', description: 'Rows: a_b & c.',
    columns: [{ header: 'name|x' }, { header: 'p', latexHeader: '$p$', numeric: true }],
    rows: [['a&b', '1.5e-5'], [{ text: 'c--d', strong: true }, null], ['`x`', '-0.25']],
  };
  assert.equal(tableToLatex(table), [
    '% A 100% <test>?: written by genstudy report --figures. Needs \\usepackage{booktabs} and \\usepackage{graphicx}.',
    '\\begin{table}[htbp]', '\\centering', '\\small',
    '\\caption{A 100\\% \\textless{}test\\textgreater{}? Rows: a\\_b \\& c.}', '\\label{tab:demo}',
    '\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%', '\\begin{tabular}{lr}', '\\toprule',
    'name\\textbar{}x & $p$ \\\\', '\\midrule',
    'a\\&b & $1.5\\times10^{-5}$ \\\\', '\\textbf{c-{}-d} & -- \\\\', '\\textasciigrave{}x\\textasciigrave{} & $-0.25$ \\\\',
    '\\bottomrule', '\\end{tabular}}', '\\end{table}', '',
  ].join('\n'));
  assert.equal(tableToMarkdown(table), [
    '**A 100% \\<test\\>?** Rows: a\\_b \\& c.', '', '| name\\|x | p |', '| --- | ---: |', '| a\\&b | 1.5e-5 |', '| **c--d** | – |',
    '| \\`x\\` | -0.25 |', '',
  ].join('\n'));
  assert.equal(escapeLatex('x\u202ey'), 'x\\textbackslash{}u202ey', 'a bidi override shown, not obeyed');
  assert.equal(escapeMarkdown('x\ny'), 'x\\\\x0ay', 'a line break cannot end the row');
  assert.equal(escapeLatex('r − 1 ≠ ±τ²'), 'r \\ensuremath{-} 1 \\ensuremath{\\neq} \\ensuremath{\\pm}\\ensuremath{\\tau}\\ensuremath{^2}');
});

test('the figures folder is replaced whole; one holding other files, or inside the report, is refused before anything is written', async () => {
  await ready();
  const out = join(root, 'report2');
  const fig = join(root, 'figures2');
  await writeReport(out, input(false), { figures: fig });
  writeFileSync(join(fig, 'stale.svg'), '<svg/>');
  await writeReport(out, input(false), { figures: fig });
  assert.ok(!existsSync(join(fig, 'stale.svg')), 'a file of an earlier export is gone');
  assert.ok(existsSync(join(fig, 'study-a-forest.pdf')));

  const mine = join(root, 'mine');
  mkdirSync(mine);
  writeFileSync(join(mine, 'paper.tex'), '\\documentclass{article}');
  writeFileSync(join(mine, 'README.md'), '# my paper\n');
  const fresh = join(root, 'report3');
  await assert.rejects(writeReport(fresh, input(), { figures: mine }),
    (e: Error) => e instanceof UserError && /mine: not a figures folder \(its README\.md was not written by genstudy\)/.test(e.message));
  writeFileSync(join(mine, 'notes.txt'), 'mine\n');
  await assert.rejects(writeReport(fresh, input(), { figures: mine }),
    (e: Error) => e instanceof UserError && /not a figures folder \(it holds "notes\.txt"\)/.test(e.message));
  assert.deepEqual(readdirSync(mine).sort(), ['README.md', 'notes.txt', 'paper.tex'], 'the user\'s files stay');
  assert.ok(!existsSync(fresh), 'and the report was not written either');
  await assert.rejects(writeReport(fresh, input(), { figures: join(fresh, 'figures') }),
    (e: Error) => e instanceof UserError && /must not hold each other/.test(e.message));
  assert.ok(!existsSync(fresh));
});

test('genstudy report --figures: killed while writing, both folders stay as they were; then it writes both and says where', async () => {
  await ready();
  const out = join(root, 'report');
  const before = { report: readdirSync(out).sort(), figures: readdirSync(figures).sort(), readme: read('README.md') };
  const k = await genstudyKilledAt(['report', store, '--out', out, '--figures', figures, ...FOLDERS_ONLY], 'report:tables-written');
  assert.equal(k.signal, 'SIGKILL', k.stderr);
  assert.deepEqual(readdirSync(out).sort(), before.report);
  assert.deepEqual(readdirSync(figures).sort(), before.figures);
  assert.equal(read('README.md'), before.readme, 'the old figures, not the new ones');
  const r = await genstudy(['report', store, '--out', out, '--figures', figures, ...FOLDERS_ONLY]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /genstudy: note: \d+ of the \d+ figures' PDFs draw "漢", "字" as empty boxes/);
  assert.match(r.stdout, new RegExp(`Figures and tables for a paper: ${before.figures.length} files \\(SVG, PDF, LaTeX, Markdown; README\\.md says ` +
    `what each is\\) in ${figures.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`));
  assert.notEqual(read('README.md'), before.readme, 'written anew');
  assert.deepEqual(readdirSync(root).filter((n) => n.includes('.tmp')), [], 'no temporary folder left');
});
