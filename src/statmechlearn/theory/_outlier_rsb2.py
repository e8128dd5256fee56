"""Two-step RSB (2RSB) of hard selection at zero temperature: the size of a further step.

Private and slow (seconds per functional gradient): it exists to measure how much a second
step of replica-symmetry breaking moves the 1RSB numbers of
:mod:`statmechlearn.theory._outlier_rsb` (``docs/derivations/outliers_1rsb.md``, section 8).

With the Parisi parameters y0 <= y1, the spreads D0 = q1 - q0 (outer) and D1 = q2 - q1
(inner), ``L_a = z``, ``L_b = z + y1 D1``, ``L_c = L_b + y0 D0`` and Q = q0 + D0 + D1,

    f2 = Q/2 - ln(L_b / L_a) / (2 y1) - ln(L_c / L_b) / (2 y0) - (q0 - R^2) / (2 L_c)
         - alpha < G1(c) >_{z0, V} - g*(lambda),
    G1(c) = (1/y0) ln < exp(y0 G2(c + s0 z1)) >_{z1},   G2(c) = (1/y1) ln Z1(c; s1, y1),

with ``s0^2 = k0 D0``, ``s1^2 = k0 D1``, ``k0 = gs^2 / gamma`` and Z1 the closed inner
average of the 1RSB module. The middle average is Gauss-Legendre on panels graded
towards the selection layer of G2, shared by all outer nodes (only its centre moves).
"""

import math

import numpy as np
from scipy.special import expit

from statmechlearn._core.saddle import newton
from statmechlearn.theory._outlier_rsb import _inner, _nodes
from statmechlearn.theory._outlier_saddle import _g_star

__all__ = []


def _middle_nodes(centres, width):
    """The middle level's nodes for every outer node, graded at its own layer centre.

    Returns flat arrays (z1, weight with the normal density) and the start of each outer
    node's block (for ``np.add.reduceat``).
    """
    blocks = [_nodes(c, width) for c in centres]
    sizes = np.array([x.size for x, _ in blocks])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return np.concatenate([x for x, _ in blocks]), np.concatenate([w for _, w in blocks]), starts


