// What one run's analysis holds (its pairs' tests, how its control's noise and its spacing were
// handled, its calibration) and the papers' sign counts per pair: the result types the analysis,
// the pooling, the verdicts and the headline share, in a module that imports none of them.
import type { ControlCorrection, Representation } from '../stats/index.ts';
import type { RunCalibration } from './calibration.ts';

export interface PairResult {
  a: string;
  b: string;
  r: number | null;
  /** Observations the test counted: the effective sample size ('effective-n'), or n ('naive'). */
  n_eff: number;
  /** Degrees of freedom of the t-test: nEff - 2 - k. */
  df: number;
  p: number | null;
  p_adjusted: number | null;
  ci95: [number, number] | null;
  /** What was correlated: the scores' levels or their first differences. */
  representation: Representation;
  /** Why r is null, when it is. */
  reason?: string;
  /** 'effective-n': each residual series' fitted drift correlation at the median gap (stats/noise-model.ts). */
  phi?: [number, number];
  /** Distinct (control, a, b) score rows, when fewer than the observations (plateaus). */
  distinct?: number;
  /** Block bootstrap percentile-t 95% CI (stats/bootstrap.ts); null with `bootstrap_reason`. */
  bootstrap_ci95?: [number, number] | null;
  bootstrap_reason?: string;
  permutation_p?: number;
  /** r divided by sqrt(reliability_a reliability_b): corrected for the OOD sets' own sampling noise (reported, not tested). */
  r_disattenuated?: number;
  /**
   * SIMEX only: its extrapolation's r, which the echo bound moved toward zero by as much again as SIMEX moved it from the
   * uncorrected r (`r_uncorrected`) to give `r` (stats/control-residuals.ts).
   */
  r_simex?: number;
  r_uncorrected?: number;
  /** Share of each residual series' variance that is not its own sampling noise. */
  reliability?: [number, number];
  /** Why this run's result for the pair is not to be trusted (stability.ts): left out of the pooling unless keepUnstable. */
  unstable?: string;
}

/** How the control's sampling noise was handled in a run. */
export interface RunControlNoise {
  /** 'moments' (linear residualiser), 'simex' (spline), or 'none' (unknown variance, or Spearman). */
  correction: ControlCorrection;
  /** (S_cc - U) / S_cc: the share of the control's variation across checkpoints that is not sampling noise. */
  reliability?: number;
  /**
   * Pair representations (levels and differences counted apart) left uncorrected: the stated noise's echo would take
   * more than 80% of their residual variance, more than the scores hold (a fixed test set with stable answers).
   */
  uncorrected?: number;
  /** The errors' covariance across checkpoints was known (per-example results) and corrected for, not only their variances. */
  error_covariance?: true;
  warning?: string;
}

export interface RunAnalysis {
  run: string;
  /** Checkpoints (differences with --representation differences) the run has. */
  n: number;
  control: string;
  /** Distinct checkpoint score vectors (control and every OOD set). */
  distinct: number;
  /** Set when most checkpoints repeat an earlier one's scores. */
  warning?: string;
  /** Present when the checkpoints are not evenly spaced in steps (log-spaced early, a missing step). */
  spacing?: RunSpacing;
  /** How the control's sampling noise was handled (absent when the scores are not proportions and no variance is given). */
  control_noise?: RunControlNoise;
  /** The test's false-positive rate and power on simulated series like this run's (absent with calibration 0). */
  calibration?: RunCalibration;
  pairs: PairResult[];
}
export interface RunSpacing {
  uneven: true;
  /** Smallest, median and largest gap between consecutive checkpoints, in steps. */
  min_gap: number;
  reference_gap: number;
  max_gap: number;
  /** True when the test models the gaps (effective-n: correlation exp(-gap / tau)); false for the naive test. */
  modelled: boolean;
}
export interface LeftOutRun { run: string; reason: string }
export interface Agreement { a: string; b: string; positive: number; negative: number; null: number; runs: number }
