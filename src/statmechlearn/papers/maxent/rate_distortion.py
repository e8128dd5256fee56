"""Rate distortion and the information bottleneck (lecture notes §4.3-4.4): Blahut-Arimoto
and the library's annealers against the closed forms.
"""

import functools
import math
import time
import warnings

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    Measurement,
    measure,
    padded,
    subplots,
)
from statmechlearn.papers.maxent._common import CITATION, PAPER

__all__ = ["RD_IB"]


_D_GRID = np.array([0.05, 0.1, 0.2, 0.3, 0.4])


_IB_JOINT = [(0, 0), (0, 2), (1, 2), (2, 1), (2, 2)]


def _binary_entropy(p):
    return -(p * np.log2(p) + (1 - p) * np.log2(1 - p))


def _joint():
    J = np.zeros((3, 3))
    for a, b in _IB_JOINT:
        J[a, b] = 0.2
    return J


_D_DENSE = np.linspace(1e-3, 0.5, 200)


_IB_BETA = 10.0


@functools.cache
def _ib_optimum_by_direct_search(beta=_IB_BETA, n_starts=12, seed=0):
    """(I(X;T), I(T;Y)) in bits at the minimum of I(X;T) - beta I(T;Y) over all encoders.

    The reference the annealed bottleneck is held to, found by another
    route: no self-consistent iteration and no annealing, but quasi-Newton
    descent of the Lagrangian itself over every stochastic encoder p(t|x)
    (softmax logits) with |T| = |X| + 1 (enough for the optimum, Witsenhausen
    and Wyner), best of ``n_starts`` random starts. Starts agree to about
    1e-6 bits (the optimum is nearly deterministic, so the logits run off
    along a flat direction: the gradient tolerance is tight for that).
    """
    from scipy.optimize import minimize
    from scipy.special import softmax, xlogy

    J = _joint()
    px, py = J.sum(axis=1), J.sum(axis=0)
    n_x, n_t = len(px), len(px) + 1

    def informations(z):
        q = softmax(z.reshape(n_x, n_t), axis=1)
        pt = px @ q
        pxt, pty = px[:, None] * q, q.T @ J
        ixt = np.sum(xlogy(pxt, q / np.where(pt > 0, pt, 1.0)))
        ity = np.sum(xlogy(pty, pty / np.maximum(pt[:, None] * py[None, :], 1e-300)))
        return ixt / math.log(2), ity / math.log(2)

    def lagrangian(z):
        ixt, ity = informations(z)
        return ixt - beta * ity

    rng = np.random.default_rng(seed)
    best = min(
        (
            minimize(
                lagrangian,
                rng.normal(scale=3.0, size=n_x * n_t),
                method="BFGS",
                options={"gtol": 1e-12, "maxiter": 10_000},
            )
            for _ in range(n_starts)
        ),
        key=lambda r: r.fun,
    )
    return informations(best.x)


def _rd_theory(point, settings):
    J = _joint()
    s = np.linalg.svd(J / np.sqrt(np.outer(J.sum(1), J.sum(0))), compute_uv=False)
    px, py = J.sum(1), J.sum(0)
    mi = float(np.sum(J[J > 0] * np.log2(J[J > 0] / np.outer(px, py)[J > 0])))
    return {
        "theory_rate": 1.0 - _binary_entropy(_D_GRID),
        "theory_rate_dense": 1.0 - _binary_entropy(_D_DENSE),
        "theory_mi": np.array(mi),
        "theory_beta_c": np.array(1.0 / s[1] ** 2),
    }


