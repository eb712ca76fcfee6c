// The page's study-B part: per model, for FT and FTICL, the training task x test set matrix of
// differences from the base model as a heatmap (in-domain cells outlined), then the full matrix as
// a table (base scores, then each method's score and delta, cells tinted by role).
import { heatmapSpec, renderSvg, type HeatCell } from './charts.ts';
import { esc, figure, fixed, signed } from './html.ts';
import { rowLabel, TEST_SET_ROLES, type StudyB, type StudyBCell } from './study-b.ts';

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

function matrixTable(cells: readonly StudyBCell[], cols: string[]): string {
  // the test set over its task (not "xsum (summarisation)" on one line), so seven sets fit a narrow page
  const task = (t: string) => cells.find((c) => c.testSet === t)?.testSetTask;
  const head = '<tr><th>method</th><th>trained on</th>' +
    `${cols.map((t) => `<th>${esc(t)}${task(t) ? `<br><span class="small">${esc(task(t)!)}</span>` : ''}</th>`).join('')}</tr>`;
  const metricRow = '<tr><th></th><th class="small">metric</th>' +
    `${cols.map((t) => `<th class="small">${esc(cells.find((c) => c.testSet === t)?.metric ?? '')}</th>`).join('')}</tr>`;
  const rows: string[] = [];
  for (const method of ['base', 'ft', 'fticl'] as const) {
    const mcells = cells.filter((c) => c.method === method);
    for (const label of [...new Set(mcells.map(rowLabel))]) {
      const tds = cols.map((t) => {
        const c = mcells.find((x) => rowLabel(x) === label && x.testSet === t);
        if (!c) return '<td></td>';
        // the difference under the score, so seven test sets fit a narrow page
        const text = method === 'base' ? esc(fixed(c.score, 3)) : `${esc(fixed(c.score, 3))}<br>(${esc(signed(c.delta, 3))})`;
        const title = [c.role ?? '', c.deltaNote ?? '', `runs: ${c.runs.join(' ')}`].filter(Boolean).join(' · ');
        return `<td class="num${c.role ? ` role-${c.role}` : ''}" title="${esc(title)}">${text}</td>`;
      });
      rows.push(`<tr><td class="name">${esc(METHOD_NAMES[method])}</td><td ` +
        `class="name">${esc(method === 'base' ? label.replace(/^base ?/, '') : label)}</td>${tds.join('')}</tr>`);
    }
  }
  return `<div class="table-wrap"><table class="study-b">\n<thead>${head}${metricRow}</thead>\n` +
    `<tbody>\n${rows.join('\n')}\n</tbody>\n</table></div>` +
    '<p class="small">Cells: score (difference from base). Tint: <span class="role-in-domain">in-domain</span> · <span ' +
    'class="role-cross-domain">cross-domain</span> · <span class="role-cross-task">cross-task</span>.</p>';
}

function niceExtent(x: number): number {
  for (const step of [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1]) if (x <= step) return step;
  return Math.ceil(x);
}
