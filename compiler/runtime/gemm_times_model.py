"""The model of a times table (``gemm_times``) that predicts each kernel's time on any product.

**Fit.**  Per candidate, the weights of its ``wave_features`` by least squares on the relative
error of the measured times.

**Neighbours.**  The fit's error on the ``NEIGHBOURS`` measured products nearest to the one
asked for corrects it, weighted by nearness, per candidate: near in log M, log N, log K and
the two alignments, and in the candidate's own launch there (``fit_key``: its waves, the
fraction of its tiles' elements past the edges, the fraction of the slots a wave fills,
scaled by ``FIT_WEIGHT``).  The fit itself counts among them with weight ``PRIOR`` (an error
of 0), so few or far neighbours correct it less.  What waves do not explain (L2 traffic, a
tile's fit to the product's edges) varies slowly with the shape, but not across a change of
wave count or of edge fit: a product of the same shape region whose tiles fall into another
wave count, or fill the edges otherwise, is no neighbour.

What each feature, the neighbours' launch key and ``PRIOR`` gained, cross-validated on the
tables (``bench/gemm_select_cv.py``), is in docs/benchmarks.md (twenty-second to thirty-first
sessions).
"""

from __future__ import annotations

from .gemm_candidates import Candidate
from .gemm_times import Product, launched_names, read, takes, wave_features

NEIGHBOURS = 10
FIT_WEIGHT = 20.0
"""How far apart a candidate's launches count (``fit_key``) against the shape's octaves: a tenth
of the tiles' elements past the edges, or of the slots a wave fills, weighs as much as two
octaves of M; twice the waves as much as twenty, so neighbours almost always share the wave
count.  Chosen by cross-validation on both measured tables (10 to 40 pick alike)."""
NEAR = 0.3
"""Distance added to every neighbour's before it is inverted into a weight."""
PRIOR = 0.5
"""The weight of the fit's own prediction (no correction) beside the neighbours' (each ``1 /
(distance + NEAR)``, about 0.3 to 1): where the neighbours are few in range or far, the
correction shrinks toward the fit.  Chosen by cross-validation on both measured tables (three
shufflings, ``SWITCH`` 1.01: picks more than 10 % slow 174 → 164 and 221 → 206 of 7260 against
none; 0.35 to 0.75 pick alike, 1.0 and above worse; docs/benchmarks.md, thirty-first session)."""


class MeasuredTimes:
    """The times table ``text`` (see ``read``) and the model fitted to it; ``launched``: the
    kernels it timed as ``gemm()`` launches them (``gemm_times.launched_names``)."""

    def __init__(self, text: str, source: str = "<times>") -> None:
        self.device, self.candidates, self.products, times = read(text, source)
        named = launched_names(text)  # timed as gemm() launches them (gemm_times.LAUNCHED)
        self.launched = frozenset(c for c in self.candidates if c.name in named)
        import numpy as np

        self._np = np
        self._keys = np.array([p.key for p in self.products])
        weights = []
        residuals = np.full((len(self.products), len(self.candidates)), np.nan)
        fits = np.full((len(FIT_KEY), len(self.products), len(self.candidates)), np.nan)
        for j, candidate in enumerate(self.candidates):
            measured = np.array([row[j] for row in times])
            have = ~np.isnan(measured)
            x = np.array(
                [
                    wave_features(candidate, p, self.device)
                    for p, h in zip(self.products, have, strict=True)
                    if h
                ]
            )
            t = measured[have]
            w, *_ = np.linalg.lstsq(x / t[:, None], np.ones_like(t), rcond=None)
            residuals[have, j] = np.log(t / np.maximum(x @ w, 1e-9))
            fits[:, have, j] = fit_key(np, x).T
            weights.append(w)
        self._weights = np.array(weights)
        self._residuals = np.nan_to_num(residuals)
        self._fits = fits  # one plane (product × candidate) per field of FIT_KEY

    def predict(self, p: Product) -> dict[Candidate, float]:
        """The estimated time (µs) on ``p`` of each candidate that launches on it (``takes``)."""
        np = self._np
        taken = [(j, c) for j, c in enumerate(self.candidates) if takes(c, p, self.device)]
        if not taken:
            return {}
        columns = [j for j, _ in taken]
        every = len(columns) == len(self.candidates)  # the usual case: no copies
        features = np.array([wave_features(c, p, self.device) for _, c in taken])
        shape = np.sum((self._keys - np.array(p.key)) ** 2, axis=1)
        launch = sum(
            ((plane if every else plane[:, columns]) - field) ** 2
            for plane, field in zip(self._fits, fit_key(np, features).T, strict=True)
        )
        distance = np.sqrt(shape[:, None] + FIT_WEIGHT**2 * launch)
        distance[np.isnan(distance)] = np.inf  # not measured: no neighbour
        count = min(NEIGHBOURS, len(self.products))
        nearest = np.argpartition(distance, count - 1, axis=0)[:count]
        weight = 1 / (np.take_along_axis(distance, nearest, 0) + NEAR)
        residuals = self._residuals if every else self._residuals[:, columns]
        residual = np.take_along_axis(residuals, nearest, 0)
        correction = (residual * weight).sum(0) / (weight.sum(0) + PRIOR)
        base = np.maximum(np.einsum("cf,cf->c", features, self._weights[columns]), 1e-9)
        return {c: float(t) for (_, c), t in zip(taken, base * np.exp(correction), strict=True)}


FIT_KEY = ("waves", "waste", "busy")


def fit_key(np, features):
    """``FIT_KEY`` of a candidate's launches from their ``wave_features`` rows: log2 of the
    waves, the fraction of the tiles' elements past the edges, and of the slots a wave fills
    (see the module docstring)."""
    features = np.atleast_2d(features)
    work = np.maximum(features[:, 2], 1e-9)
    return np.stack([np.log2(features[:, 1]), features[:, 6] / work, features[:, 7] / work], axis=1)
