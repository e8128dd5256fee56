"""
Learning with outliers: EM with soft selection against its replica theory
==========================================================================

Dietrich & Opper's data: two Gaussian clusters at ``±B/√N`` (inverse variance
``γ``) labelled by the structure vector ``B``, mixed with structureless
outliers; a fraction ``1 / (1 + e^η)`` of the examples is informative.
:class:`~statmechlearn.linear.OutlierRobustClassifier` estimates the direction
``J`` by EM, weighting each example by its probability of being informative.
The zero-temperature replica theory
(:func:`~statmechlearn.theory.outliers.soft_selection`) predicts the angle
``Φ = arccos(R / √Q) / π`` between ``J`` and ``B`` as a function of
``α = P / N``; :func:`~statmechlearn.theory.outliers.hebb` gives the same for
the plain Hebbian vector, which treats outliers as data.
"""

import matplotlib.pyplot as plt
import numpy as np

from statmechlearn.linear import HebbClassifier, OutlierRobustClassifier
from statmechlearn.models import OutlierMixture
from statmechlearn.theory.outliers import hebb, soft_selection

gamma, eta = 10.0, 0.0  # half of the examples are outliers
N, n_runs = 50, 6

# %%
# Theory: the replica-symmetric saddle point of soft selection (the global
# minimum; at ``η = 0`` there is one branch) and the Hebbian vector.
alpha_line = np.geomspace(0.5, 20.0, 12)  # each saddle point takes ~0.3 s
phi_em = [soft_selection(a, eta, gamma=gamma).branch().Phi for a in alpha_line]
phi_hebb = [hebb(a, eta, gamma=gamma).Phi for a in alpha_line]

# %%
# Simulation: the estimators with the teacher's ``γ`` and ``η`` given (the
# matched case the theory describes) on ``P = α N`` examples.
alpha_sim = np.array([1.0, 2.0, 5.0, 10.0, 20.0])
model = OutlierMixture(n_features=N, eta=eta, gamma=gamma)
phi = {"em": np.empty((n_runs, alpha_sim.size)), "hebb": np.empty((n_runs, alpha_sim.size))}
for j, alpha in enumerate(alpha_sim):
    for run in range(n_runs):
        X, S, _ = model.sample(round(alpha * N), random_state=1000 * j + run)
        em = OutlierRobustClassifier("soft", gamma=gamma, eta=eta, fit_intercept=False)
        phi["em"][run, j] = model.order_parameters(em.fit(X, S).J_).Phi
        hb = HebbClassifier(gamma, fit_intercept=False).fit(X, S)
        phi["hebb"][run, j] = model.order_parameters(hb.J_).Phi

# %%
fig, ax = plt.subplots(figsize=(6.4, 4.2))
ax.plot(alpha_line, phi_em, color="C0", label="theory: soft-selection EM (replica)")
ax.plot(alpha_line, phi_hebb, color="C2", ls="--", label="theory: Hebb")
for key, color, name in (("em", "C0", "EM"), ("hebb", "C2", "Hebb")):
    ax.errorbar(
        alpha_sim,
        phi[key].mean(axis=0),
        yerr=phi[key].std(axis=0, ddof=1) / np.sqrt(n_runs),
        fmt="o" if key == "em" else "s",
        color=color,
        capsize=3,
        label=f"simulation: {name}, N = {N} (mean ± SE, {n_runs} runs)",
    )
ax.set_xscale("log")
ax.set_xlabel(r"$\alpha = P / N$")
ax.set_ylabel(r"angle to the teacher $\Phi$ (units of $\pi$)")
ax.set_title(rf"$\gamma = {gamma:g}$, $\eta = {eta:g}$ (half the examples are outliers)")
ax.legend()
fig.tight_layout()
