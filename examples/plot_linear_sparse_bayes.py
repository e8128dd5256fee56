"""
Sparse Bayesian classifier: generalization error against the replica theory
============================================================================

Uda & Kabashima's teacher is a perceptron whose weights are non-zero on a
fraction ``C_t`` of the inputs, with labels flipped with probability
``κ``. :class:`~statmechlearn.linear.SparseBayesClassifier` keeps a fraction
``C`` of the inputs and predicts with the Bayes rule, computed by O(NM)
message passing. Its generalization error (the probability of disagreeing
with the teacher's noise-free label) is predicted for ``N → ∞`` by the
replica-symmetric saddle point
(:func:`~statmechlearn.theory.sparse_bayes.replica`); the best ``C`` is
close to ``C_t``.
"""

import matplotlib.pyplot as plt
import numpy as np

from statmechlearn.linear import SparseBayesClassifier
from statmechlearn.models import SparsePerceptron
from statmechlearn.theory.sparse_bayes import replica

C_t, kappa, alpha = 0.2, 0.05, 1.0
N, n_runs = 300, 12

# %%
# Theory: ``eps_g`` of the saddle point as a function of the kept fraction C.
C_line = np.linspace(0.08, 0.6, 30)
eps_line = [replica(alpha, C, C_t=C_t, kappa=kappa).eps_g for C in C_line]

# %%
# Simulation: a new teacher and ``M = alpha N`` examples per run; the data are
# already spherical, so no preprocessing. The error follows from the overlaps
# of the learned weights with the teacher. One run's error spreads by about
# ``0.5 / sqrt(N)``, hence the bars (docs/finite_size.md).
C_sim = np.array([0.1, 0.15, 0.2, 0.3, 0.5])  # at C <= 0.05 BP may not converge
eps = np.empty((n_runs, C_sim.size))
for j, C in enumerate(C_sim):
    for run in range(n_runs):
        rng = np.random.default_rng([j, run])  # independent problems at every point
        teacher = SparsePerceptron(N, C_t, kappa, random_state=rng)
        X, y = teacher.sample(round(alpha * N), rng)
        clf = SparseBayesClassifier(C=C, kappa=kappa, preprocessing=None).fit(X, y)
        eps[run, j] = teacher.overlaps(clf.coef_.ravel()).eps_g

# %%
fig, ax = plt.subplots(figsize=(6.4, 4.2))
ax.plot(C_line, eps_line, color="C0", label="theory: replica saddle point (N → ∞)")
ax.errorbar(
    C_sim,
    eps.mean(axis=0),
    yerr=eps.std(axis=0, ddof=1) / np.sqrt(n_runs),
    fmt="o",
    color="C1",
    capsize=3,
    label=f"simulation: N = M = {N} (mean ± SE, {n_runs} runs)",
)
ax.axvline(C_t, color="0.6", ls=":", label=r"teacher's fraction $C_t$")
ax.set_xlabel("fraction of inputs kept $C$")
ax.set_ylabel(r"generalization error $\epsilon_g$")
ax.set_title(rf"$\alpha = M/N = {alpha:g}$, $C_t = {C_t}$, $\kappa = {kappa}$")
ax.legend()
fig.tight_layout()
