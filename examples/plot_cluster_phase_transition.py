"""
Deterministic annealing: the phase transition at the critical temperature
==========================================================================

Maximum-entropy clustering assigns a point ``x`` to code vector ``y_k`` with
the Gibbs probability ``p(k|x) ∝ exp(-|x - y_k|^2 / T)``. Above the critical
temperature ``T_c = 2 λ_max`` (``λ_max`` the largest eigenvalue of the data
covariance) the only stable fixed point puts every code vector at the mean;
below it the code vectors split along the principal axis (Rose 1998).

For two Gaussian clusters at ``±μ e₁`` with variance ``s²`` per component the
half-distance ``y`` between two code vectors follows, for ``n → ∞``, the
fixed-point equation ``y = E[x tanh(2 x y / T)]`` of the projection ``x`` on
``e₁``. We draw it as a line next to
:class:`~statmechlearn.cluster.DeterministicAnnealing` at fixed temperature on
finite samples (markers, mean ± SE over independent data sets), and
:func:`~statmechlearn.theory.annealing.critical_temperature` as a vertical line.
"""

import matplotlib.pyplot as plt
import numpy as np

from statmechlearn.cluster import DeterministicAnnealing
from statmechlearn.theory.annealing import critical_temperature

mu, s = 1.0, 0.5  # cluster centres at +-mu e_1, standard deviation s per component
population_covariance = np.diag([mu**2 + s**2, s**2])
T_c = critical_temperature(population_covariance)  # 2 (mu^2 + s^2) = 2.5

# %%
# Theory: the population fixed point, by Gauss–Hermite quadrature over the
# projection ``x = ±mu + s z`` (both clusters give the same integral).
z, w = np.polynomial.hermite_e.hermegauss(80)
w = w / w.sum()


def population_half_distance(T):
    y = 2.0 * mu  # start split; the iteration falls to 0 above T_c
    for _ in range(2000):
        x = mu + s * z
        y_new = float(np.sum(w * x * np.tanh(2.0 * x * y / T)))
        if abs(y_new - y) < 1e-12:
            break
        y = y_new
    return y


T_line = np.linspace(0.3, 3.0, 200)
y_line = [population_half_distance(T) for T in T_line]

# %%
# Simulation: fixed-temperature DA (``anneal=False``) from a slightly split
# start, iterated to convergence, on independent samples of 400 points.
T_sim = np.linspace(0.5, 3.0, 11)
n_samples, n_runs = 400, 6
half_distance = np.empty((n_runs, T_sim.size))
for run in range(n_runs):
    rng = np.random.default_rng(run)
    labels = rng.integers(0, 2, n_samples)
    X = rng.normal(scale=s, size=(n_samples, 2))
    X[:, 0] += np.where(labels == 1, mu, -mu)
    for j, T in enumerate(T_sim):
        da = DeterministicAnnealing(
            n_clusters=2,
            anneal=False,
            temperature=T,
            mass_constrained=False,
            init=np.array([[0.1, 0.0], [-0.1, 0.0]]),
            tol=1e-8,  # near T_c the fixed-point iteration slows down: converge fully
            max_iter=3000,
        ).fit(X)
        c = da.cluster_centers_
        half_distance[run, j] = np.linalg.norm(c[0] - c[1]) / 2
mean = half_distance.mean(axis=0)
se = half_distance.std(axis=0, ddof=1) / np.sqrt(n_runs)

# %%
fig, ax = plt.subplots(figsize=(6.4, 4.2))
ax.plot(T_line, y_line, color="C0", label="theory: population fixed point (n → ∞)")
ax.axvline(T_c, color="0.4", ls="--", label=r"theory: $T_c = 2\lambda_{\max}$")
ax.errorbar(
    T_sim,
    mean,
    yerr=se,
    fmt="o",
    color="C1",
    capsize=3,
    label=f"simulation: DA, n = {n_samples} (mean ± SE, {n_runs} runs)",
)
ax.set_xlabel("temperature $T$")
ax.set_ylabel("half-distance between code vectors")
ax.legend()
fig.tight_layout()
