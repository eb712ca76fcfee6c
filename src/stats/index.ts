/**
 * genstudy's statistics core (no I/O): correlation, partial correlation with linear or spline
 * (GAM) residualisers, p-values and confidence intervals, multiple-testing corrections, and checks
 * that respect the order of checkpoints (first differences, block bootstrap, circular-shift
 * permutation test). Each module's header gives its formula and source.
 */
export { pearson, spearman } from './correlation.ts';
export { rank } from './rank.ts';
export {
  partialCorrelation, partialCorrelationPairs,
  type CorrelationMethod, type Residualiser, type PartialResult, type PartialOptions,
} from './partial-correlation.ts';
export { adjustPValues, type Correction } from './corrections.ts';
export { firstDifferences } from './differences.ts';
export { blockBootstrapCI, type BlockBootstrapOptions } from './bootstrap.ts';
export { permutationTest, type PermutationOptions } from './permutation.ts';
export { createRandom, type Random } from './random.ts';
export { splineResidualiser, type SplineResidualiser } from './spline-residuals.ts';
export { placeKnots, crSpline, crDesign } from './cr-basis.ts';
export { randomEffectsMeta, qProfileCi, type MetaAnalysis, type MetaOptions } from './meta-analysis.ts';
export {
  metaRegression, moderatorDesign, isMetaRegression,
  type Moderator, type MetaRegression, type MetaRegressionShortfall, type Coefficient, type LevelEffect,
} from './meta-regression.ts';
export { TAU2_ESTIMATORS, type Tau2Estimator } from './tau2-estimators.ts';
