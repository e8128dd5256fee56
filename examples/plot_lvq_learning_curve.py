"""
LVQ1: the learning curve, ODE theory beside Monte Carlo simulation
===================================================================

Biehl, Ghosh & Hammer's two-prototype LVQ1 learns from two Gaussian clusters
in ``N`` dimensions, one example at a time. For ``N → ∞`` the overlaps
``R = w·B`` and ``Q = w·w`` obey ordinary differential equations in the
rescaled time ``α = (examples) / N``;
:func:`~statmechlearn.theory.lvq_dynamics.learning_curve` integrates them.
The simulation runs the same rule with
:func:`~statmechlearn.lvq.wta_online_updates` (many runs at once) on
:class:`~statmechlearn.models.LabeledMixture` data and measures the
generalization error of the prototypes with
:func:`~statmechlearn.theory.lvq_dynamics.generalization_error`.
"""

import matplotlib.pyplot as plt
import numpy as np

from statmechlearn.lvq import wta_online_updates
from statmechlearn.models import LabeledMixture
from statmechlearn.theory.lvq_dynamics import generalization_error, learning_curve

p_plus, lam, eta = 0.8, 1.0, 0.5
N, n_runs, alpha_max = 100, 10, 20

# %%
# Theory: the ODEs from the paper's initial condition (``R = 0``,
# ``Q_++ = Q_-- = 1e-4``).
alphas = np.linspace(0.0, alpha_max, 201)
curve = learning_curve("lvq1", alphas, p_plus=p_plus, lam=lam, eta=eta)

# %%
# Simulation: the same start (prototypes of length 0.01 orthogonal to the
# cluster centres), learning rate ``eta / N``, the error measured every
# ``alpha = 1``.
model = LabeledMixture(n_features=N, p_plus=p_plus, lam=lam)
W = np.zeros((n_runs, 2, N))
W[:, :, 2:4] = 0.01 * np.eye(2)
checkpoints = np.arange(1, alpha_max + 1)
eps = np.empty((n_runs, checkpoints.size))
rng = np.random.default_rng(0)
for j in range(checkpoints.size):
    X, y = model.sample(N, rng, batch_shape=(n_runs,))  # alpha grows by 1
    wta_online_updates(W, X, y, [1, -1], learning_rate=eta / N, a=0.0, b=1.0)
    R, Q = model.overlaps(W)
    eps[:, j] = generalization_error(R, Q, p_plus=p_plus, lam=lam)

# %%
fig, ax = plt.subplots(figsize=(6.4, 4.2))
ax.plot(alphas, curve.eps_g, color="C0", label="theory: ODEs (N → ∞)")
ax.errorbar(
    checkpoints,
    eps.mean(axis=0),
    yerr=eps.std(axis=0, ddof=1) / np.sqrt(n_runs),
    fmt="o",
    color="C1",
    capsize=3,
    label=f"simulation: N = {N} (mean ± SE, {n_runs} runs)",
)
ax.set_xlabel(r"$\alpha$ = examples / N")
ax.set_ylabel(r"generalization error $\epsilon_g$")
ax.set_title(rf"LVQ1, $p_+ = {p_plus}$, $\lambda = {lam}$, $\eta = {eta}$")
ax.legend()
fig.tight_layout()
