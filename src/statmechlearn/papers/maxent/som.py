"""Kohonen's on-line map beside soft topographic VQ and MiniSom (lecture notes §3.5).

One figure, ``maxent-som``, three panels, every estimator on uniform data so
that the answer is known:

(a) a chain of ``k`` units on uniform ``[0, 1]``: an ordered map (topographic
    error 0) whose quantisation error is that of the fixed point of the mean
    on-line rule at the final neighbourhood width, computed exactly on the
    density (``_chain_fixed_point``); the ``k``-point optimum ``1 / (4 k)`` is
    shown beside it, the gap being the boundary effect of the neighbourhood;
(b) a square map on the uniform square: quantisation and topographic errors
    of all three, with their run time; the fixed point on the square is the
    product of the chain's (the neighbourhood and the density factorise);
(c) the zero-temperature limit: Kohonen's rule with a fixed neighbourhood and
    a slowly decaying learning rate against :class:`TopologicalVQ` annealed
    to a low temperature with the same width. Both approach fixed points of
    ``y_nu = sum_i T[c(i), nu] x_i / sum_i T[c(i), nu]``; they differ in the
    winner (nearest unit vs least expected cost) and in the normalisation of
    ``T`` (Kohonen's ``h(c, c) = 1``, the channel's rows sum to 1), which
    moves the end units by a predicted fraction of the unit spacing.

Errors are measured on a fresh sample of the same density, so that they
estimate the codebook's error on the density (a training-set error is
biased low by the fit to that sample, by about ``K d / n``).
``docs/derivations/topographic_vq.md`` derives the limit.
"""

import math
import time

import numpy as np

from statmechlearn._core.saddle import damped_fixed_point
from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    mean_se,
    measure,
    plot_simulation,
    plot_theory,
    subplots,
)
from statmechlearn.papers.maxent._common import CITATION, PAPER

__all__ = ["SOM", "chain_fixed_point", "square_quantization_error"]


_METHODS = ("KohonenSOM", "TopologicalVQ", "MiniSom")


_RULES = ("KohonenSOM", "TopologicalVQ")


_METRICS = ("quantization error", "topographic error", "seconds")


def _neighbourhood(k, sigma, normalised):
    g = np.arange(k, dtype=float)
    H = np.exp(-((g[:, None] - g[None, :]) ** 2) / (2.0 * sigma * sigma))
    return H / H.sum(axis=1, keepdims=True) if normalised else H


def _cell_edges(y, H, winner):
    """Edges of the winner cells of an ordered chain codebook on [0, 1]."""
    if winner == "nearest":
        inner = 0.5 * (y[1:] + y[:-1])
    else:
        # least expected cost: sum_nu H[mu, nu] (x - y_nu)^2 = x^2 - 2 x m_mu + q_mu is linear
        # in x after dropping x^2, so neighbouring cells meet where the lines cross
        m, q = H @ y, H @ (y * y)
        inner = (q[1:] - q[:-1]) / (2.0 * (m[1:] - m[:-1]))
    edges = np.concatenate([[0.0], np.clip(inner, 0.0, 1.0), [1.0]])
    if np.any(np.diff(edges) < 0):
        raise ValueError("the chain's cells are not ordered: no ordered fixed point here")
    return edges


def chain_fixed_point(k, sigma, rule):
    """Ordered fixed point of a SOM on the uniform density on ``[0, 1]``, exactly.

    ``y_nu = sum_mu H[mu, nu] int_{V_mu} x dx / sum_mu H[mu, nu] |V_mu|`` with
    the cells ``V_mu`` of the winner rule, iterated from equal cells.

    Parameters
    ----------
    k : int
        Units on the chain.
    sigma : float
        Neighbourhood width in grid units.
    rule : {"KohonenSOM", "TopologicalVQ"}
        "KohonenSOM": nearest-unit winner, ``H = exp(-d^2 / (2 sigma^2))``
        (the mean of the on-line rule); "TopologicalVQ": winner of least
        expected cost, ``H`` with rows normalised (the zero-temperature
        noisy-channel fixed point).

    Returns
    -------
    ndarray of shape (k,)
    """
    normalised = rule == "TopologicalVQ"
    H = _neighbourhood(k, sigma, normalised)
    winner = "weighted" if normalised else "nearest"

    def update(y):
        edges = _cell_edges(y, H, winner)
        mass, first = np.diff(edges), 0.5 * np.diff(edges**2)
        return (H.T @ first) / (H.T @ mass)

    return damped_fixed_point(update, (np.arange(k) + 0.5) / k, tol=1e-14, max_iter=200000).x


