// The report at a sweep's size: a page that grew with runs x sets x checkpoints (one
// marker per checkpoint per set in every run's figures, one page string) reached 260 MiB and then a
// RangeError. Here a moderately large study (50 runs x 12 OOD sets x 120 checkpoints): the page stays
// small (lines, not a mark per score; runs' figures drawn until a budget and the rest listed as not
// drawn, the note saying what is left out and how to draw it), the forest draws each pair's spread of
// runs, and the page and the large tables are written in chunks, never as one string.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs, { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ResultStore, type StoredScore } from '../../src/store/result-store.ts';
import { renderReport, writeReport } from '../../src/report/index.ts';
import { mulberry32 } from '../../src/seeded-random.ts';
import { HEATMAP_LABELLED, heatmapLabelled, heatmapSpec, MARKED_SCORES } from '../../src/report/charts.ts';
import { FOREST_POINTS } from '../../src/report/forest-chart.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { STUDY_A, studyAStore, tempDir } from './helpers.ts';

const SWEEP = { runs: 50, sets: 12, checkpoints: 120 };
const CHEAP = { inference: 'naive', calibration: 0, robustness: false } as const;

/** A store of `runs` runs scored at `checkpoints` steps on an in-domain set and `sets` OOD sets (a shared cue, noise), with a training log. */
function sweepStore(dir: string, o = SWEEP): string {
  const path = join(dir, 'sweep.sqlite');
  const store = ResultStore.open(path);
  const rng = mulberry32(3);
  const normal = () => Math.sqrt(-2 * Math.log(Math.max(rng(), 1e-12))) * Math.cos(2 * Math.PI * rng());
  const sets = Array.from({ length: o.sets }, (_, s) => ({
    id: `ood-${String(s).padStart(2, '0')}`, cue: [0.1, -0.1, 0][s % 3], load: 0.4 + 0.2 * rng(),
  }));
  for (let r = 0; r < o.runs; r++) {
    const run = `run-${String(r).padStart(2, '0')}`;
    store.upsertRun({ id: run, model: 'm', method: 'full', seed: r, attributes: { control_test_set: 'in-domain' } });
    const scores: StoredScore[] = [];
    let cue = 0, drift = 0;
    for (let c = 0; c < o.checkpoints; c++) {
      const id = 0.5 + 0.4 * (1 - Math.exp(-4 * c / o.checkpoints));
      drift = 0.8 * drift + 0.3 * normal();
      cue += drift;
      scores.push({ run, step: (c + 1) * 10, testSet: 'in-domain', metric: 'accuracy', value: id + 0.01 * normal(), n: 1000 });
      for (const s of sets) {
        const value = 0.3 + s.load * id + s.cue * Math.tanh(cue / 3) + 0.01 * normal();
        scores.push({ run, step: (c + 1) * 10, testSet: s.id, metric: 'accuracy', value, n: 1000 });
      }
    }
    store.writeScores(scores);
    store.writeTrainingLog(scores.filter((s) => s.testSet === 'in-domain').map((s) => ({ run, step: s.step, loss: 1.5 - s.value })));
  }
  store.close();
  return path;
}

/** Each figure of a kind in the page, as its HTML. */
function figuresOf(html: string, kind: string): string[] {
  return [...html.matchAll(new RegExp(`<figure class="chart" data-chart="${kind}"[\\s\\S]*?</figure>`, 'g'))].map((m) => m[0]);
}

const count = (text: string, what: RegExp) => text.match(what)?.length ?? 0;

