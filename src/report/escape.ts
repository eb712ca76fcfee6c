// Escaping for text placed into the report's HTML (element content and quoted attribute values).
// Every string that came from a store, a study file or a flag goes through here before it is
// written into the page.
//
// A name can also hold right-to-left letters or bidirectional controls (U+202E, the "right-to-left
// override", makes what follows it display reversed). Such a text is isolated as <bdi> would
// isolate it, but with the isolate characters (FSI ... PDI), which are valid in attributes and the
// <title> too: the controls it opens are closed inside it and a closing control it has without an
// opening one (which would end the page's own context) is dropped, so nothing leaks past the name.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const EMBEDDINGS = '\u202a\u202b\u202d\u202e'; // LRE RLE LRO RLO: closed by PDF
const ISOLATES = '\u2066\u2067\u2068'; // LRI RLI FSI: closed by PDI
const PDF = '\u202c';
const PDI = '\u2069';
const FSI = '\u2068';
// Bidirectional controls, and the letters of the right-to-left scripts (Hebrew to NKo, Syriac, Thaana, their presentation forms).
const NEEDS_ISOLATION = /[\u061c\u200f\u202a-\u202e\u2066-\u2069\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|\ud802[\udc00-\udfff]|\ud83a/;

export function escapeHtml(text: string): string {
  return isolateBidi(text.replace(/[&<>"']/g, (c) => ENTITIES[c]));
}

/** `text` (already escaped) as a bidi isolate when it holds right-to-left letters or bidi controls; as it is otherwise. */
export function isolateBidi(text: string): string {
  return NEEDS_ISOLATION.test(text) ? isolated(text) : text;
}

/** `text` as one bidi isolate: its opening controls closed inside it, its unmatched closing ones dropped. */
function isolated(text: string): string {
  const open: string[] = [];
  let out = '';
  for (const c of text) {
    if (EMBEDDINGS.includes(c) || ISOLATES.includes(c)) {
      open.push(c);
    } else if (c === PDF || c === PDI) {
      // A PDI closes the embeddings opened since its isolate; a PDF closes only an embedding on top.
      const match = c === PDF ? (EMBEDDINGS.includes(open.at(-1) ?? '') ? open.length - 1 : -1) : lastIsolate(open);
      if (match < 0) continue;
      open.length = match;
    }
    out += c;
  }
  for (const c of open.reverse()) out += EMBEDDINGS.includes(c) ? PDF : PDI;
  return `${FSI}${out}${PDI}`;
}

function lastIsolate(open: readonly string[]): number {
  for (let i = open.length - 1; i >= 0; i--) if (ISOLATES.includes(open[i])) return i;
  return -1;
}
