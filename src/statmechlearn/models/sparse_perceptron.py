"""Uda & Kabashima's teacher: a sparse perceptron with a noisy label channel.

Teacher weights ``w_o`` are Bernoulli–Gaussian, a fraction ``C_t`` of the
components drawn from N(0, 1) and the rest zero (eq. 7); inputs are uniform
on the sphere ``|x|^2 = N``; a label ``y`` is drawn with ``P(y | x) = f(y
w_o.x / sqrt(N))`` for the activation ``f(u) = kappa + (1 - 2 kappa)
Phi(u / width)`` (the step of eq. 17 at ``width = 0``).
"""

import math
from dataclasses import dataclass

import numpy as np

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_array_finite, check_int, check_real
from statmechlearn.theory.sparse_bayes import SmoothedStepActivation

__all__ = ["SparseOverlaps", "SparsePerceptron"]


@dataclass(frozen=True)
class SparseOverlaps:
    """Order parameters of an estimate ``m`` of ``<c w>``.

    Attributes
    ----------
    R : float or ndarray
        ``w_o . m / N``.
    Q : float or ndarray
        ``m . m / N``.
    eps_g : float or ndarray
        Generalisation error of ``sign(m . x)`` on fresh spherical inputs,
        ``kappa + (1 - 2 kappa) arccos(R / sqrt(Q (T + width^2))) / pi`` with
        ``T = |w_o|^2 / N`` the sample's own teacher norm.
    """

    R: object
    Q: object
    eps_g: object


class SparsePerceptron:
    """Teacher of eq. (7) with spherical inputs and label channel ``f``.

    Parameters
    ----------
    n_features : int
        Dimension ``N``.
    C_t : float
        Fraction of relevant components, in ``(0, 1]``.
    kappa : float, default=0.05
        Label-noise level of the activation, in ``[0, 1/2)``.
    width : float, default=0.0
        Probit width of the activation (0: step).
    random_state : int, Generator or None
        Draws the teacher ``w_o`` once, at construction.

    Attributes
    ----------
    w_o : ndarray of shape (n_features,)
        The teacher.
    activation : SmoothedStepActivation
        The label channel.
    """

    def __init__(self, n_features, C_t, kappa=0.05, width=0.0, random_state=None):
        self.n_features = check_int(n_features, "n_features", minimum=1)
        self.C_t = check_real(C_t, "C_t", minimum=0.0, maximum=1.0, include_min=False)
        self.activation = SmoothedStepActivation(kappa, width)
        rng = check_random_state(random_state)
        relevant = rng.random(self.n_features) < self.C_t
        self.w_o = np.where(relevant, rng.standard_normal(self.n_features), 0.0)

    def sample(self, n_samples, random_state=None):
        """Draw ``n_samples`` labelled examples.

        Parameters
        ----------
        n_samples : int
            ``M``.
        random_state : int, Generator or None

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            Rows uniform on the sphere of radius ``sqrt(N)``.
        y : ndarray of shape (n_samples,)
            Labels in ``{-1, +1}``.
        """
        n_samples = check_int(n_samples, "n_samples", minimum=1)
        rng = check_random_state(random_state)
        X = rng.standard_normal((n_samples, self.n_features))
        X *= math.sqrt(self.n_features) / np.linalg.norm(X, axis=1, keepdims=True)
        p_plus = self.activation(X @ self.w_o / math.sqrt(self.n_features))
        y = np.where(rng.random(n_samples) < p_plus, 1.0, -1.0)
        return X, y

    def overlaps(self, m):
        """``R``, ``Q`` and the generalisation error of an estimate (or a stack of them).

        Parameters
        ----------
        m : array_like of shape (..., n_features)

        Returns
        -------
        SparseOverlaps
        """
        m = check_array_finite(m, "m")
        if m.shape[-1] != self.n_features:
            raise ValueError(f"m must have {self.n_features} components, got shape {m.shape}")
        R = m @ self.w_o / self.n_features
        Q = np.sum(m * m, axis=-1) / self.n_features
        T = float(self.w_o @ self.w_o) / self.n_features
        return SparseOverlaps(R=R, Q=Q, eps_g=self.activation.sign_error(R, Q, T))
