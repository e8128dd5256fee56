"""The result types of the outlier theory: saddle points, branches, curves, transitions
and the asymptotic forms (frozen dataclasses; see :mod:`statmechlearn.theory.outliers`).
"""

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "HardB4OrderParameters",
    "HardHatParameters",
    "HebbOrderParameters",
    "SelectionBranches",
    "SelectionCurve",
    "SelectionState",
    "SelectionTransition",
    "SoftAsymptotics",
]


_ETA_RANGE = (-8.0, 14.0)


# Below eta = -40 every example is informative to double precision (1 - p1 = e^eta):
# continuing the branch further down only adds steps, so a saddle point there is
# solved directly from the Hebb state (the only branch in that limit).
_ETA_HEBB = -40.0


_ETA_RANGE_MIN = -100.0  # lowest start of a continued curve (at most ~600 steps)


_LOG_FLOOR = -60.0  # continuation stops when R or Q reach e^-60 (the all-outlier limit)


_LOG_CEILING = 30.0  # order parameters beyond e^30 are never a saddle point


_LOG_END = -15.0  # a branch that stalls below e^-15 has reached J = 0


@dataclass(frozen=True)
class SelectionState:
    """Order parameters of one replica-symmetric saddle point.

    Attributes
    ----------
    R, Q : float
        ``J.B / N`` and ``J.J / N``.
    z : float
        ``beta (Q - q)``.
    Phi, Delta : float
        Angle / pi (eq. 14) and squared deviation (eq. 12).
    free_energy : float
        Ground-state energy per N.
    informative : float
        Mean of ``<V>`` (soft) or of V (hard) over the training set.
    """

    R: float
    Q: float
    z: float
    Phi: float
    Delta: float
    free_energy: float
    informative: float


@dataclass(frozen=True)
class HebbOrderParameters:
    """Order parameters of the Hebb rule, eq. (25).

    Attributes
    ----------
    R, Q : float
        ``J.B / N`` and ``J.J / N``.
    Phi, Delta : float
        Angle / pi and squared deviation.
    """

    R: float
    Q: float
    Phi: float
    Delta: float


@dataclass(frozen=True)
class SoftAsymptotics:
    """Large-alpha soft selection, eq. (29): ``Phi ~ sqrt(c / alpha) / (pi R_inf)``.

    Attributes
    ----------
    R_inf : float
        Limit of R as alpha -> infinity.
    c : float
        ``lim alpha (Q - R^2)``.
    """

    R_inf: float
    c: float


@dataclass(frozen=True)
class HardHatParameters:
    """The paper's V order parameters of one non-trivial hard-selection branch (App. B).

    Attributes
    ----------
    R_hat, Q_hat, z_hat : float
        ``alpha p1 <V>_1``, ``alpha <V>`` and ``beta (q^ - Q^) -> -rho``.
    threshold_density : float
        ``rho = alpha p(a + b/2 = 0)``.
    b : float
        ``gamma~^2 z / gamma``.
    lam : float
        The multiplier lambda of the selection constraint.
    R, Q, free_energy : float
        The branch's order parameters and ground-state energy.
    """

    R_hat: float
    Q_hat: float
    z_hat: float
    threshold_density: float
    b: float
    lam: float
    R: float
    Q: float
    free_energy: float


@dataclass(frozen=True)
class HardB4OrderParameters:
    """Eq. (B4): order parameters of J from the V parameters.

    Attributes
    ----------
    R : float
        ``J.B / N`` of the posterior mean.
    J2 : float
        Posterior second moment ``<J.J> / N``.
    Q_mean : float
        ``J2 - 1 / (Q^ g~ + 1)``: squared length of the posterior mean.
    """

    R: float
    J2: float
    Q_mean: float


