// Every figure of the report page as a file of its own: read back out of the rendered page, so a
// paper gets exactly the charts the page shows (no second drawing that could drift from it), each
// with its caption. A figure is named after the page's section it sits in, its kind (the chart's
// data-chart) and, where the page has one per run or model, whose it is: study-a-forest,
// runs-curves-pythia-70m-zero-shot, study-b-ft. Each figure the page has is returned or the call
// fails: none is dropped quietly.
import { escaped } from '../terminal-safe.ts';

export interface PageFigure {
  /** File stem, unique in the page: <section>-<kind>[-<run or model>]. */
  name: string;
  /** The chart as a standalone SVG document. */
  svg: string;
  /** The figure's caption as plain text. */
  caption: string;
}

const FIGURE = /<figure class="chart" data-chart="([^"]*)"[^>]*>(<svg[\s\S]*?<\/svg>)<figcaption>([\s\S]*?)<\/figcaption><\/figure>/;
// What places a figure: the section it is in, the run whose article it is in (and where that ends), and the figure itself.
const LANDMARK = new RegExp(`<section id="([^"]*)"|<article [^>]*data-run="([^"]*)"|</article>|${FIGURE.source}`, 'g');

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const FSI = '\u2068';
const PDI = '\u2069';

/** Text the page escaped (escape.ts), as it was: entities decoded, the bidi isolate wrapped around the whole text removed. */
export function pageText(html: string): string {
  const text = html.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]);
  return text.startsWith(FSI) && text.endsWith(PDI) ? text.slice(FSI.length, -PDI.length) : text;
}

/**
 * The figures of a page, given whole or in its parts (RenderedReport.parts: each part whole
 * elements, so no figure or landmark is split between two; a page too large for one string is read part by part).
 */
export function pageFigures(page: string | readonly string[]): PageFigure[] {
  const found: { section: string; kind: string; run: string | null; svg: string; caption: string }[] = [];
  let section = '';
  let run: string | null = null;
  let inPage = 0;
  for (const html of typeof page === 'string' ? [page] : page) {
    for (const m of html.matchAll(LANDMARK)) {
      if (m[1] !== undefined) section = m[1];
      else if (m[2] !== undefined) run = pageText(m[2]);
      else if (m[0] === '</article>') run = null;
      else found.push({ section, kind: m[3], run, svg: m[4], caption: pageText(m[5]) });
    }
    inPage += html.match(/<figure[\s>]/g)?.length ?? 0;
  }
  if (found.length !== inPage) throw new Error(`the report page has ${inPage} figures and ${found.length} of them could be read as charts`);

  const kinds = new Map<string, number>();
  for (const f of found) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
  const used = new Set<string>();
  return found.map((f) => {
    // A figure drawn once per run or model says whose: its article's run, else the subject its label starts with ("<run>: ...").
    const subject = f.run ?? (kinds.get(f.kind)! > 1 ? labelSubject(f.svg) : null);
    const kind = f.kind.startsWith(`${f.section}-`) ? f.kind.slice(f.section.length + 1) : f.kind;
    const stem = [f.section, kind, subject].filter((x) => x).map((x) => slug(x!)).filter(Boolean).join('-') || 'figure';
    let name = stem;
    for (let i = 2; used.has(name); i++) name = `${stem}-${i}`;
    used.add(name);
    return { name, svg: standalone(f.svg), caption: f.caption };
  });
}

/** The run or model a chart's label names first ("pythia-70m: scores against training step"), if it names one. */
function labelSubject(svg: string): string | null {
  const label = /^<svg [^>]*aria-label="([^"]*)"/.exec(svg)?.[1];
  const text = label === undefined ? '' : pageText(label);
  const colon = text.indexOf(': ');
  return colon > 0 ? text.slice(0, colon) : null;
}

/** Letters, digits and single dashes, at most 60 characters: a file name on every system. */
function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+/, '').slice(0, 60).replace(/-+$/, '');
}

// Characters XML 1.0 does not allow (C0 controls but tab and line breaks, U+FFFE, U+FFFF), which
// an HTML page tolerates in a name; in a standalone SVG they are written as the terminal shows them (\x1b).
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function standalone(svg: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${svg.replace(NOT_XML, escaped)}\n`;
}
