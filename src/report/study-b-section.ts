// The page's study-B part: per model, for FT and FTICL, the training task x test set matrix of
// differences from the base model as a heatmap (in-domain cells outlined), then the full matrix as
// a table (base scores, then each method's score and delta, cells tinted by role; test sets down the
// page when there are more of them than settings).
import { heatmapSpec, renderSvg, type HeatCell } from './charts.ts';
import { esc, figure, fixed, signed } from './html.ts';
import { rowLabel, TEST_SET_ROLES, type StudyB, type StudyBCell } from './study-b.ts';
import { gridOrientation, gridTables, type Grid } from './grid-table.ts';

const METHOD_NAMES: Record<string, string> = { base: 'base model (k-shot ICL)', ft: 'FT', fticl: 'FTICL' };

/** One sentence per method: mean difference from the base model by test-set role. */
export function studyBHeadline(b: StudyB): string {
  const parts: string[] = [];
  for (const method of ['ft', 'fticl'] as const) {
    const cells = b.cells.filter((c) => c.method === method && c.delta !== null);
    if (!cells.length) continue;
    const byRole = TEST_SET_ROLES.map((role) => {
      const ds = cells.filter((c) => c.role === role).map((c) => c.delta!);
      return ds.length ? `${role} ${signed(ds.reduce((s, x) => s + x, 0) / ds.length, 3)} (${ds.length})` : null;
    }).filter((x) => x !== null);
    parts.push(`${METHOD_NAMES[method]} vs base, mean difference by role (cells): ${byRole.join(', ') || 'no roles recorded'}`);
  }
  return parts.length ? parts.join('; ') + '.' : 'No fine-tuned run has a base run to compare with.';
}

export async function studyBSection(b: StudyB): Promise<string> {
  const out: string[] = ['<section id="study-b">', '<h2>Study B: training task × test set × method</h2>'];
  out.push(`<p class="headline" id="study-b-answer">${esc(studyBHeadline(b))}</p>`);
  out.push('<p class="note">Each cell: the final checkpoint\'s score on the test set minus the base model\'s ' +
    '(same model, same number of demonstrations), ' +
    'averaged over runs of the same setting. Rows: the task fine-tuned on; columns: test sets with their task. In-domain cells are outlined; ' +
    'a column whose task differs from the row\'s is cross-task, one of the same task cross-domain.</p>');
  if (b.skipped.length) {
    out.push('<p class="note">Runs left out:</p><ul class="small">' +
      b.skipped.map((s) => `<li>${esc(s.run)}: ${esc(s.reason)}</li>`).join('') + '</ul>');
  }
  const withDelta = b.cells.filter((c) => c.delta !== null);
  const extent = niceExtent(Math.max(0.01, ...withDelta.map((c) => Math.abs(c.delta!))));
  for (const model of b.models) {
    const modelCells = b.cells.filter((c) => c.model === model);
    const cols = b.testSets.filter((t) => modelCells.some((c) => c.testSet === t));
    const colLabel = new Map(cols.map((t) => {
      const task = modelCells.find((c) => c.testSet === t)?.testSetTask;
      return [t, task ? `${t} (${task})` : t];
    }));
    out.push(`<h3>Model ${esc(model)}</h3>`);
    const charts: string[] = [];
    for (const method of ['ft', 'fticl'] as const) {
      const cells = modelCells.filter((c) => c.method === method);
      if (!cells.length) continue;
      const rows = [...new Set(cells.map(rowLabel))];
      const heat: HeatCell[] = cells.map((c) => ({
        row: rowLabel(c), col: colLabel.get(c.testSet)!, value: c.delta,
        label: c.delta === null ? fixed(c.score, 2) : signed(c.delta, 2), outlined: c.role === 'in-domain',
      }));
      const svg = await renderSvg(heatmapSpec(heat, {
        rows, cols: cols.map((t) => colLabel.get(t)!), extent, legendTitle: 'Δ vs base', rowTitle: 'trained on', colTitle: 'test set',
      }), `${model}: ${METHOD_NAMES[method]} minus base`);
      charts.push(figure(svg,
        `${model}, ${METHOD_NAMES[method]}: score minus the base model's; outlined: in-domain; grey: no base score (the score is shown).`,
        `study-b-${method}`));
    }
    if (charts.length) out.push(`<div class="charts">${charts.join('\n')}</div>`);
    out.push(matrixTable(modelCells, cols));
  }
  out.push('</section>');
  return out.join('\n');
}

/**
 * The model's full matrix: each (method, training setting) against each test set, a cell its score
 * and, for FT and FTICL, its difference from base, tinted by role. The longer of the two lists runs
 * down the page and no table has more columns than an 800 px page holds (grid-table.ts), so 18
 * test sets are 18 rows, not a table three pages wide.
 */
function matrixTable(cells: readonly StudyBCell[], cols: string[]): string {
  const settings = (['base', 'ft', 'fticl'] as const).flatMap((method) =>
    [...new Set(cells.filter((c) => c.method === method).map(rowLabel))].map((label) => ({
      method, label,
      // a base run's label is only its shots ("k=5"), if any
      setting: method === 'base' ? label.replace(/^base ?/, '') : label,
    })));
  const first = (t: string) => cells.find((c) => c.testSet === t);
  const setName = (t: string) => `<bdi class="nm">${esc(t)}</bdi>`;
  const setAbout = (t: string) => esc([first(t)?.testSetTask, first(t)?.metric].filter(Boolean).join(' · '));
  const cell = (s: (typeof settings)[number], t: string) => {
    const c = cells.find((x) => x.method === s.method && rowLabel(x) === s.label && x.testSet === t);
    if (!c) return '<td></td>';
    // the difference under the score, so a cell stays narrow
    const text = s.method === 'base' ? esc(fixed(c.score, 3)) : `${esc(fixed(c.score, 3))}<br>(${esc(signed(c.delta, 3))})`;
    const title = [c.role ?? '', c.deltaNote ?? '', `runs: ${c.runs.join(' ')}`].filter(Boolean).join(' · ');
    return `<td class="num${c.role ? ` role-${c.role}` : ''}" title="${esc(title)}">${text}</td>`;
  };
  const grid: Grid = gridOrientation(settings.length, cols.length) === 'transposed'
    ? {
      rowTitles: ['test set', 'task · metric'],
      rows: cols.map((t) => [setName(t), `<span class="small">${setAbout(t)}</span>`]),
      columns: settings.map((s) => `${esc(METHOD_NAMES[s.method])}${s.setting ? `<br><span class="small">${esc(s.setting)}</span>` : ''}`),
      cell: (r, c) => cell(settings[c], cols[r]),
    }
    : {
      rowTitles: ['method', 'trained on'],
      rows: settings.map((s) => [esc(METHOD_NAMES[s.method]), esc(s.setting)]),
      columns: cols.map((t) => `${setName(t)}<br><span class="small">${setAbout(t)}</span>`),
      cell: (r, c) => cell(settings[r], cols[c]),
    };
  return gridTables(grid, { className: 'study-b' }) +
    '<p class="small">Cells: score (difference from base). Tint: <span class="role-in-domain">in-domain</span> · <span ' +
    'class="role-cross-domain">cross-domain</span> · <span class="role-cross-task">cross-task</span>.</p>';
}

function niceExtent(x: number): number {
  for (const step of [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1]) if (x <= step) return step;
  return Math.ceil(x);
}