def _chain_quantization_error(y):
    """Mean |x - nearest unit| on the uniform density, exactly."""
    edges = _cell_edges(y, None, "nearest")
    return float(np.sum(((y - edges[:-1]) ** 2 + (edges[1:] - y) ** 2) / 2.0))


def _corner_integral(a, b):
    """``int_0^a int_0^b sqrt(x^2 + y^2) dy dx``."""
    if a <= 0.0 or b <= 0.0:
        return 0.0
    r = math.hypot(a, b)
    return (2.0 * a * b * r + a**3 * math.log((b + r) / a) + b**3 * math.log((a + r) / b)) / 6.0


def square_quantization_error(u):
    """Mean distance to the nearest unit of the product codebook ``u x u``, uniform square.

    Each Voronoi cell of a product codebook is a rectangle around its unit,
    split into four corner rectangles.

    Parameters
    ----------
    u : ndarray of shape (side,)
        Sorted positions on one axis.

    Returns
    -------
    float
    """
    edges = _cell_edges(u, None, "nearest")
    lo, hi = u - edges[:-1], edges[1:] - u
    return float(
        sum(
            _corner_integral(a, b)
            for i in range(len(u))
            for j in range(len(u))
            for a in (lo[i], hi[i])
            for b in (lo[j], hi[j])
        )
    )


def _inset(y):
    """Mean distance of the two end units from the ends of [0, 1], sorted codebook."""
    return 0.5 * (y[0] + 1.0 - y[-1])


def _som_theory(point, settings):
    k, side, s = settings["chain_units"], settings["square_side"], settings["zero_sigma"]
    sigma = point["final_sigma"]
    chain = np.array([chain_fixed_point(k, sigma, r) for r in _RULES])
    square = [chain_fixed_point(side, sigma, r) for r in _RULES]
    zero = np.array([chain_fixed_point(k, s, r) for r in _RULES])
    return {
        "theory_chain_offset": chain * k - (np.arange(k) + 0.5),
        "theory_chain_qe": np.array([_chain_quantization_error(y) for y in chain]),
        "theory_optimum_qe": np.array(1.0 / (4.0 * k)),
        "theory_square_qe": np.array([square_quantization_error(u) for u in square]),
        "theory_zero_difference": (zero[0] - zero[1]) * k,
        "theory_zero_inset": np.array([_inset(y) * k for y in zero]),
        "theory_zero_rms": np.array(float(np.sqrt(np.mean((zero[0] - zero[1]) ** 2))) * k),
    }


def _oriented(y):
    """Chain codebook (k, 1) as positions, turned to increase from first to last unit."""
    y = np.asarray(y, dtype=float).ravel()
    return y if y[0] <= y[-1] else y[::-1]


def _ours(X, shape, sigma, settings, seed, passes=1):
    """KohonenSOM (two phases, ``passes`` times the epochs) and TopologicalVQ on ``X``."""
    from statmechlearn.cluster import KohonenSOM, TopologicalVQ

    start = time.perf_counter()
    # Kohonen's two phases: ordering with a shrinking neighbourhood, then convergence at the
    # final width with a decaying rate; without the second, the map lags behind the
    # schedule (it ends near the fixed point of a wider neighbourhood)
    som = KohonenSOM(
        shape, final_sigma=sigma, max_iter=passes * settings["epochs"], random_state=seed
    )
    som = KohonenSOM(
        shape,
        learning_rate=settings["fine_learning_rate"],
        final_learning_rate=settings["final_learning_rate"],
        sigma=sigma,
        final_sigma=sigma,
        max_iter=passes * settings["fine_epochs"],
        init=som.fit(X).cluster_centers_,
        random_state=seed,
    ).fit(X)
    som_s = time.perf_counter() - start
    start = time.perf_counter()
    tvq = TopologicalVQ(
        shape, sigma=sigma, cooling_rate=settings["cooling_rate"], random_state=seed
    ).fit(X)
    return [som.cluster_centers_, tvq.cluster_centers_], [som_s, time.perf_counter() - start]


