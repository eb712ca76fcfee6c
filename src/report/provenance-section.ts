// The page's provenance part: what the results came from (the study file, the store, the
// versions, seeds and content hashes recorded with every run and test set) and the list of
// tables written beside the page.
import { createHash } from 'node:crypto';
import { esc, htmlTable } from './html.ts';
import type { ReportData } from './report-data.ts';
import type { Table } from './table.ts';

export interface Provenance {
  studyFile: { path: string; text: string; sha256: string } | null;
  genstudyVersion: string;
  libraries: Record<string, string>;
  node: string;
  generatedAt: string;
}

export function provenanceSection(data: ReportData, prov: Provenance, tables: readonly Table[]): string {
  const out: string[] = ['<section id="provenance">', '<h2>Provenance</h2>'];
  out.push(`<p>Store <code>${esc(data.storePath)}</code> (schema version ${data.schemaVersion})` +
    `${data.promptVariant ? `, prompt variant <code>${esc(data.promptVariant)}</code>` : ''}; ` +
    `report made ${esc(prov.generatedAt)} by genstudy ${esc(prov.genstudyVersion)} on Node ${esc(prov.node)} ` +
    `(${Object.entries(prov.libraries).map(([k, v]) => `${esc(k)} ${esc(v)}`).join(', ')}).</p>`);

  out.push('<h3>Study file</h3>');
  const recorded = [...new Set(data.runs.map((r) => r.studyFile).filter((x): x is string => !!x))];
  // runs.study_file holds a path or the file's text; text is shown as a block.
  const paths = recorded.filter((f) => !f.includes('\n'));
  if (paths.length) out.push(`<p class="small">Recorded with the runs: ${paths.map((f) => `<code>${esc(f)}</code>`).join(', ')}</p>`);
  for (const text of recorded.filter((f) => f.includes('\n'))) {
    out.push(`<p class="small">Recorded with the runs (sha256 <code>${esc(sha256(text))}</code>):</p><pre>${esc(text)}</pre>`);
  }
  if (prov.studyFile) {
    out.push(`<p class="small"><code>${esc(prov.studyFile.path)}</code>, sha256 <code>${esc(prov.studyFile.sha256)}</code></p>`);
    out.push(`<pre id="study-file">${esc(prov.studyFile.text)}</pre>`);
  } else if (!recorded.length) {
    out.push('<p class="note">No study file given or recorded.</p>');
  }

  out.push('<h3>Versions recorded with the runs</h3>');
  out.push(versionsTable(data));
  out.push('<h3>Runs: seeds and settings</h3>');
  const runs = tables.find((t) => t.name === 'runs')!;
  // The folder only when a run records one, headed by short words: an empty column, or a header
  // word as wide as "checkpoints", pushed this table past an 800 px page.
  const folders = data.runs.some((r) => r.checkpointFolder) ? ['checkpoint_folder'] : [];
  out.push(htmlTable(runs, {
    columns: ['run', 'model', 'method', 'training_set', 'seed', 'checkpoints', 'checkpoints_hashed', ...folders, 'attributes'],
    headers: { training_set: 'training set', checkpoint_folder: 'from folder', checkpoints_hashed: 'with content hash', attributes: 'settings' },
    format: { attributes: (v) => settingsText(String(v ?? '{}')) },
    wrap: ['attributes'], code: ['checkpoint_folder'], names: ['run', 'model', 'training_set'],
  }));
  out.push(...supersededList(data));
  out.push('<h3>Test sets: content hashes</h3>');
  out.push(htmlTable(tables.find((t) => t.name === 'test_sets')!,
    { columns: ['test_set', 'content_hash', 'n', 'task', 'domain'], code: ['content_hash'], names: ['test_set'] }));

  out.push('<h3>Tables</h3><p class="small">Written beside this page as CSV and JSON (full precision).</p><ul class="small">');
  for (const t of tables) {
    out.push(`<li><b>${esc(t.title)}</b> (${t.rows.length} rows): <a href="${esc(t.name)}.csv">${esc(t.name)}.csv</a>, <a ` +
      `href="${esc(t.name)}.json">${esc(t.name)}.json</a>. ${esc(t.description)}</li>`);
  }
  out.push('</ul>', '</section>');
  return out.join('\n');
}

/**
 * The scores re-evaluations replaced, per run and cause (a checkpoint folder replaced by a restarted
 * trainer, a test set whose content changed): the series shown mixes nothing unsaid.
 */
function supersededList(data: ReportData): string[] {
  if (!data.superseded?.length) return [];
  return ['<h3>Superseded scores</h3>',
    '<p class="small">Scores replaced by a re-evaluation; the store keeps them in <code>superseded_scores</code>.</p>',
    // Hashes and paths are long unbroken words: they wrap rather than widen the page.
    '<ul class="small" style="overflow-wrap: anywhere">',
    ...data.superseded.map((g) => `<li>run <code>${esc(g.run)}</code>, step${g.steps.length > 1 ? 's' : ''} ` +
      `${esc(g.steps.join(', '))}: ${g.scores} scores, last ${esc(g.at)}: ${esc(g.reason)}</li>`),
    '</ul>'];
}

/**
 * One row per package: the version each run recorded (runs.versions), and which runs, so a
 * store whose runs were made with different versions says so at a glance.
 */
function versionsTable(data: ReportData): string {
  const byPackage = new Map<string, Map<string, string[]>>();
  for (const run of data.runs) {
    for (const [pkg, version] of Object.entries(run.versions ?? {})) {
      const versions = byPackage.get(pkg) ?? new Map<string, string[]>();
      versions.set(String(version), [...(versions.get(String(version)) ?? []), run.id]);
      byPackage.set(pkg, versions);
    }
  }
  if (byPackage.size === 0) return '<p class="note">No versions recorded with the runs.</p>';
  const rows = [...byPackage].map(([pkg, versions]) => {
    const cells = [...versions].map(([v, runs]) =>
      `${esc(v)}${versions.size > 1 || runs.length < data.runs.length
        ? ` <span class="small">(${runs.length === data.runs.length ? 'all runs' : runs.map(esc).join(', ')})</span>` : ''}`);
    return `<tr><td><code>${esc(pkg)}</code></td><td>${cells.join('<br>')}</td></tr>`;
  });
  return '<div class="table-wrap"><table class="kv"><thead><tr><th>package</th>' +
    `<th>version${data.runs.length > 1 ? ` (${data.runs.length} runs)` : ''}</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table></div>`;
}

/** A run's attributes (JSON) as "key value" lines; nested objects as key=value lists; empty values left out. */
function settingsText(json: string): string {
  let attrs: Record<string, unknown>;
  try {
    attrs = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return esc(json);
  }
  const lines = Object.entries(attrs)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => {
      const text = typeof v === 'object' && !Array.isArray(v)
        ? Object.entries(v as Record<string, unknown>).map(([k2, v2]) => `${k2}=${Array.isArray(v2) ? v2.join(',') : String(v2)}`).join(' ')
        : Array.isArray(v) ? v.join(', ') : String(v);
      return `<span class="item"><span class="small">${esc(k)}</span> ${esc(text)}</span>`;
    });
  return lines.join(' · ');
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
