/**
 * The Porter stemmer exactly as NLTK 3.8's `PorterStemmer()` runs it in its default NLTK_EXTENSIONS
 * mode, which is what rouge-score uses when `use_stemmer=True`.
 *
 * Written by hand because no npm stemmer implements NLTK's mode: the npm packages (`stemmer`,
 * `natural`'s PorterStemmer) follow Martin Porter's own version and disagree with NLTK on about 2% of
 * the words of the ROUGE golden pairs (aces, aged, airways, alley, ...): NLTK adds a pool of
 * irregular forms, 'ies'/'ied' on four-letter words, a stricter 'y' -> 'i', 'alli' re-run through
 * step 2, 'fulli' and 'logi' rules and a two-letter *o condition. Each step below keeps NLTK's rule
 * order and its first-matching-suffix-decides behaviour, since that order changes results.
 *
 * Lengths and indices are UTF-16 code units where NLTK counts code points; they differ only for
 * characters outside the Basic Multilingual Plane, which never reach the stemmer from ROUGE's
 * tokeniser (it keeps [a-z0-9] only).
 */

/** NLTK's table of irregular forms: the surface form maps straight to its stem. */
const IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    sky: ['sky', 'skies'],
    die: ['dying'],
    lie: ['lying'],
    tie: ['tying'],
    news: ['news'],
    inning: ['innings', 'inning'],
    outing: ['outings', 'outing'],
    canning: ['cannings', 'canning'],
    howe: ['howe'],
    proceed: ['proceed'],
    exceed: ['exceed'],
    succeed: ['succeed'],
  }).flatMap(([stem, forms]) => forms.map((form): [string, string] => [form, stem])),
);

function isVowelLetter(ch: string): boolean {
  return ch === 'a' || ch === 'e' || ch === 'i' || ch === 'o' || ch === 'u';
}

/** Porter's consonant: not a, e, i, o, u, and a 'y' only when it follows a vowel or starts the word. */
function isConsonant(word: string, i: number): boolean {
  const ch = word[i];
  if (isVowelLetter(ch)) return false;
  if (ch === 'y') return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** m in [C](VC){m}[V]: the number of vowel-to-consonant transitions. */
function measure(stem: string): number {
  let m = 0;
  let previousVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const consonant = isConsonant(stem, i);
    if (consonant && previousVowel) m++;
    previousVowel = !consonant;
  }
  return m;
}

function hasPositiveMeasure(stem: string): boolean {
  return measure(stem) > 0;
}

function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** Condition *d: ends with a doubled consonant. */
function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** Condition *o (cvc, last not w/x/y), plus NLTK's extension: a two-letter word that is vc. */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (
    n >= 3 &&
    isConsonant(word, n - 3) &&
    !isConsonant(word, n - 2) &&
    isConsonant(word, n - 1) &&
    word[n - 1] !== 'w' &&
    word[n - 1] !== 'x' &&
    word[n - 1] !== 'y'
  ) {
    return true;
  }
  return n === 2 && !isConsonant(word, 0) && isConsonant(word, 1);
}

/** A suffix rule: replace `suffix` by `replacement` when `condition(stemWithoutSuffix)` holds. */
interface SuffixRule {
  suffix: string;
  replacement: string;
  condition?: (stem: string) => boolean;
}

/**
 * The first rule whose suffix matches decides: its replacement applies if its condition holds,
 * otherwise the word is returned unchanged and later rules are not tried.
 */
function applyFirstMatchingRule(word: string, rules: readonly SuffixRule[]): string {
  for (const { suffix, replacement, condition } of rules) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, word.length - suffix.length);
      return condition === undefined || condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

function step1a(word: string): string {
  // NLTK: 'dies' -> 'die' (four letters) while 'flies' -> 'fli'.
  if (word.length === 4 && word.endsWith('ies')) return word.slice(0, -3) + 'ie';
  return applyFirstMatchingRule(word, [
    { suffix: 'sses', replacement: 'ss' },
    { suffix: 'ies', replacement: 'i' },
    { suffix: 'ss', replacement: 'ss' },
    { suffix: 's', replacement: '' },
  ]);
}

function step1b(word: string): string {
  // NLTK: 'died' -> 'die' (four letters) while 'spied' -> 'spi'; no further step 1b rule applies.
  if (word.endsWith('ied')) return word.slice(0, -3) + (word.length === 4 ? 'ie' : 'i');
  if (word.endsWith('eed')) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? stem + 'ee' : word;
  }
  let stem: string | undefined;
  for (const suffix of ['ed', 'ing']) {
    if (word.endsWith(suffix)) {
      const candidate = word.slice(0, word.length - suffix.length);
      if (containsVowel(candidate)) {
        stem = candidate;
        break;
      }
    }
  }
  if (stem === undefined) return word;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e';
  if (endsDoubleConsonant(stem)) {
    const last = stem[stem.length - 1];
    return last === 'l' || last === 's' || last === 'z' ? stem : stem.slice(0, -1);
  }
  return measure(stem) === 1 && endsCvc(stem) ? stem + 'e' : stem;
}

function step1c(word: string): string {
  // NLTK: y -> i only after a consonant that is not the word's only letter ('happy', not 'enjoy', 'by').
  if (!word.endsWith('y')) return word;
  const stem = word.slice(0, -1);
  return stem.length > 1 && isConsonant(stem, stem.length - 1) ? stem + 'i' : word;
}