def _rd_simulation(point, settings, rng):
    from statmechlearn.cluster import InformationBottleneck, rate_distortion

    # Every (D, R) point of the Blahut-Arimoto curve, over a dense beta grid, must lie on
    # 1 - H(D); the plotted points are the optima at the slopes beta = ln((1 - D) / D).
    curve = rate_distortion(np.array([0.5, 0.5]), 1.0 - np.eye(2), np.geomspace(0.05, 60, 400))
    inside = curve.distortion < 0.5 - 1e-9
    deviation = np.abs(curve.rate[inside] - (1.0 - _binary_entropy(curve.distortion[inside])))
    at_grid = rate_distortion(
        np.array([0.5, 0.5]), 1.0 - np.eye(2), np.log((1 - _D_GRID) / _D_GRID)
    )
    seed = int(rng.integers(2**31 - 1))
    start = time.perf_counter()
    # the grid is in the paper's beta; the estimator anneals in T = 1/beta
    ib = InformationBottleneck(min_temperature=1.0 / point["beta_max"], random_state=seed)
    ib.fit(_joint())
    ours_s = time.perf_counter() - start
    n = settings["n_curve"]
    out = {
        "sim_rate": at_grid.rate,
        "sim_distortion": at_grid.distortion,
        "sim_rd_deviation": np.array(float(deviation.max())),
        "sim_rd_points": np.array(int(inside.sum())),
        "sim_ib_xt": np.array(ib.information_xt_[-1]),
        "sim_ib_ty": np.array(ib.information_ty_[-1]),
        "sim_first_transition": np.array(1.0 / ib.transitions_[0] if ib.transitions_ else math.nan),
        "sim_ib_seconds": np.array(ours_s),
        # the IB path as computed: one optimum per beta, NaN-padded (no resampling)
        "sim_curve_xt": padded(ib.information_xt_, n),
        "sim_curve_ty": padded(ib.information_ty_, n),
        "sim_dit_seconds": np.array(math.nan),
        "sim_dit_deviation": np.array(math.nan),
        "sim_dit_mi": np.array(math.nan),
    }
    try:
        import dit
        from dit.multivariate import coinformation
        from dit.rate_distortion import IBCurve
    except ImportError:  # dit is an optional peer: the checks that need it are skipped
        return out
    dist = dit.Distribution([f"{a}{b}" for a, b in _IB_JOINT], [0.2] * 5)
    out["sim_dit_mi"] = np.array(float(coinformation(dist, [[0], [1]])))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer = IBCurve(dist, beta_max=point["beta_max"])
    out["sim_dit_seconds"] = np.array(time.perf_counter() - start)
    cx, ry = np.asarray(peer.complexities), np.asarray(peer.relevances)
    order = np.argsort(cx)
    # Our points are optima at their beta; dit's 101 points are dense, so read dit's curve
    # at ours (the chord error of dit's grid is what remains).
    inside = ib.information_xt_ <= cx.max()
    dev = np.abs(
        np.interp(ib.information_xt_[inside], cx[order], ry[order]) - ib.information_ty_[inside]
    )
    out["sim_dit_deviation"] = np.array(float(dev.max()))
    return out


def _plot_rd_ib(ds, ax=None):
    _, ax = subplots(ax, 1, 2, figsize=(10, 4.2))
    d = ds.isel(beta_max=0)
    ax[0].plot(ds["distortion_dense"], d["theory_rate_dense"], "k-", label="theory: 1 − H(D)")
    first = d.isel(seed=0)
    ax[0].plot(first["sim_distortion"], first["sim_rate"], "C3o", label="Blahut–Arimoto")
    ax[0].set_xlabel("D (Hamming)")
    ax[0].set_ylabel("R(D), bits")
    ax[0].legend()
    ax[0].set_title("fair coin", fontsize=9)
    ax[1].plot(first["sim_curve_xt"], first["sim_curve_ty"], "C0.-", ms=3, label="annealed IB")
    ax[1].axhline(float(d["theory_mi"]), color="0.6", ls=":", label="I(X;Y)")
    ax[1].plot(*_ib_optimum_by_direct_search(), "kx", ms=8, label="β = 10 (direct search)")
    ax[1].set_xlabel("I(X;T), bits")
    ax[1].set_ylabel("I(T;Y), bits")
    ax[1].legend(fontsize=8)
    ratio = (d["sim_dit_seconds"] / d["sim_ib_seconds"]).where(d["sim_done"])
    if np.isfinite(ratio.values).any():
        title = f"joint {{00,02,12,21,22}}; dit IBCurve / ours time = {float(ratio.median()):.0f}×"
    else:
        title = "joint {00,02,12,21,22} (dit not installed)"
    ax[1].set_title(title, fontsize=9)
    return ax