class Hard2RSB:
    """The 2RSB functional and its gradient in (R, q0, D0, D1, z, lambda) at fixed (y0, y1)."""

    def __init__(self, alpha, gamma, gamma_student, eta):
        self.alpha, self.gamma, self.gs, self.eta = alpha, gamma, gamma_student, eta
        self.k0 = gamma_student**2 / gamma

    def _averages(self, params, y0, y1):
        R, q0, d0, d1, z, lam = params
        gs, k0 = self.gs, self.k0
        s0, s1, sig = math.sqrt(k0 * d0), math.sqrt(k0 * d1), math.sqrt(k0 * q0)
        base = -0.5 * gs * (q0 + d0 + d1) - self.eta - lam + 0.5 * k0 * z
        p1 = expit(-self.eta)
        # the layer of G2 (where its slope m1 goes from 0 to 1) and of G1
        c2 = -0.5 * y1 * s1 * s1
        w2 = s1 / (1.0 + y1 * s1)
        c1 = c2 - 0.5 * y0 * s0 * s0
        w1 = math.hypot(s0, w2) / (1.0 + y0 * s0)
        out = np.zeros(9)
        for c_v, weight in ((base, 1.0 - p1), (base + gs * R, p1)):
            x0, wt0 = _nodes((c1 - c_v) / sig, w1 / sig)
            c0 = c_v + sig * x0
            # z1 of the inner layer, per outer node
            z1, wts, starts = _middle_nodes((c2 - c0) / s0, w2 / s0)
            owner = np.repeat(np.arange(c0.size), np.diff(np.append(starts, z1.size)))
            lnz, p, q, r, _ = _inner(c0[owner] + s0 * z1, s1, y1)
            g2 = lnz / y1
            # tilted weights of the middle level: exp(y0 G2) / M, M = <exp(y0 G2)>_z1
            shift = np.maximum.reduceat(y0 * g2, starts)
            e = wts * np.exp(y0 * g2 - shift[owner])
            norm = np.add.reduceat(e, starts)
            log_m = shift + np.log(norm)
            tilt = e / norm[owner]

            def mid(v, tilt=tilt, starts=starts):
                return np.add.reduceat(tilt * v, starts)

            m0 = mid(p)
            g1pp = mid(y1 * p * q + r) + y0 * (mid(p * p) - m0 * m0)
            inner = mid(y1 * p + r)
            p2 = mid(p * p)
            rows = np.stack(
                [log_m / y0, m0, g1pp, m0 * m0, inner, m0, p2 - m0 * m0, mid(p * q), mid(r)]
            )
            acc = rows @ wt0
            out += weight * acc
        out[5] = acc[5]  # <m0> over informative examples (the last pass, V = 1)
        # <G1>, <m0>, <G1''>, <m0^2>, <<y1 p + r>_t1>, <m0>_1, <<p^2>_t1 - m0^2>, <<p q>_t1>,
        # <<r>_t1> (<.>_t1: the middle level's tilted average)
        return out

    def functional(self, params, y0, y1):
        R, q0, d0, d1, z, lam = params
        la, lb = z, z + y1 * d1
        lc = lb + y0 * d0
        g1 = self._averages(params, y0, y1)[0]
        return (
            0.5 * (q0 + d0 + d1)
            - math.log(lb / la) / (2.0 * y1)
            - math.log(lc / lb) / (2.0 * y0)
            - (q0 - R * R) / (2.0 * lc)
            - self.alpha * g1
            - _g_star(lam, self.gs)
        )

    def gradient(self, params, y0, y1):
        """df2/d(R, q0, D0, D1, z, lambda) (derivation, section 8)."""
        R, q0, d0, d1, z, lam = params
        a, gs, k0 = self.alpha, self.gs, self.k0
        _g1, m0, g1pp, m0sq, inner, m0_1 = self._averages(params, y0, y1)[:6]
        lb = z + y1 * d1
        lc = lb + y0 * d0
        x = q0 - R * R
        g_q0 = 0.5 - 0.5 / lc - 0.5 * a * k0 * g1pp + 0.5 * a * gs * m0
        return np.array(
            [
                R / lc - a * gs * expit(-self.eta) * m0_1,
                g_q0,
                g_q0 + 0.5 * y0 * x / lc**2 - 0.5 * a * k0 * y0 * m0sq,
                0.5
                - 0.5 / lb
                - 0.5 * (y1 / y0) * (1.0 / lc - 1.0 / lb)
                + 0.5 * y1 * x / lc**2
                - 0.5 * a * k0 * inner
                + 0.5 * a * gs * m0,
                -0.5 * (1.0 / lb - 1.0 / z) / y1
                - 0.5 * (1.0 / lc - 1.0 / lb) / y0
                + 0.5 * x / lc**2
                - 0.5 * a * k0 * m0,
                a * m0 + 1.0 / gs - 0.5 / lam,
            ]
        )

    def fixed_point(self, params, y0, y1):
        """The stationarity conditions in fixed-point form, as logs (derivation, section 8).

        R = L_c a gs p1 <m0>_1, q0 = R^2 + L_c^2 a k0 <m0^2>,
        D0 = L_b L_c a k0 <<p^2>_t1 - m0^2>, D1 = z L_b a k0 <<p q>_t1>,
        1/z = 1 + a gs <m0> - a k0 <<r>_t1>, lambda = gs / (2 (1 + gs a <m0>)).
        """
        R, q0, d0, d1, z, lam = params
        a, gs, k = self.alpha, self.gs, self.alpha * self.k0
        _g1, m0, _g1pp, m0sq, _inner, m0_1, var_mid, var_in, r = self._averages(params, y0, y1)
        lb = z + y1 * d1
        lc = lb + y0 * d0
        inv_z = 1.0 + a * gs * m0 - k * r
        if not (inv_z > 0.0 and var_mid > 0.0 and var_in > 0.0 and m0_1 > 0.0):
            return np.full(6, np.nan)
        return np.log(
            [
                R / (lc * a * gs * expit(-self.eta) * m0_1),
                q0 / (R * R + lc * lc * k * m0sq),
                d0 / (lb * lc * k * var_mid),
                d1 / (z * lb * k * var_in),
                z * inv_z,
                2.0 * lam * (1.0 + gs * a * m0) / gs,
            ]
        )

    def y_gradient(self, params, y0, y1, h=1e-4):
        """``(y0^2 df2/dy0, y1^2 df2/dy1)`` at fixed order parameters (differences in ln y)."""
        f = self.functional
        d0 = (f(params, y0 * math.exp(h), y1) - f(params, y0 * math.exp(-h), y1)) / (2.0 * h)
        d1 = (f(params, y0, y1 * math.exp(h)) - f(params, y0, y1 * math.exp(-h))) / (2.0 * h)
        return np.array([y0 * d0, y1 * d1])

    def solve(self, params, y0, y1, *, tol=1e-10):
        """The stationary point at fixed (y0, y1) from ``params``."""
        res = newton(
            lambda x: self.fixed_point(np.exp(x), y0, y1),
            np.log(params),
            tol=tol,
            max_iter=40,
            raise_on_failure=False,
        )
        return np.exp(res.x), res.converged

    def solve_static(self, params, y0, y1, *, tol=1e-8):
        """The static 2RSB point: stationary in the order parameters and in (y0, y1).

        Newton in (ln y0, ln y1) on ``(y0^2 df2/dy0, y1^2 df2/dy1) / alpha`` (the envelope
        derivatives at the fixed-y stationary point, warm-started). Returns
        ``(params, (y0, y1), converged, residual)``.
        """
        warm = {"p": np.asarray(params, dtype=float)}

        def residual(log_y):
            ys = np.exp(log_y)
            p, ok = self.solve(warm["p"], *ys)
            if not ok:
                return np.full(2, np.nan)
            warm["p"] = p
            return self.y_gradient(p, *ys) / self.alpha

        res = newton(
            residual, np.log([y0, y1]), tol=tol, fd_step=1e-3, max_iter=20, raise_on_failure=False
        )
        ys = np.exp(res.x)
        p, _ = self.solve(warm["p"], *ys)
        return p, ys, res.converged, res.residual
