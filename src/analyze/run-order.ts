// The one order runs are listed in, everywhere (the series, the analysis's tables, the reading line,
// the report): numbers in names compared as numbers, so checkpoint-2 comes before checkpoint-10, and a
// model size with a unit (70m, 1.4b: k, m, b, t, as Pythia, OPT and Llama name theirs) compared as
// the count it stands for, so pythia-410m comes before pythia-1.4b. Code-unit order put run-10
// before run-2 and 1.4b before 410m.

const UNITS: Record<string, number> = { k: 1e3, m: 1e6, b: 1e9, t: 1e12 };
/** A size (digits, an optional fraction, a unit not followed by a letter or digit), else a run of digits, else text. */
const TOKEN = /(\d+(?:\.\d+)?)([kmbt])(?![a-z0-9])|(\d+)|(\D+|\d)/gi;

type Token = { number: number; text: string } | { number?: undefined; text: string };

function tokens(name: string): Token[] {
  const out: Token[] = [];
  for (const m of name.matchAll(TOKEN)) {
    if (m[1] !== undefined) out.push({ number: Number(m[1]) * UNITS[m[2].toLowerCase()], text: m[0] });
    else if (m[3] !== undefined) out.push({ number: Number(m[3]), text: m[0] });
    else out.push({ text: m[0] });
  }
  return out;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Natural order of run names; names equal as numbers ("run-07", "run-7") fall back to code-unit order, so the order is total. */
export function compareRunNames(a: string, b: string): number {
  if (a === b) return 0;
  const x = tokens(a), y = tokens(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i], q = y[i];
    const c = p.number !== undefined && q.number !== undefined ? (p.number < q.number ? -1 : p.number > q.number ? 1 : 0)
      : byCodeUnit(p.text, q.text);
    if (c !== 0) return c;
  }
  return x.length - y.length || byCodeUnit(a, b);
}

/** The distinct names, in run order. */
export function sortedRunNames(names: Iterable<string>): string[] {
  return [...new Set(names)].sort(compareRunNames);
}