test('a sweep\'s report: lines instead of a mark per checkpoint, run figures until the budget, every run not drawn named and counted, ' +
  'the forest as spreads; the page and tables written in chunks', { timeout: 300_000 }, async (t) => {
  const dir = tempDir(t);
  const storePath = sweepStore(dir);
  const budget = 1_000_000;
  const writes: number[] = [];
  const writeSync = fs.writeSync;
  // every chunk the report folder writes, by size (the page in parts, the JSON tables a thousand rows at a time)
  mock.method(fs, 'writeSync', (...args: Parameters<typeof fs.writeSync>) => {
    const n = (writeSync as (...a: unknown[]) => number)(...args);
    writes.push(n);
    return n;
  });
  let written;
  try {
    written = await writeReport(join(dir, 'report'), { storePath, analysis: CHEAP, runFiguresBudget: budget });
  } finally {
    mock.restoreAll();
  }
  const html = readFileSync(written.html, 'utf8');
  const bytes = statSync(written.html).size;

  // the page: the runs' figures within about the budget, plus the study's figures and tables and a table of every run
  assert.ok(bytes < 2_500_000, `the page is ${bytes} bytes`);
  const articles = count(html, /<article class="run"/g);
  assert.ok(articles >= 2 && articles < SWEEP.runs, `${articles} runs drawn`);
  const note = /<p class="note" id="runs-not-drawn">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '';
  assert.match(note, new RegExp(`Not drawn: the figures of ${SWEEP.runs - articles} of the ${SWEEP.runs} runs`));
  assert.match(note, new RegExp(`run-${String(articles).padStart(2, '0')}`), 'the first run not drawn is named');
  assert.match(note, /scores\.csv/);
  assert.match(note, /--run-figures all/, 'the note says how to draw them');
  const overview = /<h3 id="runs-overview">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
  assert.equal(count(overview, /<tr>/g) - 1, SWEEP.runs, 'a row for every run in the table of runs');
  assert.equal(count(overview, />not drawn</g), SWEEP.runs - articles);
  assert.equal(count(overview, />drawn<\/a>/g), articles, 'a drawn run links to its figures');

  // a run's curves: one path per set, no marker per checkpoint (there are more scores than MARKED_SCORES), and the caption says so
  assert.ok((SWEEP.sets + 1) * SWEEP.checkpoints > MARKED_SCORES);
  const curves = figuresOf(html, 'curves');
  assert.equal(curves.length, articles);
  for (const c of curves) {
    assert.equal(count(c, /aria-roledescription="point"/g), 0, 'no marker per checkpoint');
    assert.equal(count(c, /aria-roledescription="line mark"/g), SWEEP.sets + 1, 'a line per test set');
    assert.match(c, /lines without a marker per checkpoint \(1560 scores; markers are drawn up to 1200\)/);
  }
  for (const c of figuresOf(html, 'id-vs-ood')) {
    assert.equal(count(c, /aria-roledescription="point"/g), 0, 'the ID-against-OOD figure joins each set\'s checkpoints in a line');
    assert.equal(count(c, /aria-roledescription="line mark"/g), 2 * SWEEP.sets, 'each set\'s path and its least-squares line');
    assert.match(c, /checkpoints joined in step order/);
  }
  assert.equal(figuresOf(html, 'residuals').length, articles, 'the residual scatter of the runs drawn only');
  // a run's 66 pairs: its table folded under the heatmap
  assert.equal(count(html, /<details class="pairs">/g), articles);

  // the forest: 50 runs x 66 pairs is past FOREST_POINTS, so each row is its runs' spread, not a point per run
  assert.ok(SWEEP.runs * (SWEEP.sets * (SWEEP.sets - 1)) / 2 > FOREST_POINTS);
  const [forest] = figuresOf(html, 'forest');
  assert.equal(count(forest, /aria-roledescription="point"/g), 0);
  assert.match(forest, /the spread of the runs pooled \(not a point per run: 3300 run results/);

  // written in parts: the file is the parts in order, and no write was the whole page
  assert.ok(written.report.parts.length > articles + 3, `${written.report.parts.length} parts`);
  assert.equal(written.report.parts.join(''), html);
  assert.ok(writes.length > written.report.parts.length, `${writes.length} writes`);
  assert.ok(Math.max(...writes) < bytes / 2, `the largest write is ${Math.max(...writes)} bytes of a ${bytes}-byte page`);
  // the JSON tables, written a thousand rows at a time, are what JSON.stringify writes
  for (const name of ['scores', 'partial_correlations', 'runs']) {
    assert.equal(readFileSync(join(written.dir, `${name}.json`), 'utf8'), JSON.stringify(written.report.tables[name].json, null, 2) + '\n', name);
  }
});

test('a small study is drawn whole, a marker on every checkpoint; --run-figures draws the first n and says so', { timeout: 120_000 }, async (t) => {
  const storePath = studyAStore(t);
  const whole = await renderReport({ storePath, analysis: CHEAP });
  assert.equal(count(whole.html, /<article class="run"/g), STUDY_A.runs);
  assert.doesNotMatch(whole.html, /runs-not-drawn|runs-overview/);
  for (const c of figuresOf(whole.html, 'curves')) {
    assert.equal(count(c, /aria-roledescription="point"/g), 6 * STUDY_A.steps, 'a marker per checkpoint per set');
  }
  for (const c of figuresOf(whole.html, 'id-vs-ood')) assert.equal(count(c, /aria-roledescription="point"/g), 5 * STUDY_A.steps);
  assert.equal(whole.parts.join(''), whole.html);

  const one = await renderReport({ storePath, analysis: CHEAP, runFigures: 1 });
  assert.equal(count(one.html, /<article class="run"/g), 1);
  assert.match(one.html, /Not drawn: the figures of 2 of the 3 runs<\/b> \(model-b, model-c\)/);
  assert.match(one.html, /the first 1 in run order \(<code>--run-figures 1<\/code>\)/);
  assert.equal(figuresOf(one.html, 'residuals').length, 1);
  assert.match(one.html, /not for the other 2/, 'the residual section says whose scatter it leaves out');
  const none = await renderReport({ storePath, analysis: CHEAP, runFigures: 0 });
  assert.equal(count(none.html, /<article class="run"/g), 0);
  assert.match(none.html, /Not drawn: the figures of 3 of the 3 runs/);
  assert.equal(count(none.html, /data-chart="residuals"/g), 0);

  const dir = tempDir(t);
  const bad = await genstudy(['report', storePath, '--out', join(dir, 'r'), '--run-figures', 'some']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--run-figures some: expected all or a whole number of runs/);
  const cli = await genstudy(['report', storePath, '--out', join(dir, 'r'), '--run-figures', '2',
    '--inference', 'naive', '--calibration', '0', '--no-robustness']);
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(count(readFileSync(join(dir, 'r', 'report.html'), 'utf8'), /<article class="run"/g), 2);
});

test('a matrix of more than HEATMAP_LABELLED sets writes no label per cell and shrinks its cells to fit the page', () => {
  const sets = Array.from({ length: 50 }, (_, i) => `s${i}`);
  const cells = sets.flatMap((row) => sets.map((col) => ({ row, col, value: row === col ? null : 0.1, label: '+0.10', outlined: false })));
  type Spec = { width: number; layer: { mark: { type: string } }[] };
  const marks = (spec: Spec) => spec.layer.map((l) => l.mark.type);
  assert.ok(heatmapLabelled(HEATMAP_LABELLED) && !heatmapLabelled(HEATMAP_LABELLED + 1));
  const labelled = heatmapSpec(cells, { rows: sets, cols: sets, extent: 1, legendTitle: 'r' }) as unknown as Spec;
  const bare = heatmapSpec(cells, { rows: sets, cols: sets, extent: 1, legendTitle: 'r', labels: false }) as unknown as Spec;
  assert.ok(marks(labelled).includes('text'));
  assert.ok(!marks(bare).includes('text'), 'no text mark');
  assert.ok(bare.width <= 900 && labelled.width >= 2000, `${bare.width} px against ${labelled.width}`);
});