def _rd_checks(settings):
    def sim(var, agg="mean"):
        def compute(ds):
            v = ds[var].where(ds["sim_done"])
            if agg == "mean":
                return measure(v.values)
            return float(getattr(v, agg)()), None

        return compute

    def seeds(ds, var):
        v = ds[var].isel(beta_max=0)
        return v.values[ds["sim_done"].isel(beta_max=0).values.astype(bool)]

    def rd_grid(ds):
        dev = np.abs(seeds(ds, "sim_rate") - ds["theory_rate"].isel(beta_max=0).values)
        return float(dev.max()), None

    def transition_ratio(agg):
        def compute(ds):
            r = seeds(ds, "sim_first_transition") / float(ds["theory_beta_c"].isel(beta_max=0))
            return Measurement(
                float(getattr(np, agg)(r)), None, r.size, int(np.sum(~np.isfinite(r)))
            )

        return compute

    def speed(ds):
        return measure(seeds(ds, "sim_dit_seconds") / seeds(ds, "sim_ib_seconds"))

    return [
        Derived(
            "max |R − (1 − H(D))| over 400 Blahut–Arimoto points (D, R), bits",
            lambda ds: (float(seeds(ds, "sim_rd_deviation").max()), None),
            upper=1e-9,
            source="simulation",
        ),
        Derived(
            "max |R(D) − (1 − H(D))| at the plotted D = 0.05 … 0.4, bits",
            rd_grid,
            upper=1e-9,
            source="simulation",
        ),
        Derived(
            "I(X;Y), bits: ours (closed form) vs dit's mutual information",
            lambda ds: (float(ds["theory_mi"].max()), None),
            target=lambda ds: float(np.nanmean(seeds(ds, "sim_dit_mi"))),
            tolerance=1e-12,
            requires=("dit",),
        ),
        Derived(
            "I(X;T) at β = 10, bits",
            sim("sim_ib_xt"),
            source="simulation",
            reference_value=_ib_optimum_by_direct_search()[0],
            reference_tolerance=1e-4,
            reference_source=(
                "the Lagrangian minimised directly over every encoder (BFGS, 12 random starts)"
            ),
        ),
        Derived(
            "I(T;Y) at β = 10, bits",
            sim("sim_ib_ty"),
            source="simulation",
            reference_value=_ib_optimum_by_direct_search()[1],
            reference_tolerance=1e-4,
            reference_source=(
                "the Lagrangian minimised directly over every encoder (BFGS, 12 random starts)"
            ),
        ),
        # The path's beta grows by 1.05 per step, and a split shows one step after it is
        # possible: the first transition is seen in [beta_c, 1.05^2 beta_c].
        Derived(
            "first transition / (1/s₂²), largest",
            transition_ratio("max"),
            upper=1.05**2 + 1e-9,
            source="simulation",
        ),
        Derived(
            "first transition / (1/s₂²), smallest",
            transition_ratio("min"),
            lower=1.0,
            source="simulation",
        ),
        Derived(
            "max |I(T;Y) ours − dit IBCurve| on the curve, bits (dit's grid is dense: its chord "
            "error is what remains)",
            lambda ds: (float(np.max(seeds(ds, "sim_dit_deviation"))), None),
            upper=1e-4,
            source="simulation",
            requires=("dit",),
        ),
        Derived(
            "speed: dit IBCurve time / ours (mean ± SE over runs)",
            speed,
            source="simulation",
            reported=True,
            requires=("dit",),
        ),
    ]


RD_IB = FigureSpec(
    name="maxent-rd-ib",
    paper=PAPER,
    citation=CITATION,
    figure="§4.3–4.4 checks",
    caption=(
        "Left: rate–distortion of a fair coin under Hamming distortion, Blahut–Arimoto "
        "against R(D) = 1 − H(D). Right: the information-bottleneck curve of the joint "
        "{00, 02, 12, 21, 22} (each 1/5), annealed in β up to 10 with a cluster split "
        "at each phase transition; the first at β = 1/s₂² (s₂ the second singular value "
        "of p(x,y)/√(p(x)p(y))). dit's IBCurve (random restarts per β) computes the "
        "same curve; its run time over ours is in the title."
    ),
    grid={"beta_max": (10.0,)},
    settings={
        "quick": {"n_seeds": 2, "n_curve": 200},
        "full": {"n_seeds": 5, "n_curve": 200},
    },
    outputs={
        "theory_rate": ("distortion",),
        "theory_rate_dense": ("distortion_dense",),
        "theory_mi": (),
        "theory_beta_c": (),
        "sim_rate": ("distortion",),
        "sim_distortion": ("distortion",),
        "sim_rd_deviation": (),
        "sim_rd_points": (),
        "sim_ib_xt": (),
        "sim_ib_ty": (),
        "sim_first_transition": (),
        "sim_ib_seconds": (),
        "sim_dit_seconds": (),
        "sim_dit_deviation": (),
        "sim_dit_mi": (),
        "sim_curve_xt": ("curve_point",),
        "sim_curve_ty": ("curve_point",),
    },
    coords=lambda s: {
        "distortion": _D_GRID,
        "distortion_dense": _D_DENSE,
        "curve_point": np.arange(s["n_curve"]),
    },
    peers=("dit",),
    theory=_rd_theory,
    simulation=_rd_simulation,
    plot=_plot_rd_ib,
    checks=_rd_checks,
    base_seed=20261122,
)
