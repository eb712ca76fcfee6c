// A report chart (SVG) as a one-page vector PDF, the form LaTeX includes: PDFKit draws it through
// svg-to-pdfkit, in pure JavaScript (no browser, no system tool). The charts ask for "sans-serif";
// the PDF embeds DejaVu Sans Condensed, shipped as an npm package, so the output is the same on every
// machine and the report's own marks (− ✓ ≠ ○ ² τ) have glyphs. Condensed, because the charts are laid
// out with charts.ts's per-character estimate of a label's width, which DejaVu Sans Condensed stays
// within; DejaVu Sans is ~10% wider and made a legend's entries run into each other. A character the
// font lacks (a name in a script it does not cover) would be drawn as an empty box: each is reported
// with the PDF, not dropped quietly. PDFKit lays text out left to right without the bidi algorithm, so bidi controls
// (which the page uses to isolate names) are taken out of the PDF's text; they have no glyph.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// The slice of PDFKit's and svg-to-pdfkit's APIs used here (neither ships type declarations).
interface PdfDocument {
  registerFont(name: string, font: Font): void;
  on(event: 'data', fn: (chunk: Buffer) => void): void;
  on(event: 'end', fn: () => void): void;
  end(): void;
}
type PdfDocumentClass = new (options: Record<string, unknown>) => PdfDocument;
type SvgToPdf = (doc: PdfDocument, svg: string, x: number, y: number, options: Record<string, unknown>) => void;
interface Font { hasGlyphForCodePoint(codePoint: number): boolean }

const PDFDocument = require('pdfkit') as PdfDocumentClass;
const svgToPdfKit = require('svg-to-pdfkit') as SvgToPdf;
const fontkit = require('fontkit') as { create(data: Buffer): Font };

/** The font the PDFs embed, in messages. */
export const PDF_FONT = 'DejaVu Sans Condensed';
const FACES = {
  regular: 'DejaVuSansCondensed', bold: 'DejaVuSansCondensed-Bold',
  italic: 'DejaVuSansCondensed-Oblique', boldItalic: 'DejaVuSansCondensed-BoldOblique',
} as const;

let fonts: Record<keyof typeof FACES, Font> | undefined;

/**
 * The faces, read and parsed once per process and handed to every PDF (PDFKit takes a parsed font
 * as it takes a file, and subsets it per document): given the files, PDFKit parsed all four anew for
 * each PDF, most of the time a report's figures took.
 */
function loadFonts(): NonNullable<typeof fonts> {
  fonts ??= Object.fromEntries(Object.entries(FACES).map(([face, file]) =>
    [face, fontkit.create(readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${file}.ttf`)))])) as Record<keyof typeof FACES, Font>;
  return fonts;
}

// Bidirectional formatting characters (marks, embeddings, overrides, isolates).
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export interface PdfFigure {
  pdf: Buffer;
  /** Characters of the chart's text the PDF's font has no glyph for (drawn as boxes). */
  missing: string[];
}

/** The SVG chart `svg` (width and height in px, drawn 1 px = 1 pt) as a PDF; `createdAt` is its creation date (the report's). */
export async function svgToPdf(svg: string, opts: { title: string; createdAt: Date }): Promise<PdfFigure> {
  const size = (attr: string) => Number(new RegExp(`^<svg [^>]*\\s${attr}="([\\d.]+)"`).exec(svg.replace(/^<\?xml[^>]*>\s*/, ''))?.[1]);
  const [width, height] = [size('width'), size('height')];
  if (!(width > 0 && height > 0)) throw new Error(`${opts.title}: the chart's SVG has no width and height`);
  const faces = loadFonts();
  const text = svg.replace(BIDI_CONTROLS, '');
  const missing = missingGlyphs(text, faces.regular);
  const doc = new PDFDocument({
    size: [width, height], margin: 0, compress: true,
    info: { Title: opts.title, Creator: 'genstudy report', Producer: 'genstudy report (PDFKit)', CreationDate: opts.createdAt },
  });
  for (const [face, file] of Object.entries(FACES) as [keyof typeof FACES, string][]) doc.registerFont(file, faces[face]);
  const chunks: Buffer[] = [];
  doc.on('data', (c) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', resolve));
  const warnings: string[] = [];
  svgToPdfKit(doc, text, 0, 0, {
    width, height, assumePt: true,
    fontCallback: (_family: string, bold: boolean, italic: boolean) =>
      FACES[bold && italic ? 'boldItalic' : bold ? 'bold' : italic ? 'italic' : 'regular'],
    warningCallback: (w: string) => warnings.push(w),
  });
  doc.end();
  await done;
  // A warning means svg-to-pdfkit left something of the chart out: a PDF missing part of its chart is not written.
  if (warnings.length) throw new Error(`${opts.title}: the chart could not be drawn as PDF whole: ${[...new Set(warnings)].join('; ')}`);
  return { pdf: Buffer.concat(chunks), missing };
}

/** The characters in the SVG's text nodes that `font` has no glyph for, each once. */
function missingGlyphs(svg: string, font: Font): string[] {
  const missing = new Set<string>();
  for (const [, raw] of svg.matchAll(/>([^<]+)</g)) {
    const content = raw.replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
      .replace(/&#x([0-9a-f]+);/gi, (_m, h: string) => String.fromCodePoint(parseInt(h, 16)))
      .replace(/&[a-z]+;/g, ' ');
    for (const ch of content) if (!/\s/.test(ch) && !font.hasGlyphForCodePoint(ch.codePointAt(0)!)) missing.add(ch);
  }
  return [...missing];
}
