#!/usr/bin/env Rscript
# Golden values for the spline residualiser (src/stats/spline-residuals.ts, cr-basis.ts).
# Run from the repository root:  Rscript test/stats/golden/make_spline_golden.R
# Writes test/stats/golden/spline.json.
#
# Reference: mgcv (Wood 2017, "Generalized Additive Models", 2nd ed., sections 5.3.1 and 6.2):
#   gam(y ~ s(x, bs = "cr", k = 10), method = "GCV.Cp")
# and, for the unconstrained basis, knots and penalty of the cubic regression spline,
#   smooth.construct(s(x, bs = "cr", k = 10), data, NULL)  ($X, $S[[1]], $xp).
# Also recorded: the fit with a tight optimiser tolerance (gam.control(mgcv.tol = 1e-14)) and the
# straight-line fit (lm), the lambda -> infinity limit, with its GCV score.
# Numbers are written with 17 significant digits so they round-trip exactly.
suppressPackageStartupMessages(library(mgcv))

set.seed(20261130)

# ID accuracy along a run: rises fast, then saturates; `digits` rounds it to make ties.
id_curve <- function(n, digits = NULL) {
  t <- seq(0, 1, length.out = n)
  z <- 0.5 + 0.4 * (1 - exp(-5 * t)) + rnorm(n, sd = 0.01)
  if (!is.null(digits)) z <- round(z, digits)
  z
}

cases <- list()
add_case <- function(name, z, y, k = 10) {
  fit <- gam(y ~ s(z, bs = "cr", k = k), method = "GCV.Cp")
  # The same with mgcv's GCV optimiser run to convergence (its default mgcv.tol = 1e-7 stops
  # while edf can still move by ~1e-3 on a flat GCV curve).
  tight <- gam(y ~ s(z, bs = "cr", k = k), method = "GCV.Cp", control = gam.control(mgcv.tol = 1e-14))
  line <- lm(y ~ z)  # the lambda -> infinity limit of the smooth: GCV = n RSS / (n - 2)^2
  nn <- length(y)
  raw <- smooth.construct(s(z, bs = "cr", k = k), data.frame(z = z), NULL)
  cases[[length(cases) + 1]] <<- list(
    name = name, k = k, z = z, y = y,
    fitted = as.numeric(fitted(fit)),
    residuals = as.numeric(residuals(fit)),
    edf = sum(fit$edf) - 1,                # the smooth's edf (the intercept's is exactly 1)
    sp = as.numeric(fit$sp),
    gcv = as.numeric(fit$gcv.ubre),
    tight_fitted = as.numeric(fitted(tight)),
    tight_edf = sum(tight$edf) - 1,
    tight_gcv = as.numeric(tight$gcv.ubre),
    line_fitted = as.numeric(fitted(line)),
    line_gcv = nn * sum(residuals(line)^2) / (nn - 2)^2,
    knots = as.numeric(raw$xp),
    X = lapply(seq_len(nrow(raw$X)), function(i) as.numeric(raw$X[i, ])),
    S = lapply(seq_len(nrow(raw$S[[1]])), function(i) as.numeric(raw$S[[1]][i, ]))
  )
}

for (n in c(20, 200)) {
  z <- id_curve(n)
  add_case(sprintf("linear_n%d", n), z, 0.3 + 0.8 * z + rnorm(n, sd = 0.02))
  add_case(sprintf("curved_n%d", n), z, sin(12 * z) * 0.1 + rnorm(n, sd = 0.01))
  add_case(sprintf("noisy_n%d", n), z, 0.2 * z + rnorm(n, sd = 0.1))
}
zt <- id_curve(60, digits = 2)
add_case("ties_n60", zt, (zt - 0.7)^2 + rnorm(60, sd = 0.005))
z5 <- id_curve(30)
add_case("k5_n30", z5, cos(8 * z5) * 0.05 + rnorm(30, sd = 0.01), k = 5)

source("test/stats/golden/json-writer.R")
for (i in seq_along(cases)) for (f in c("z", "y", "fitted", "residuals", "knots", "sp", "tight_fitted", "line_fitted")) cases[[i]][[f]] <- vec(cases[[i]][[f]])
for (i in seq_along(cases)) for (f in c("X", "S")) cases[[i]][[f]] <- lapply(cases[[i]][[f]], vec)
out <- list(made_by = "make_spline_golden.R", mgcv = as.character(packageVersion("mgcv")),
            R = paste(R.version$major, R.version$minor, sep = "."), cases = cases)
writeLines(to_json(out), "test/stats/golden/spline.json")
