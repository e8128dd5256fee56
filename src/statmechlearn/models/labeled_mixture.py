"""Two labelled Gaussian clusters in N dimensions (Biehl, Ghosh & Hammer, eq. 3 and 9).

Class sigma = +-1 has prior p_sigma and density N(lam B_sigma, v_sigma I_N) with
orthonormal centres ``B_+``, ``B_-``. The model samples labelled data, builds
prototypes with prescribed overlaps, and measures the order parameters
R_{S sigma} = w_S . B_sigma and Q_{ST} = w_S . w_T of any prototypes.
"""

from dataclasses import dataclass, field

import numpy as np

from statmechlearn._core.gauss import Phi
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import (
    check_array_finite,
    check_int,
    check_probability,
    check_real,
)

__all__ = ["LabeledMixture"]

#: Class labels in the order used by every array axis: index 0 <-> +1, index 1 <-> -1.
LABELS = np.array([1, -1])


@dataclass(frozen=True, eq=False)
class LabeledMixture:
    """Binary mixture of isotropic Gaussian clusters, the LVQ paper's data model.

    Parameters
    ----------
    n_features : int
        Dimension N, >= 2.
    p_plus : float
        Prior of class +1, in (0, 1); ``p_- = 1 - p_plus``.
    lam : float
        Distance lambda of each centre from the origin, >= 0.
    v_plus, v_minus : float, default=1.0
        Variance per component of each cluster, > 0.
    basis : ndarray of shape (2, n_features), optional
        Orthonormal rows ``B_+``, ``B_-``. Default: the first two unit vectors (the
        model is rotation invariant, so this loses no generality and makes
        projections cheap).

    Attributes
    ----------
    centers : ndarray of shape (2, n_features)
        ``lam * basis``; row 0 is class +1.

    Examples
    --------
    >>> m = LabeledMixture(n_features=50, p_plus=0.8, lam=1.0)
    >>> X, y = m.sample(1000, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 50), [-1, 1])
    """

    n_features: int
    p_plus: float
    lam: float
    v_plus: float = 1.0
    v_minus: float = 1.0
    basis: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        n = check_int(self.n_features, "n_features", minimum=2)
        object.__setattr__(self, "n_features", n)
        object.__setattr__(
            self, "p_plus", check_probability(self.p_plus, "p_plus", open_interval=True)
        )
        object.__setattr__(self, "lam", check_real(self.lam, "lam", minimum=0.0))
        for name in ("v_plus", "v_minus"):
            value = check_real(getattr(self, name), name, minimum=0.0, include_min=False)
            object.__setattr__(self, name, value)
        if self.basis is None:
            basis = np.eye(2, n)
        else:
            basis = check_array_finite(self.basis, "basis", shape=(2, n))
            if not np.allclose(basis @ basis.T, np.eye(2), atol=1e-10):
                raise ValueError("basis rows must be orthonormal (B_s . B_t = delta_st)")
        basis = basis.copy()
        basis.setflags(write=False)
        object.__setattr__(self, "basis", basis)

    @property
    def centers(self):
        """Cluster centres ``lam * B_sigma``, shape (2, n_features)."""
        return self.lam * self.basis

    @property
    def priors(self):
        """Class priors ``(p_+, p_-)``."""
        return np.array([self.p_plus, 1.0 - self.p_plus])

    @property
    def variances(self):
        """Cluster variances ``(v_+, v_-)``."""
        return np.array([self.v_plus, self.v_minus])

    def sample(self, n_samples, random_state=None, *, batch_shape=()):
        """Draw labelled examples.

        Parameters
        ----------
        n_samples : int
            Number of examples per batch, >= 0.
        random_state : None, int or numpy.random.Generator, optional
            Source of randomness.
        batch_shape : tuple of int, default=()
            Leading axes for independent batches (e.g. ``(n_runs,)``).

        Returns
        -------
        X : ndarray of shape (*batch_shape, n_samples, n_features)
        y : ndarray of shape (*batch_shape, n_samples), values in {+1, -1}
        """
        n_samples = check_int(n_samples, "n_samples", minimum=0)
        rng = check_random_state(random_state)
        shape = (*tuple(batch_shape), n_samples)
        minus = rng.random(shape) >= self.p_plus
        idx = minus.astype(np.intp)
        X = rng.standard_normal((*shape, self.n_features))
        X *= np.sqrt(self.variances)[idx][..., None]
        X += self.centers[idx]
        return X, LABELS[idx]

    def sample_chunks(self, n_samples, random_state=None, *, chunk_size=1024):
        """Draw labelled examples a chunk at a time: the stream of :meth:`sample`.

        The chunks, concatenated, equal ``sample(n_samples, random_state)``
        bit for bit (labels first, then the noise row by row, as there), but
        at most ``chunk_size`` rows are held at once: at N = 2000 the 10 N
        examples of an on-line run are 320 MB in one piece, and fetching that
        much fresh memory from the system costs twice the drawing.

        Parameters
        ----------
        n_samples : int
            Number of examples in all, >= 0.
        random_state : None, int or numpy.random.Generator, optional
            Source of randomness.
        chunk_size : int, default=1024
            Rows per chunk, >= 1.

        Yields
        ------
        X : ndarray of shape (n_chunk, n_features)
        y : ndarray of shape (n_chunk,), values in {+1, -1}
        """
        n_samples = check_int(n_samples, "n_samples", minimum=0)
        chunk_size = check_int(chunk_size, "chunk_size", minimum=1)
        rng = check_random_state(random_state)
        idx = (rng.random(n_samples) >= self.p_plus).astype(np.intp)
        scale = np.sqrt(self.variances)
        for start in range(0, n_samples, chunk_size):
            part = idx[start : start + chunk_size]
            X = rng.standard_normal((part.size, self.n_features))
            X *= scale[part][:, None]
            X += self.centers[part]
            yield X, LABELS[part]

    def overlaps(self, prototypes):
        """Order parameters of prototypes, eq. (4).

        Parameters
        ----------
        prototypes : array_like of shape (..., n_prototypes, n_features)

        Returns
        -------
        R : ndarray of shape (..., n_prototypes, 2)
            ``R[..., S, sigma] = w_S . B_sigma``.
        Q : ndarray of shape (..., n_prototypes, n_prototypes)
            ``Q[..., S, T] = w_S . w_T``.
        """
        W = np.asarray(prototypes, dtype=float)
        if W.ndim < 2 or W.shape[-1] != self.n_features:
            raise ValueError(
                f"prototypes must have shape (..., n_prototypes, {self.n_features}), got {W.shape}"
            )
        R = W @ self.basis.T
        Q = W @ np.swapaxes(W, -1, -2)
        return R, Q

    def prototypes_from_overlaps(self, R, Q, random_state=None):
        """Prototypes with exactly the overlaps ``R`` (with B) and ``Q`` (mutual).

        The part of each w_S outside span(B_+, B_-) points along random
        orthonormal directions, so the construction is what "initialised at
        given overlaps, otherwise at random" means in the paper's Fig. 2.

        Parameters
        ----------
        R : array_like of shape (K, 2)
        Q : array_like of shape (K, K)
            Must leave ``Q - R R^T`` positive semi-definite.
        random_state : None, int or numpy.random.Generator, optional

        Returns
        -------
        ndarray of shape (K, n_features)
        """
        R = check_array_finite(R, "R", ndim=2)
        K = R.shape[0]
        if R.shape[1] != 2:
            raise ValueError(f"R must have shape (K, 2), got {R.shape}")
        Q = check_array_finite(Q, "Q", shape=(K, K))
        if self.n_features - 2 < K:
            raise ValueError(f"at most n_features - 2 = {self.n_features - 2} prototypes, got {K}")
        residual = Q - R @ R.T
        evals, evecs = np.linalg.eigh(0.5 * (residual + residual.T))
        if evals.min() < -1e-12 * max(1.0, np.abs(Q).max()):
            raise ValueError("Q - R R^T must be positive semi-definite for vectors to exist")
        root = evecs * np.sqrt(np.clip(evals, 0.0, None))  # residual = root @ root.T
        rng = check_random_state(random_state)
        # random orthonormal directions orthogonal to B_+ and B_-
        G = rng.standard_normal((self.n_features, K))
        G -= self.basis.T @ (self.basis @ G)
        U, _ = np.linalg.qr(G)
        return R @ self.basis + root @ U.T

    def generalization_error(self, prototypes, prototype_labels=(1, -1)):
        """Exact misclassification probability of a nearest-prototype classifier.

        For two prototypes the decision boundary is the plane
        ``(w_+ - w_-) . xi = (|w_+|^2 - |w_-|^2) / 2``, and each class is a
        Gaussian, so the error is a sum of two normal tails -- exact at any N.

        Parameters
        ----------
        prototypes : array_like of shape (..., 2, n_features)
        prototype_labels : sequence of two labels, default=(1, -1)

        Returns
        -------
        ndarray of shape (...)
        """
        W = np.asarray(prototypes, dtype=float)
        labels = tuple(int(x) for x in prototype_labels)
        if W.shape[-2:] != (2, self.n_features) or sorted(labels) != [-1, 1]:
            raise ValueError(
                "generalization_error needs two prototypes with labels +1 and -1, "
                f"shape (..., 2, {self.n_features}); got {W.shape} and {labels}"
            )
        w_plus, w_minus = (
            (W[..., 0, :], W[..., 1, :]) if labels[0] == 1 else (W[..., 1, :], W[..., 0, :])
        )
        diff = w_plus - w_minus
        offset = 0.5 * (np.sum(w_plus**2, -1) - np.sum(w_minus**2, -1))
        norm = np.linalg.norm(diff, axis=-1)
        err = 0.0
        for s, sign in enumerate(LABELS):
            mean = diff @ self.centers[s] - offset  # decision value, positive -> class +1
            err = err + self.priors[s] * Phi(-sign * mean / (np.sqrt(self.variances[s]) * norm))
        return err
