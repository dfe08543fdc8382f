"""The duel's statistics: Student's t and the 95% interval of independent values."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["confidence_interval", "t_quantile"]

#: Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom.
_T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)  # fmt: skip
_Z975 = 1.959963984540054


def t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (95% two-sided).

    Exact to 4 decimals up to 30 degrees of freedom (a table), then the Cornish-Fisher
    expansion (Abramowitz & Stegun 26.7.5), good to 1e-5 beyond.
    """
    if df < 1:
        raise ValueError("t_quantile needs at least one degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z, n = _Z975, float(df)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / n + g2 / n**2 + g3 / n**3 + g4 / n**4


def confidence_interval(values: np.ndarray) -> tuple[float, float | None, float | None]:
    """(mean, standard error, 95% half-width) of independent values.

    ``stderr = std(values, ddof=1) / sqrt(n)``; the interval is ``mean ± t * stderr`` with
    ``t`` the 97.5% quantile of Student's t with ``n - 1`` degrees of freedom. With fewer
    than two values the error and the interval are ``None``.
    """
    x = np.asarray(values, np.float64)
    if x.size == 0:
        raise ValueError("no values")
    mean = float(x.mean())
    if x.size < 2:
        return mean, None, None
    se = float(x.std(ddof=1) / math.sqrt(x.size))
    return mean, se, t_quantile(x.size - 1) * se
