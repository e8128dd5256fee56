"""The result types of the outlier theory: saddle points, branches, curves, transitions
and the asymptotic forms (frozen dataclasses; see :mod:`statmechlearn.theory.outliers`).
"""

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "HardB4OrderParameters",
    "HardComplexity",
    "HardHatParameters",
    "HardSelection1RSB",
    "HardSelection1RSBCurve",
    "HardTransition1RSB",
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


@dataclass(frozen=True)
class HardSelection1RSB:
    """The one-step RSB (1RSB) saddle point of hard selection's learning branch.

    Attributes
    ----------
    alpha, eta, gamma, gamma_student : float
    R, Q : float
        ``J.B / N`` and ``J.J / N`` of one state (a minimum of eq. 10).
    q0 : float
        Overlap of two different states; ``delta = Q - q0 >= 0``.
    delta : float
        ``Q - q0``: how far apart the states are.
    z : float
        ``beta (Q - q1)``, the response of J inside a state.
    lam : float
        The multiplier lambda of the selection constraint.
    y : float
        Parisi parameter ``beta m`` (the static one, or the one asked for);
        ``inf`` in the RS limit of the Hebb side (delta = 0).
    Phi, Delta : float
        Angle / pi (eq. 14) and squared deviation (eq. 12) of one state.
    free_energy : float
        The 1RSB functional f1 at its saddle point, ``-(1/y) ln sum_states e^{-y N e}`` per N.
    energy : float
        ``e(y) = d(y f1)/dy``: the energy per N of the states counted at this y
        (the ground-state energy at the static y, where it equals free_energy).
    complexity : float
        ``Sigma(y) = y^2 df1/dy``: ln(number of those states) / N (0 at the static y).
    informative : float
        The selected fraction (the tilted selection probability averaged).
    replicon_within, replicon_between : float
        1RSB replicons (stable iff both < 1): within states ``inf`` wherever
        examples sit at the selection threshold (always: Psi'' is a delta
        function), between states finite (NaN in the RS limit).
    static : bool
        Whether y is the static Parisi parameter (``Sigma(y) = 0``).
    rs : SelectionState or None
        The replica-symmetric state of the same branch at this eta (None
        where the RS learning branch has already ended).
    """

    alpha: float
    eta: float
    gamma: float
    gamma_student: float
    R: float
    Q: float
    q0: float
    delta: float
    z: float
    lam: float
    y: float
    Phi: float
    Delta: float
    free_energy: float
    energy: float
    complexity: float
    informative: float
    replicon_within: float
    replicon_between: float
    static: bool
    rs: SelectionState = None


@dataclass(frozen=True)
class HardSelection1RSBCurve:
    """The static 1RSB branch of hard selection at fixed alpha, continued in eta.

    Attributes
    ----------
    eta, R, Q, q0, delta, z, lam, y, Phi, Delta, free_energy, informative : ndarray
        Along the curve in arclength order (eta is not monotone across folds),
        as in :class:`HardSelection1RSB`; ``free_energy`` is the ground-state
        energy (the complexity vanishes at the static y).
    replicon_between : ndarray
        Replicon of the between-state sector (the within-state one is infinite).
    folds : ndarray
        eta of the turning points (spinodals), in curve order.
    rs : SelectionCurve
        The replica-symmetric curve at the same alpha, for comparison.
    """

    eta: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    q0: np.ndarray
    delta: np.ndarray
    z: np.ndarray
    lam: np.ndarray
    y: np.ndarray
    Phi: np.ndarray
    Delta: np.ndarray
    free_energy: np.ndarray
    informative: np.ndarray
    replicon_between: np.ndarray
    folds: np.ndarray
    rs: SelectionCurve = None


@dataclass(frozen=True)
class HardTransition1RSB:
    """Thresholds of hard selection at fixed alpha in 1RSB, beside the RS ones.

    Attributes
    ----------
    alpha, gamma, gamma_student : float
    eta0 : float
        Where the trivial state (every V = 0, f = 0) appears (RSB does not move it).
    spinodals : tuple of float
        Folds of the static 1RSB curve.
    eta_c : float
        Where the trivial state becomes the global minimum (1RSB energies).
    transitions : tuple of float
        Every switch of the global minimum.
    eta_learn, learn_jump, eta_learn_spinodal, phi_learn
        As in :class:`SelectionTransition`, from the 1RSB branches.
    rs : SelectionTransition
        :func:`hard_transition` at the same parameters.
    """

    alpha: float
    gamma: float
    gamma_student: float
    eta0: float
    spinodals: tuple
    eta_c: float
    transitions: tuple
    eta_learn: float
    learn_jump: bool
    eta_learn_spinodal: float
    phi_learn: float
    rs: SelectionTransition = None


@dataclass(frozen=True)
class HardComplexity:
    """The complexity curve of the learning states at one (alpha, eta), parametric in y.

    Attributes
    ----------
    alpha, eta, gamma, gamma_student : float
    y : ndarray
        Parisi parameters (increasing).
    energy, complexity : ndarray
        ``e(y)`` and ``Sigma(y)``: ``exp(N Sigma)`` states of energy ``N e``.
        ``d Sigma / d e = y``.
    free_energy : ndarray
        f1 at each y; ``Sigma = y (e - f1)``.
    R, Q, q0, delta, z, lam, Phi : ndarray
        Order parameters of those states.
    y_static, energy_static : float
        Where ``Sigma = 0`` (the ground state) and its energy.
    y_turn, energy_max : float
        Where e(y) is largest, and that energy: the concave (physical) part of
        Sigma(e) is ``y_turn <= y <= y_static``, energies in ``[energy_static, energy_max]``.
    """

    alpha: float
    eta: float
    gamma: float
    gamma_student: float
    y: np.ndarray
    energy: np.ndarray
    complexity: np.ndarray
    free_energy: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    q0: np.ndarray
    delta: np.ndarray
    z: np.ndarray
    lam: np.ndarray
    Phi: np.ndarray
    y_static: float
    energy_static: float
    y_turn: float
    energy_max: float

    @property
    def physical(self):
        """Boolean mask of the concave part ``y_turn <= y <= y_static`` (a count of states)."""
        return (self.y >= self.y_turn) & (self.y <= self.y_static * (1.0 + 1e-12))