def _fit_all(X, X_test, shape, sigma, settings, seed):
    """Fit the three maps on ``X``; errors on ``X_test``; codebooks in grid order.

    Also returns our two maps' quantisation errors extrapolated to ``n -> inf``: a
    codebook fitted to ``n`` points scatters about the density's fixed point with
    variance ~ 1/n, and the error is quadratic about its mean, so it exceeds the fixed
    point's by ~ c/n; fits to ``n`` and ``n/4`` points give ``(4 e_n - e_{n/4}) / 3``.
    """
    from statmechlearn.cluster import quantization_error, topographic_error

    books, seconds = _ours(X, shape, sigma, settings, seed)
    try:
        from minisom import MiniSom
    except ImportError:  # pragma: no cover - minisom is a dev dependency
        books.append(np.full_like(books[0], math.nan))
        seconds.append(math.nan)
    else:
        start = time.perf_counter()
        # MiniSom's asymptotic decay ends at a third of its initial width: start at 3 sigma
        grid = (1, shape[0]) if len(shape) == 1 else shape
        peer = MiniSom(
            *grid, X.shape[1], sigma=3.0 * sigma, learning_rate=0.5, random_seed=seed % 2**31
        )
        peer.random_weights_init(X)
        # as many on-line steps as KohonenSOM's two phases
        epochs = settings["epochs"] + settings["fine_epochs"]
        peer.train(X, epochs * X.shape[0], random_order=True)
        books.append(peer.get_weights().reshape(-1, X.shape[1]))
        seconds.append(time.perf_counter() - start)
    rows = [
        [quantization_error(X_test, b), topographic_error(X_test, b, shape), t]
        if np.all(np.isfinite(b))
        else [math.nan] * 3
        for b, t in zip(books, seconds, strict=True)
    ]
    # four times the epochs: the same on-line steps, so only the sample size differs
    quarter, _ = _ours(X[: X.shape[0] // 4], shape, sigma, settings, seed, passes=4)
    limit = [
        (4.0 * rows[j][0] - quantization_error(X_test, quarter[j])) / 3.0
        for j in range(len(_RULES))
    ]
    return np.array(rows), books, np.array(limit)


def _som_simulation(point, settings, rng):
    from statmechlearn.cluster import KohonenSOM, TopologicalVQ

    seed = int(rng.integers(2**31 - 1))
    k, side, s = settings["chain_units"], settings["square_side"], settings["zero_sigma"]
    sigma = point["final_sigma"]
    n_test = settings["n_test"]

    x = rng.uniform(0.0, 1.0, (settings["n_chain"], 1))
    chain, books, chain_limit = _fit_all(
        x, rng.uniform(0.0, 1.0, (n_test, 1)), (k,), sigma, settings, seed
    )
    chain_offsets = np.array([_oriented(b) * k - (np.arange(k) + 0.5) for b in books])

    X = rng.uniform(0.0, 1.0, (settings["n_square"], 2))
    square, _, square_limit = _fit_all(
        X, rng.uniform(0.0, 1.0, (n_test, 2)), (side, side), sigma, settings, seed
    )

    # (c): a fixed neighbourhood, the learning rate decaying slowly to a small value; more
    # points, since each codebook scatters about the density's fixed point as n^-1/2
    x = rng.uniform(0.0, 1.0, (settings["n_zero"], 1))
    som = KohonenSOM(
        k,
        sigma=s,
        final_sigma=s,
        final_learning_rate=settings["final_learning_rate"],
        max_iter=settings["zero_epochs"],
        random_state=seed,
    ).fit(x)
    tvq = TopologicalVQ(k, sigma=s, cooling_rate=settings["cooling_rate"], random_state=seed)
    tvq.fit(x)
    zero = np.array([_oriented(som.cluster_centers_), _oriented(tvq.cluster_centers_)])
    return {
        "sim_chain": chain,
        "sim_chain_qe_limit": chain_limit,
        "sim_chain_offset": chain_offsets,
        "sim_square": square,
        "sim_square_qe_limit": square_limit,
        "sim_zero_difference": (zero[0] - zero[1]) * k,
        "sim_zero_inset": np.array([_inset(y) * k for y in zero]),
        "sim_zero_rms": np.array(float(np.sqrt(np.mean((zero[0] - zero[1]) ** 2))) * k),
    }


def _done(ds):
    return ds.isel(final_sigma=0).where(ds["sim_done"].isel(final_sigma=0))


def _plot_som(ds, ax=None):
    _, ax = subplots(ax, 1, 3, figsize=(15, 4.4))
    sel = _done(ds)
    th = ds.isel(final_sigma=0)
    units = ds["unit"].values
    for j, method in enumerate(_METHODS):
        m, se = mean_se(sel["sim_chain_offset"].sel(estimator=method))
        plot_simulation(
            ax[0], units, m, se, label=f"{method}, simulation (mean ± SE)", color=f"C{j}"
        )
        if method in _RULES:
            plot_theory(
                ax[0],
                units,
                th["theory_chain_offset"].sel(rule=method),
                label=f"{method} fixed point (theory)",
                color=f"C{j}",
            )
    ax[0].set_xlabel(r"unit $\nu$ on the chain")
    ax[0].set_ylabel(r"$(y_\nu - (\nu + \frac{1}{2})/k)\cdot k$  [unit spacings]")
    ax[0].set_title("(a) chain on uniform [0, 1]: codebook against equal cells", fontsize=9)
    ax[0].legend(fontsize=7)

    for j, method in enumerate(_METHODS):
        q = sel["sim_square"].sel(estimator=method)
        qm, qse = mean_se(q.sel(metric="quantization error"))
        tm, tse = mean_se(q.sel(metric="topographic error"))
        ax[1].errorbar(
            [qm], [tm], xerr=[qse], yerr=[tse], fmt="o", color=f"C{j}", capsize=3, label=method
        )
        if method in _RULES:
            ax[1].axvline(
                float(th["theory_square_qe"].sel(rule=method)),
                color=f"C{j}",
                lw=1.0,
                label=f"{method} fixed point (theory)",
            )
    ax[1].set_xlabel("quantisation error on fresh data (mean ± SE)")
    ax[1].set_ylabel("topographic error (mean ± SE)")
    ax[1].set_title("(b) square map on the uniform square", fontsize=9)
    ax[1].legend(fontsize=7)

    m, se = mean_se(sel["sim_zero_difference"])
    label = "KohonenSOM − TopologicalVQ, simulation (mean ± SE)"
    plot_simulation(ax[2], units, m, se, label=label, color="C3")
    plot_theory(
        ax[2],
        units,
        th["theory_zero_difference"],
        label="difference of the fixed points (theory)",
        color="C3",
    )
    ax[2].set_xlabel(r"unit $\nu$ on the chain")
    ax[2].set_ylabel("codebook difference [unit spacings]")
    ax[2].set_title(r"(c) fixed neighbourhood: on-line map vs $T \to 0$ channel map", fontsize=9)
    ax[2].legend(fontsize=7)
    return ax


def _som_checks(settings):
    def seeds(ds, var, **sel):
        v = ds[var].sel(sel).isel(final_sigma=0)
        return v.values[ds["sim_done"].isel(final_sigma=0).values.astype(bool)]

    def worst(var, method):
        return lambda ds: (
            float(np.max(seeds(ds, var, estimator=method, metric="topographic error"))),
            None,
        )

    def reported(var, method, metric):
        return Derived(
            f"{'chain' if var == 'sim_chain' else 'square'}: {method} {metric}, mean ± SE",
            lambda ds: measure(seeds(ds, var, estimator=method, metric=metric)),
            source="simulation",
            reported=True,
            requires=("minisom",) if method == "MiniSom" else (),
        )

    def projection(ds):
        # a linear functional of the measured difference: its noise averages out over seeds
        # (a norm of it would be biased upwards by the noise)
        d = ds["theory_zero_difference"].isel(final_sigma=0).values
        sim = seeds(ds, "sim_zero_difference")
        return measure(sim @ d / (d @ d))

    qe = {"metric": "quantization error"}
    checks = [
        Check(
            "(a) chain: KohonenSOM quantisation error (n → ∞) vs the fixed point at the final σ",
            ("theory_chain_qe", {"rule": "KohonenSOM"}),
            ("sim_chain_qe_limit", {"rule": "KohonenSOM"}),
        ),
        Check(
            "(a) chain: TopologicalVQ quantisation error (n → ∞) vs its T → 0 fixed point",
            ("theory_chain_qe", {"rule": "TopologicalVQ"}),
            ("sim_chain_qe_limit", {"rule": "TopologicalVQ"}),
        ),
        Derived(
            "(a) chain: KohonenSOM topographic error, worst seed (ordered map)",
            worst("sim_chain", "KohonenSOM"),
            upper=0.0,
            source="simulation",
        ),
        Derived(
            "(a) chain: TopologicalVQ topographic error, worst seed (ordered map)",
            worst("sim_chain", "TopologicalVQ"),
            upper=0.0,
            source="simulation",
        ),
        Derived(
            "(a) chain: KohonenSOM quantisation error × 4k (1 = k equal cells)",
            lambda ds: measure(
                seeds(ds, "sim_chain", estimator="KohonenSOM", **qe) * 4 * (settings["chain_units"])
            ),
            source="simulation",
            reported=True,
        ),
        Check(
            "(b) square: KohonenSOM quantisation error (n → ∞) vs the product fixed point",
            ("theory_square_qe", {"rule": "KohonenSOM"}),
            ("sim_square_qe_limit", {"rule": "KohonenSOM"}),
        ),
        Check(
            "(b) square: TopologicalVQ quantisation error (n → ∞) vs the product fixed point",
            ("theory_square_qe", {"rule": "TopologicalVQ"}),
            ("sim_square_qe_limit", {"rule": "TopologicalVQ"}),
        ),
        Derived(
            "(b) square: KohonenSOM topographic error, worst seed (ordered map)",
            worst("sim_square", "KohonenSOM"),
            upper=0.0,
            source="simulation",
        ),
    ]
    # every estimator's errors at the n it was fitted to (on fresh data), and its time
    checks += [
        reported(var, m, metric)
        for var in ("sim_chain", "sim_square")
        for metric in _METRICS
        for m in _METHODS
    ]
    checks += [
        # positions in unit spacings: the scale of a codebook is the spacing of its units
        Check(
            "(c) KohonenSOM, fixed σ: end-unit inset vs the on-line rule's fixed point",
            ("theory_zero_inset", {"rule": "KohonenSOM"}),
            ("sim_zero_inset", {"rule": "KohonenSOM"}),
            scale=1.0,
        ),
        Check(
            "(c) TopologicalVQ, T → 0: end-unit inset vs the channel's fixed point",
            ("theory_zero_inset", {"rule": "TopologicalVQ"}),
            ("sim_zero_inset", {"rule": "TopologicalVQ"}),
            scale=1.0,
        ),
        Derived(
            "(c) codebook difference KohonenSOM − TopologicalVQ projected on the predicted one",
            projection,
            target=1.0,
            target_from="theory (difference of the two fixed points)",
            scale=1.0,
            source="simulation",
        ),
        Derived(
            "(c) RMS codebook distance KohonenSOM − TopologicalVQ [spacings]",
            lambda ds: measure(seeds(ds, "sim_zero_rms")),
            source="simulation",
            reported=True,
        ),
        Derived(
            "(c) RMS codebook distance KohonenSOM − TopologicalVQ, below a quarter spacing",
            lambda ds: measure(seeds(ds, "sim_zero_rms")),
            upper=0.25,
            source="simulation",
        ),
    ]
    return checks


SOM = FigureSpec(
    name="maxent-som",
    paper=PAPER,
    citation=CITATION,
    figure="§3.5: the Kohonen map as the T → 0 limit of noisy-channel VQ",
    caption=(
        "KohonenSOM in Kohonen's two phases (ordering: Gaussian neighbourhood shrinking "
        "geometrically to σ = 0.5, learning rate 0.5 → 0.01; convergence: σ = 0.5 fixed, rate"
        " 0.05 → 0.002), TopologicalVQ (σ = 0.5, annealed) and MiniSom (σ = 1.5 → 0.5, "
        "asymptotic decay, as many on-line steps) on uniform data; errors on a fresh sample, "
        "the checks' quantisation errors extrapolated to n → ∞ from fits to n and n/4 points "
        "(the excess of a fitted codebook falls as 1/n). (a) A chain of 10 units on [0, 1]: "
        "codebook minus equal cells, in unit spacings; markers mean ± SE over seeds, lines "
        "the exact fixed points on the density (the mean on-line rule at σ = 0.5; the noisy "
        "channel at T → 0). The neighbourhood pulls the end units inwards, so the "
        "quantisation error sits about 1.3 % above the k-point optimum 1/(4k); uniform data "
        "have no interior magnification effect (Kohonen's exponent 2/3, Ritter & Schulten "
        "1986, would show on a non-uniform density). (b) Square maps on the unit square: "
        "quantisation error (vertical lines: the product fixed points) against topographic "
        "error, mean ± SE. (c) A fixed neighbourhood σ = 1: on-line Kohonen with a slowly "
        "decaying rate against TopologicalVQ annealed to T ≈ 10⁻³ var(x); markers their "
        "codebook difference, the line the difference of the two fixed points (nearest-unit "
        "winner and h(c, c) = 1 against the least-expected-cost winner and row-normalised T):"
        " a fraction of the spacing, largest at the ends."
    ),
    grid={"final_sigma": (0.5,)},
    settings={
        "quick": {
            "n_seeds": 10,
            "chain_units": 10,
            "n_chain": 1000,
            "square_side": 4,
            "n_square": 1000,
            "n_zero": 5000,
            "n_test": 20000,
            "epochs": 5,
            "cooling_rate": 0.9,
            "zero_sigma": 1.0,
            "zero_epochs": 30,
            "fine_epochs": 5,
            "fine_learning_rate": 0.05,
            "final_learning_rate": 0.002,
        },
        "full": {
            "n_seeds": 24,
            "chain_units": 10,
            "n_chain": 2000,
            "square_side": 5,
            "n_square": 1000,
            "n_zero": 10000,
            "n_test": 50000,
            "epochs": 10,
            "cooling_rate": 0.95,
            "zero_sigma": 1.0,
            "zero_epochs": 30,
            "fine_epochs": 10,
            "fine_learning_rate": 0.05,
            "final_learning_rate": 0.002,
        },
    },
    outputs={
        "theory_chain_offset": ("rule", "unit"),
        "theory_chain_qe": ("rule",),
        "theory_optimum_qe": (),
        "theory_square_qe": ("rule",),
        "theory_zero_difference": ("unit",),
        "theory_zero_inset": ("rule",),
        "theory_zero_rms": (),
        "sim_chain": ("estimator", "metric"),
        "sim_chain_qe_limit": ("rule",),
        "sim_chain_offset": ("estimator", "unit"),
        "sim_square": ("estimator", "metric"),
        "sim_square_qe_limit": ("rule",),
        "sim_zero_difference": ("unit",),
        "sim_zero_inset": ("rule",),
        "sim_zero_rms": (),
    },
    coords=lambda s: {
        "estimator": np.array(_METHODS),
        "rule": np.array(_RULES),
        "metric": np.array(_METRICS),
        "unit": np.arange(s["chain_units"]),
    },
    theory=_som_theory,
    simulation=_som_simulation,
    peers=("minisom",),
    plot=_plot_som,
    checks=_som_checks,
    base_seed=20261126,
)
