"""Posterior agreement as a communication protocol: error against rate and the capacity."""

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    Measurement,
    mean_se,
    plot_simulation,
    simulation_label,
    subplots,
)
from statmechlearn.papers.selection._common import CITATION, PAPER, _binomial

__all__ = ["PROTOCOL"]


#: Nominal rates (nats per object); with n = 8 objects M = round(e^{nR}) = 2, 3, 11, 55, 270,
#: 1339, 6634 codewords. The capacity of the setting below is about 0.49 nats.
_PROTOCOL_RATES = (0.09, 0.14, 0.3, 0.5, 0.7, 0.9, 1.1)


_PROTOCOL_OBJECTS = 8


_PROTOCOL_BETA = 0.5


_LOW = (0.09, 0.14)


_HIGH = 1.1


def _protocol_simulation(point, settings, rng):
    from statmechlearn.model_selection import simulate_protocol

    # two unit-variance blobs 3 apart, 40 points each
    X = np.vstack([rng.normal(c, 1.0, (40, 2)) for c in [(0, 0), (3, 0)]])
    res = simulate_protocol(
        X,
        2,
        _PROTOCOL_RATES,
        n_objects=_PROTOCOL_OBJECTS,
        beta=_PROTOCOL_BETA,
        n_trials=settings["n_trials"],
        random_state=rng,
    )
    return {
        "sim_error": res.error_rate,
        "sim_union_bound": res.union_bound,
        "sim_used_rate": res.rates,
        "sim_capacity": np.array(res.capacity),
        "sim_capacity_se": np.array(res.capacity_se),
    }


def _pooled_error(ds, rates, n_trials):
    done = ds["sim_done"].values.astype(bool).ravel()
    v = ds["sim_error"].sel(rate=list(rates)).values.reshape(done.size, -1)[done]
    n = v.size * n_trials
    p = float(v.mean())
    return Measurement(p, _binomial(p, n))


def _capacity(ds):
    # each seed's capacity is a mean over its trials: combine their SEs (trials are independent)
    done = ds["sim_done"].values.astype(bool).ravel()
    c = ds["sim_capacity"].values.ravel()[done]
    se = ds["sim_capacity_se"].values.ravel()[done]
    return Measurement(float(c.mean()), float(np.sqrt(np.sum(se**2)) / c.size))


def _capacity_over_low_rate(ds):
    c = _capacity(ds)
    return Measurement(c.value / _LOW[1], c.se / _LOW[1])


def _plot_protocol(ds, ax=None):
    _, ax = subplots(ax, figsize=(5.5, 3.8))
    done = ds["sim_done"]
    rate, _ = mean_se(ds["sim_used_rate"].where(done))
    err, se = mean_se(ds["sim_error"].where(done))
    bound, _ = mean_se(ds["sim_union_bound"].where(done))
    cap = _capacity(ds)
    label = simulation_label(done.sum("seed"), "decoding error, simulation")
    plot_simulation(ax, np.ravel(rate), np.ravel(err), np.ravel(se), label=label)
    ax.plot(np.ravel(rate), np.ravel(bound), "-", color="C1", label="theory: union bound (§8.5)")
    ax.axvline(cap.value, color="C3", ls="--", label=f"capacity {cap.value:.2f} nats")
    ax.set_xlabel(r"rate $R = \log(M)/n$ [nats per object]")
    ax.set_ylabel("P(wrong transformation decoded)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)
    return ax


def _protocol_checks(settings):
    n_trials = settings["n_trials"]
    return [
        Derived(
            f"decoding error at R ≈ {_LOW[0]}, {_LOW[1]} (below capacity / 2; §8.4: ≈ 0)",
            lambda ds: _pooled_error(ds, _LOW, n_trials),
            target=0.0,
            scale=1.0,
            source="simulation",
            note="binomial SE over all trials of all seeds, floored at one error in n",
        ),
        Derived(
            "approximation capacity / the second-lowest rate (≥ 2: the low rates are "
            "well below capacity)",
            _capacity_over_low_rate,
            lower=2.0,
            source="simulation",
        ),
        Derived(
            f"decoding error at R ≈ {_HIGH} (about twice the capacity; > 0)",
            lambda ds: _pooled_error(ds, (_HIGH,), n_trials),
            lower=0.0,
            scale=1.0,
            source="simulation",
            note="binomial SE over all trials of all seeds",
        ),
        Derived(
            "approximation capacity (permutation codebook, nats per object)",
            _capacity,
            source="simulation",
            reported=True,
        ),
    ] + [
        Derived(
            f"decoding error at R ≈ {r}",
            lambda ds, r=r: _pooled_error(ds, (r,), n_trials),
            source="simulation",
            reported=True,
        )
        for r in _PROTOCOL_RATES
    ]


PROTOCOL = FigureSpec(
    name="selection-protocol",
    paper=PAPER,
    citation=CITATION,
    figure="§8.4–8.5: the approximation-set-coding protocol",
    caption=(
        "The two-instance communication protocol of approximation set coding (§8.4), "
        "simulated by simulate_protocol: two blobs (σ = 1, centres 3 apart, 80 points), "
        "k = 2 by k-means, Boltzmann weights at β = 0.5, n = 8 common objects; sender and "
        "receiver share M = e^{nR} random object permutations, the receiver decodes the one "
        "whose agreement kernel with its own instance is largest. Markers: decoding error "
        "± binomial SE over trials and seeds; line: the union (Markov) bound of §8.5, "
        "(M − 1)·E[k_τ/k], averaged over seeds; dashed: the measured approximation capacity "
        "(permutation codebook). Below the capacity the error vanishes; above it decoding "
        "fails more and more often."
    ),
    grid={"setting": ("two blobs, 3σ apart",)},
    settings={
        "quick": {"n_seeds": 2, "n_trials": 50},
        "full": {"n_seeds": 10, "n_trials": 150},
    },
    outputs={
        "sim_error": ("rate",),
        "sim_union_bound": ("rate",),
        "sim_used_rate": ("rate",),
        "sim_capacity": (),
        "sim_capacity_se": (),
    },
    coords=lambda s: {"rate": np.array(_PROTOCOL_RATES)},
    simulation=_protocol_simulation,
    plot=_plot_protocol,
    checks=_protocol_checks,
    base_seed=20261303,
)
