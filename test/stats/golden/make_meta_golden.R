#!/usr/bin/env Rscript
# Golden values for the random-effects meta-analysis and meta-regression
# (src/stats/meta-analysis.ts, meta-regression.ts, tau2-estimators.ts).
# Run from the repository root:  Rscript test/stats/golden/make_meta_golden.R
# (Debian: apt-get install r-cran-metafor; made with metafor 3.8-1.) Writes meta.json beside it.
#
# Reference: metafor (Viechtbauer 2010), for every case and every estimator (REML, DL, PM), with
# the standard z test and with Hartung-Knapp (test = "knha"):
#   rma(yi, vi, method = ..., test = ...)            pooled effect, se, test, CI, tau^2, I^2, H^2, Q
#   confint(fit)                                      Q-profile CI of tau^2, I^2 and H^2
#   predict(fit)                                      95% prediction interval
#   rma(yi, vi, mods = ~ moderator, ...)              meta-regression: coefficients, QM / F, QE, R^2
#   predict(fit, newmods = ...)                       fitted effect per level of a categorical moderator
# metafor stops REML's Fisher scoring at |change| < 1e-5 and its root searches (PM, the Q-profile)
# at uniroot's default tol (1.2e-4) by default; the values here are made with tight tolerances
# (threshold 1e-14, tol 1e-14), so they are the converged estimates genstudy computes.
# Numbers are written with 17 significant digits so they round-trip exactly.
suppressPackageStartupMessages(library(metafor))

set.seed(20261130)
tight <- list(threshold = 1e-14, maxiter = 10000, tol = 1e-14, tau2.max = 1000)

# Fisher z of partial correlations from runs with n checkpoints (one covariate: v = 1 / (n - 4)),
# true z from N(mu, tau^2).
simulate <- function(k, mu, tau, nmin = 12, nmax = 60) {
  n <- sample(nmin:nmax, k, replace = TRUE)
  vi <- 1 / (n - 4)
  yi <- rnorm(k, mu, sqrt(tau^2 + vi))
  list(yi = yi, vi = vi)
}

cases <- list(
  # a real data set of correlations (Molloy et al. 2014, shipped with metafor): z = atanh(r), v = 1 / (n - 3)
  molloy = with(escalc(measure = "ZCOR", ri = ri, ni = ni, data = dat.molloy2014), list(yi = as.numeric(yi), vi = as.numeric(vi))),
  hetero_k10 = simulate(10, 0.3, 0.35),
  opposite_k8 = simulate(8, 0, 0.6),          # strong relations of opposite signs
  homog_k6 = simulate(6, 0.2, 0),             # typically tau^2 = 0 at the boundary
  small_k5 = simulate(5, -0.25, 0.2),
  three_k3 = simulate(3, 0.4, 0.3),
  two_k2 = simulate(2, 0.3, 0.2),
  two_equal_k2 = list(yi = c(0.31, 0.29), vi = c(1 / 20, 1 / 30)),
  # from the calibration simulation: metafor's Fisher scoring oscillates around the REML root and
  # does not converge with its default step; it does with stepadj = 0.5 (used for this case)
  oscillating_k6 = list(
    yi = c(0.308095141634133, 0.3671655214203762, 0.221554907776698, 0.32137628021482545, 0.29265105942832004, 0.5437661803591358),
    vi = c(0.09090909090909091, 0.07692307692307693, 0.022727272727272728, 0.07692307692307693, 0.05, 0.018867924528301886))
)
# homog_k6 must sit at the boundary for all three estimators (checked, not assumed)
stopifnot(rma(cases$homog_k6$yi, cases$homog_k6$vi, method = "REML", control = tight)$tau2 < 1e-10)

num <- function(x) if (is.null(x) || length(x) == 0 || is.na(x[1])) NULL else as.numeric(x)

fit_one <- function(d, method, test, control = tight) {
  fit <- rma(d$yi, d$vi, method = method, test = test, control = control)
  ci <- confint(fit, control = list(tol = 1e-14))
  pr <- predict(fit)
  list(
    estimator = method, hartung_knapp = test == "knha",
    estimate = as.numeric(fit$beta), se = fit$se, statistic = fit$zval, p = fit$pval,
    ci = c(fit$ci.lb, fit$ci.ub), df = if (test == "knha") fit$ddf else NULL,
    tau2 = fit$tau2, tau2_ci = as.numeric(ci$random["tau^2", c("ci.lb", "ci.ub")]),
    i2 = fit$I2 / 100, i2_ci = as.numeric(ci$random["I^2(%)", c("ci.lb", "ci.ub")]) / 100,
    h2 = fit$H2, q = fit$QE, q_df = fit$k - fit$p, q_p = fit$QEp,
    pi = c(pr$pi.lb, pr$pi.ub)
  )
}