const STEP2_RULES: readonly SuffixRule[] = [
  { suffix: 'ational', replacement: 'ate', condition: hasPositiveMeasure },
  { suffix: 'tional', replacement: 'tion', condition: hasPositiveMeasure },
  { suffix: 'enci', replacement: 'ence', condition: hasPositiveMeasure },
  { suffix: 'anci', replacement: 'ance', condition: hasPositiveMeasure },
  { suffix: 'izer', replacement: 'ize', condition: hasPositiveMeasure },
  { suffix: 'bli', replacement: 'ble', condition: hasPositiveMeasure },
  { suffix: 'alli', replacement: 'al', condition: hasPositiveMeasure },
  { suffix: 'entli', replacement: 'ent', condition: hasPositiveMeasure },
  { suffix: 'eli', replacement: 'e', condition: hasPositiveMeasure },
  { suffix: 'ousli', replacement: 'ous', condition: hasPositiveMeasure },
  { suffix: 'ization', replacement: 'ize', condition: hasPositiveMeasure },
  { suffix: 'ation', replacement: 'ate', condition: hasPositiveMeasure },
  { suffix: 'ator', replacement: 'ate', condition: hasPositiveMeasure },
  { suffix: 'alism', replacement: 'al', condition: hasPositiveMeasure },
  { suffix: 'iveness', replacement: 'ive', condition: hasPositiveMeasure },
  { suffix: 'fulness', replacement: 'ful', condition: hasPositiveMeasure },
  { suffix: 'ousness', replacement: 'ous', condition: hasPositiveMeasure },
  { suffix: 'aliti', replacement: 'al', condition: hasPositiveMeasure },
  { suffix: 'iviti', replacement: 'ive', condition: hasPositiveMeasure },
  { suffix: 'biliti', replacement: 'ble', condition: hasPositiveMeasure },
  { suffix: 'fulli', replacement: 'ful', condition: hasPositiveMeasure },
  // NLTK keeps the 'l' with the stem when measuring, so 'geologi' and 'theologi' reduce too.
  { suffix: 'logi', replacement: 'log', condition: (stem) => hasPositiveMeasure(stem + 'l') },
];

function step2(word: string): string {
  // NLTK tries 'alli' -> 'al' first and, when it applies, runs step 2 again on the result.
  if (word.endsWith('alli') && hasPositiveMeasure(word.slice(0, -4))) return step2(word.slice(0, -4) + 'al');
  return applyFirstMatchingRule(word, STEP2_RULES);
}

const STEP3_RULES: readonly SuffixRule[] = [
  { suffix: 'icate', replacement: 'ic', condition: hasPositiveMeasure },
  { suffix: 'ative', replacement: '', condition: hasPositiveMeasure },
  { suffix: 'alize', replacement: 'al', condition: hasPositiveMeasure },
  { suffix: 'iciti', replacement: 'ic', condition: hasPositiveMeasure },
  { suffix: 'ical', replacement: 'ic', condition: hasPositiveMeasure },
  { suffix: 'ful', replacement: '', condition: hasPositiveMeasure },
  { suffix: 'ness', replacement: '', condition: hasPositiveMeasure },
];

const measureAboveOne = (stem: string): boolean => measure(stem) > 1;

const STEP4_RULES: readonly SuffixRule[] = [
  ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent'].map(
    (suffix): SuffixRule => ({ suffix, replacement: '', condition: measureAboveOne }),
  ),
  {
    suffix: 'ion',
    replacement: '',
    condition: (stem) => measure(stem) > 1 && (stem.endsWith('s') || stem.endsWith('t')),
  },
  ...['ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map(
    (suffix): SuffixRule => ({ suffix, replacement: '', condition: measureAboveOne }),
  ),
];

function step5a(word: string): string {
  // Both conditions are tried on the same suffix here, unlike the first-match rule lists.
  if (!word.endsWith('e')) return word;
  const stem = word.slice(0, -1);
  const m = measure(stem);
  if (m > 1) return stem;
  if (m === 1 && !endsCvc(stem)) return stem;
  return word;
}

function step5b(word: string): string {
  if (word.endsWith('ll') && measure(word.slice(0, -1)) > 1) return word.slice(0, -1);
  return word;
}

/** Stems one word as NLTK 3.8's `PorterStemmer().stem(word)` does (lower-cases first). */
export function porterStem(word: string): string {
  const lower = word.toLowerCase();
  // NLTK looks the pool up with the word as given and the short-word guard uses its length too.
  const irregular = IRREGULAR_FORMS.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length <= 2) return lower;
  let stem = step1a(lower);
  stem = step1b(stem);
  stem = step1c(stem);
  stem = step2(stem);
  stem = applyFirstMatchingRule(stem, STEP3_RULES);
  stem = applyFirstMatchingRule(stem, STEP4_RULES);
  stem = step5a(stem);
  return step5b(stem);
}

/**
 * A Porter stemmer that remembers the stems it has computed; tokens repeat a lot across ROUGE pairs,
 * so the cache pays for itself quickly. The cache is unbounded: make one per corpus.
 */
export class CachedPorterStemmer {
  private readonly cache = new Map<string, string>();

  stem(word: string): string {
    let stem = this.cache.get(word);
    if (stem === undefined) {
      stem = porterStem(word);
      this.cache.set(word, stem);
    }
    return stem;
  }
}
