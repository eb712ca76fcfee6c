// The study-A part of the page that says how far to trust the verdicts: per run, the test's
// calibration on simulated series like the run's (false-positive rate and power) with its distinct
// checkpoints; per pair, under how many of the analysis choices its verdict holds (fragile under half). Its tables
// (calibration, robustness) are written as CSV and JSON like the others.
import { spacingNote } from '../analyze/format.ts';
import { esc, fixed, htmlTable } from './html.ts';
import { verdictLook } from './meta-verdict.ts';
import type { StudyA } from './study-a.ts';
import type { Table } from './table.ts';

export function checkTables(a: StudyA): Table[] {
  const tables: Table[] = [];
  const calibrated = a.analysis.runs.filter((r) => r.calibration);
  if (calibrated.length) {
    tables.push({
      name: 'calibration', title: 'Calibration of the test per run',
      description: "One row per run: its checkpoints and distinct score vectors, its residuals' fitted noise (the drift's " +
        'correlation at the median gap and the white share), and on that many simulated pairs made like the run\'s, the share of ' +
        'null pairs the test in use calls significant (nominal: alpha), the naive test\'s share, the power for the stated true ' +
        'partial correlation, and how much more the null r scatter than the test states (the variance ratio the pooling uses ' +
        'when above 1) with its Monte Carlo standard error.',
      columns: ['run', 'n', 'distinct', 'phi', 'nugget', 'simulations', 'alpha', 'false_positive_rate', 'naive_false_positive_rate', 'effect',
        'power', 'variance_ratio', 'variance_ratio_se'],
      rows: calibrated.map((r) => {
        const c = r.calibration!;
        return [r.run, r.n, r.distinct, c.phi, c.nugget, c.simulations, c.alpha, c.false_positive_rate, c.naive_false_positive_rate, c.effect,
          c.power, c.variance_ratio, c.variance_ratio_se];
      }),
    });
  }
  const rb = a.analysis.robustness;
  if (rb && rb.pairs.length) {
    tables.push({
      name: 'robustness', title: 'Robustness of each verdict',
      description: 'One row per pair of OOD sets: its verdict, and under how many of the analysis choices Pearson/Spearman x ' +
        'linear/spline x levels/differences that could be computed (the main analysis\'s among them) it is the same; fragile when ' +
        'under fewer than half; the others with their verdicts.',
      columns: ['a', 'b', 'verdict', 'holds', 'of', 'otherwise', 'fragile'],
      rows: rb.pairs.map((p) => [p.a, p.b, p.verdict, p.holds, p.of, p.otherwise.join('; '), p.fragile]),
    });
  }
  return tables;
}

export function checksSection(a: StudyA, tables: Map<string, Table>): string {
  const out: string[] = [];
  const pct = (v: unknown) => (v === null ? '–' : `${fixed(100 * (v as number), 1)}%`);
  const calibration = tables.get('calibration');
  if (calibration) {
    out.push('<h3 id="study-a-calibration">Is the test calibrated on these runs?</h3>');
    out.push('<p class="note">Per run: simulated pairs made like the run\'s (its OOD curves on its smoothed control, deviations ' +
      'drawn from the drift plus white noise fitted to its residuals, at its own checkpoints, the control\'s sampling noise redrawn ' +
      'where it is known), residualised and tested as its pairs are. The false-positive rate should be near alpha; the naive test ' +
      '(every checkpoint independent) is shown for comparison. The variance ratio is how much more the null r scatter than the ' +
      'test states; above 1, the pooling across runs uses it, and another seed moves it by about its Monte Carlo error.</p>');
    out.push(htmlTable(calibration, {
      columns: ['run', 'n', 'distinct', 'phi', 'false_positive_rate', 'naive_false_positive_rate', 'power', 'variance_ratio'],
      headers: { n: 'checkpoints', distinct: 'distinct', phi: 'drift phi', false_positive_rate: 'false positives',
        naive_false_positive_rate: 'naive test', power: `power at r = ${a.analysis.runs.find((r) => r.calibration)!.calibration!.effect}`,
        variance_ratio: 'variance ratio (Monte Carlo se)' },
      format: {
        phi: (v) => fixed(v as number, 2), false_positive_rate: pct, naive_false_positive_rate: pct, power: pct,
        variance_ratio: (v, row) => `${fixed(v as number, 2)} (${fixed(row[calibration.columns.indexOf('variance_ratio_se')] as number, 2)})`,
      },
    }));
    const warnings = [
      ...a.analysis.runs.filter((r) => r.warning).map((r) => r.warning!),
      // an unevenly spaced run's calibration simulates OU noise at its own steps (analyze/calibration.ts)
      ...a.analysis.runs.filter((r) => r.spacing).map((r) => `run "${r.run}": ${spacingNote(r.spacing!)}`),
    ];
    if (warnings.length) out.push(`<ul class="small">${warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`);
  }
  const robustness = tables.get('robustness');
  if (robustness) {
    out.push('<h3 id="study-a-robustness">Does each verdict hold across the analysis choices?</h3>');
    out.push('<p class="note">Each verdict recomputed under Pearson or Spearman, a linear or spline residualiser, levels or first ' +
      'differences (the main analysis\'s choice among them). A verdict that holds under fewer than half of them is <b>fragile</b>: ' +
      'it says as much about the analysis as about the runs.</p>');
    out.push(htmlTable(robustness, {
      columns: ['a', 'b', 'verdict', 'holds', 'otherwise'],
      headers: { holds: 'holds under' }, names: ['a', 'b'], wrap: ['otherwise'],
      format: {
        // the verdict drawn as in the meta-analysis table and the figures (meta-verdict.ts)
        verdict: (v) => `<span class="verdict">${esc(`${verdictLook(String(v)).mark} ${String(v)}`)}</span>`,
        holds: (v, row) => `${v} of ${row[robustness.columns.indexOf('of')]}` +
          (row[robustness.columns.indexOf('fragile')] === true ? ' <b class="fragile">fragile</b>' : ''),
        // one choice per line part, so the list wraps between choices, not inside one
        otherwise: (v) => String(v ?? '').split('; ').filter(Boolean).map((x) => `<span class="item">${esc(x)}</span>`).join('; '),
      },
      rowClass: (row) => `meta-${verdictLook(String(row[robustness.columns.indexOf('verdict')])).tone}`,
    }));
    const missing = a.analysis.robustness!.choices.filter((c) => !c.available);
    if (missing.length) {
      out.push(`<ul class="small">${missing.map((c) =>
        `<li>not computed: ${esc(`${c.method}/${c.residualiser}/${c.representation}`)}: ${esc(c.reason ?? '')}</li>`).join('')}</ul>`);
    }
  }
  return out.join('\n');
}