@dataclass(frozen=True)
class SelectionBranches:
    """All replica-symmetric saddle points at one (alpha, eta).

    Attributes
    ----------
    selection : {"soft", "hard"}
    alpha, eta, gamma, gamma_student : float
    R, Q : ndarray of shape (n_branches,)
        ``J.B / N`` and ``J.J / N`` of the estimate (for hard selection the
        posterior mean ``<J>`` of eq. 28).
    z : ndarray
        ``beta (Q - q)``, the response of J to one example.
    Phi, Delta : ndarray
        Angle / pi (eq. 14) and squared deviation (eq. 12).
    free_energy : ndarray
        Ground-state energy per N (the minimum of the training energy, up to
        J-independent constants): comparable between branches and with
        ``H(J)/N`` of a simulation.
    informative : ndarray
        Mean of ``<V>`` (soft) or of V (hard) over the training set.
    global_minimum : int
        Index of the branch of lowest free energy (the thermodynamic state).
    trivial : ndarray of bool
        Hard selection's all-outlier solution (every V = 0, J = 0).
    at_eigenvalue : ndarray
        Replicon (Almeida-Thouless) eigenvalue ``1 - alpha <(b Psi_b'')^2>``
        of each replica-symmetric saddle point; negative (``-inf`` where the
        single-example maximiser jumps) means RS is unstable there
        (``docs/derivations/outliers_hard_branches.md``).

    Branches are sorted by decreasing R.
    """

    selection: str
    alpha: float
    eta: float
    gamma: float
    gamma_student: float
    R: np.ndarray
    Q: np.ndarray
    z: np.ndarray
    Phi: np.ndarray
    Delta: np.ndarray
    free_energy: np.ndarray
    informative: np.ndarray
    global_minimum: int
    trivial: np.ndarray
    at_eigenvalue: np.ndarray = None

    @property
    def rs_stable(self):
        """Boolean array: the replicon eigenvalue is positive (RS is locally stable)."""
        return np.asarray(self.at_eigenvalue) > 0.0

    @property
    def n_branches(self):
        """Number of saddle points found."""
        return int(self.R.size)

    def branch(self, index=None):
        """Order parameters of one branch (default: the global minimum).

        Parameters
        ----------
        index : int, optional
            Branch index in ``range(n_branches)``.

        Returns
        -------
        SelectionState
        """
        i = self.global_minimum if index is None else index
        if isinstance(i, bool) or not isinstance(i, int | np.integer):
            raise TypeError(f"index must be an integer, got {type(i).__name__} {i!r}")
        if not -self.n_branches <= i < self.n_branches:
            raise ValueError(f"index must be in [0, {self.n_branches - 1}], got {i}")
        names = ("R", "Q", "z", "Phi", "Delta", "free_energy", "informative")
        return SelectionState(**{name: float(getattr(self, name)[i]) for name in names})


@dataclass(frozen=True)
class SelectionCurve:
    """The continued branch of saddle points at fixed alpha, as a function of eta.

    Attributes
    ----------
    eta, R, Q, z, Phi, Delta, free_energy, informative : ndarray of shape (n_points,)
        Along the curve in arclength order (eta is not monotone across folds).
    folds : ndarray
        eta of the turning points (spinodals), in curve order.
    """

    eta: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    z: np.ndarray
    Phi: np.ndarray
    Delta: np.ndarray
    free_energy: np.ndarray
    informative: np.ndarray
    folds: np.ndarray


@dataclass(frozen=True)
class SelectionTransition:
    """Where the saddle-point structure changes at fixed alpha.

    Attributes
    ----------
    alpha : float
    spinodals : tuple of float
        eta where a branch appears or disappears (folds; for hard selection
        also eta0, where the trivial solution appears).
    eta_c : float
        First-order transition: the global minimum leaves the branch that is
        connected to the Hebb limit (eta -> -infinity). NaN if it never does
        in the eta range searched.
    transitions : tuple of float
        Every eta where the global minimum jumps between branches.
    eta_learn : float
        The largest eta at which the lowest-free-energy state still learns
        (its angle ``Phi <= phi_learn``); above it the global minimum is a
        state that ignores the teacher (R ~ 0) or the trivial one. NaN if
        the global minimum never learns in the range searched.
    learn_jump : bool
        True if the global minimum stops learning by a first-order jump
        (then eta_learn does not depend on phi_learn); False if Phi crosses
        phi_learn continuously.
    eta_learn_spinodal : float
        The largest eta up to which a learning state (``Phi <= phi_learn``)
        exists on the branch continued from the Hebb limit (its fold): the
        limit of metastability of a learner started at the teacher.
    phi_learn : float
        The learning criterion used.
    rs_unstable : tuple of (float, float, str)
        Intervals ``(eta_lo, eta_hi, branch)`` on which a branch exists and
        its replicon eigenvalue is negative (RS unstable). ``branch`` is
        ``"segment k"`` (the k-th monotone piece of the continued curve,
        k = 0 connected to the Hebb limit).
    """

    alpha: float
    spinodals: tuple
    eta_c: float
    transitions: tuple = ()
    eta_learn: float = math.nan
    learn_jump: bool = False
    eta_learn_spinodal: float = math.nan
    phi_learn: float = 1.0 / 3.0
    rs_unstable: tuple = ()
