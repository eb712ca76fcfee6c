/**
 * genstudy's statistics core (no I/O): correlation, partial correlation with linear or spline
 * (GAM) residualisers, p-values and confidence intervals, multiple-testing corrections, and checks
 * that respect the order of checkpoints (first differences, block bootstrap, circular-shift
 * permutation test) and the default inference for autocorrelated checkpoints (the effective
 * sample size). Each module's header gives its formula and source.
 */
export { pearson, spearman } from './correlation.ts';
export { rank } from './rank.ts';
export { partialCorrelation } from './partial-correlation.ts';
export { partialCorrelationPairs, type PartialPair } from './partial-correlation-batch.ts';
export {
  CORRELATION_METHODS, RESIDUALISERS, INFERENCES,
  type CorrelationMethod, type Residualiser, type Inference, type PartialResult, type PartialOptions,
} from './partial-correlation-shared.ts';
export { autocorrelation } from './autocorrelation.ts';
export { bartlettEffectiveN, biasCorrectedAr1, MAX_PHI } from './effective-sample-size.ts';
export { residualAr1 } from './residual-ar1.ts';
export { countDistinctRows, denseIds } from './distinct-rows.ts';
export { adjustPValues, CORRECTIONS, type Correction } from './corrections.ts';
export { firstDifferences } from './differences.ts';
export {
  capAtLevelRows, distinctLevelRows, levelsOrDifferencesPairs, type ChosenPair, type Representation,
} from './levels-or-differences.ts';
export { blockBootstrap, blockBootstrapCI, type BlockBootstrapOptions, type BootstrapInterval } from './bootstrap.ts';
export { permutationTest, type PermutationOptions } from './permutation.ts';
export { createRandom, type Random } from './random.ts';
export { ar1Into, correlatedAr1Into, ouInto, correlatedOuInto } from './ar1.ts';
export { spacingOf, phiOfTheta, type Spacing } from './uneven-spacing.ts';
export { unevenMatched, residualOuThetas, scaledTimes, type RepresentationChoice } from './uneven-pair-tests.ts';
export { modelledPairTests, type ModelledOptions, type ModelledPair, type ModelledRun } from './modelled-pair-tests.ts';
export { NoiseFitCache } from './noise-fit-cache.ts';
export { fitNoiseModel, noiseCorrelation, axisTimes, type NoiseModel, type TimeAxis } from './noise-model.ts';
export { controlResiduals, MIN_RELIABILITY, type ControlCorrection } from './control-residuals.ts';
export { shareCovariance } from './example-covariance.ts';
export { correlatedNormal } from './correlated-normal.ts';
export { splineResidualiser, type SplineResidualiser } from './spline-residuals.ts';
export { placeKnots, crSpline, crDesign } from './cr-basis.ts';
export { predictionQuantile, randomEffectsMeta, qProfileCi, type MetaAnalysis, type MetaOptions } from './meta-analysis.ts';
export {
  metaRegression, moderatorDesign, isMetaRegression,
  type Moderator, type MetaRegression, type MetaRegressionShortfall, type Coefficient, type LevelEffect,
} from './meta-regression.ts';
export { TAU2_ESTIMATORS, type Tau2Estimator } from './tau2-estimators.ts';