out_cases <- list()
for (name in names(cases)) {
  d <- cases[[name]]
  fits <- list()
  control <- if (name == "oscillating_k6") c(tight, stepadj = 0.5) else tight
  for (method in c("REML", "DL", "PM")) for (test in c("z", "knha")) fits[[length(fits) + 1]] <- fit_one(d, method, test, control)
  out_cases[[length(out_cases) + 1]] <- list(name = name, yi = d$yi, vi = d$vi, fits = fits)
}

# Meta-regression on one moderator.
mr <- list()
add_mr <- function(name, d, moderator, kind) {
  fits <- list()
  for (method in c("REML", "DL", "PM")) for (test in c("z", "knha")) {
    m <- if (kind == "categorical") factor(moderator) else moderator
    fit <- rma(d$yi, d$vi, mods = ~ m, method = method, test = test, control = tight)
    f <- list(
      estimator = method, hartung_knapp = test == "knha",
      coefficients = lapply(seq_along(fit$beta), function(j) list(
        name = rownames(fit$beta)[j], estimate = fit$beta[j], se = fit$se[j], statistic = fit$zval[j],
        p = fit$pval[j], ci = c(fit$ci.lb[j], fit$ci.ub[j]))),
      qm = fit$QM, qm_df1 = fit$QMdf[1], qm_df2 = if (test == "knha") fit$QMdf[2] else NULL, qm_p = fit$QMp,
      tau2 = fit$tau2, tau2_ci = as.numeric(confint(fit, control = list(tol = 1e-14))$random["tau^2", c("ci.lb", "ci.ub")]),
      i2 = fit$I2 / 100, qe = fit$QE, qe_df = fit$k - fit$p, qe_p = fit$QEp,
      r2 = if (is.null(fit$R2)) NULL else fit$R2 / 100,
      tau2_re = rma(d$yi, d$vi, method = method, control = tight)$tau2
    )
    if (kind == "categorical") {
      lv <- levels(m)
      X <- cbind(matrix(0, length(lv), length(lv) - 1))
      for (j in seq_along(lv)[-1]) X[j, j - 1] <- 1
      pr <- predict(fit, newmods = X)
      f$levels <- lapply(seq_along(lv), function(j) list(level = lv[j], estimate = pr$pred[j], se = pr$se[j], ci = c(pr$ci.lb[j], pr$ci.ub[j])))
    }
    fits[[length(fits) + 1]] <- f
  }
  mr[[length(mr) + 1]] <<- list(name = name, kind = kind, yi = d$yi, vi = d$vi, moderator = moderator, fits = fits)
}
mol <- cases$molloy
add_mr("molloy_a_measure", mol, dat.molloy2014$a_measure, "categorical")
add_mr("molloy_meanage", mol, dat.molloy2014$meanage, "numeric")
add_mr("molloy_year", mol, dat.molloy2014$year, "numeric")   # far from 0: an ill-conditioned design
fam <- simulate(12, 0, 0.1)
family <- rep(c("llama", "pythia", "qwen"), each = 4)
fam$yi <- fam$yi + c(llama = 0.4, pythia = -0.3, qwen = 0.1)[family]   # the sign depends on the family
add_mr("family_k12", fam, family, "categorical")
size <- c(70, 160, 410, 1000, 1400, 2800, 6900, 12000, 70, 410)
sz <- simulate(10, 0, 0.15)
sz$yi <- sz$yi + 0.1 * log10(size)
add_mr("size_k10", sz, log10(size), "numeric")
tiny <- simulate(4, 0.2, 0.2)
add_mr("two_levels_k4", tiny, c("a", "a", "b", "b"), "categorical")

source("test/stats/golden/json-writer.R")
out <- list(made_by = "make_meta_golden.R", metafor = as.character(packageVersion("metafor")),
            R = paste(R.version$major, R.version$minor, sep = "."), cases = out_cases, regressions = mr)
writeLines(to_json(out), "test/stats/golden/meta.json")
cat("wrote test/stats/golden/meta.json\n")
