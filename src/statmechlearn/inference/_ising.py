"""Binary image de-noising with the Ising model (lecture notes §9.1).

For a noisy image ``y`` with pixels ``±1`` the energy is

    E(x | y) = -(beta / 2) sum_i (x_i / |N_i|) sum_{j in N_i} x_j - mu sum_i x_i y_i,

``beta`` the coupling (``coupling``) and ``mu`` the pull towards the data
(``field``). Summed over ordered pairs, the pair ``{i, j}`` carries
``w_ij = (beta / 2) (1 / |N_i| + 1 / |N_j|)``, so
``E = -sum_{i<j} w_ij x_i x_j - mu sum_i x_i y_i`` and pixel ``i`` feels the
local field ``h_i = sum_j w_ij x_j + mu y_i``. With pixels flipped
independently with probability ``p``, ``mu = (T / 2) log((1 - p) / p)`` is the
exact log-likelihood ratio (:func:`field_from_flip_probability`).

Three estimates of the clean image: mean field (``m_i = tanh(h_i / T)``,
checkerboard-asynchronous), the posterior marginals of heat-bath (Gibbs)
sampling thresholded at 1/2 (maximiser of the posterior marginals), and
Besag's iterated conditional modes (zero temperature, a local minimum of E).
"""

import math
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, Options, StrOptions

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import RANDOM_STATE, check_real
from statmechlearn.inference._costs import PairwiseMRFCost, grid_graph
from statmechlearn.inference._mean_field import iterated_conditional_modes, mean_field
from statmechlearn.inference._sampling import sample_assignments

__all__ = ["IsingDenoiser", "field_from_flip_probability", "ising_cost", "to_spins"]

_SPINS = np.array([-1.0, 1.0])


def to_spins(image, name="image"):
    """Return a binary image as ``±1`` floats and the encoding it came in.

    Parameters
    ----------
    image : array-like of shape (height, width)
        Values in {0, 1}, {False, True} or {-1, +1}.
    name : str, default="image"
        Parameter name used in the error message.

    Returns
    -------
    spins : ndarray of shape (height, width)
    encoding : {"bool", "01", "pm1"}
    """
    arr = np.asarray(image)
    if arr.ndim != 2 or min(arr.shape) < 1:
        raise ValueError(f"{name} must be a 2-D image of shape (height, width), got {arr.shape}")
    if arr.dtype == bool:
        return np.where(arr, 1.0, -1.0), "bool"
    values = np.unique(arr)
    if not np.all(np.isfinite(values.astype(float))):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if np.all(np.isin(values, (0, 1))):
        return np.where(arr == 1, 1.0, -1.0), "01"
    if np.all(np.isin(values, (-1, 1))):
        return arr.astype(float), "pm1"
    shown = ", ".join(f"{v:g}" for v in values[:5].astype(float))
    raise ValueError(
        f"{name} must be binary, with values in {{0, 1}}, {{False, True}} or {{-1, +1}}; "
        f"got values {shown}{' ...' if values.size > 5 else ''}"
    )


def _from_spins(spins, encoding):
    if encoding == "bool":
        return spins > 0
    if encoding == "01":
        return (spins > 0).astype(np.int64)
    return np.where(spins > 0, 1, -1)


def field_from_flip_probability(flip_probability, temperature=1.0):
    """``mu = (T / 2) log((1 - p) / p)``: the data term of independent pixel flips.

    Parameters
    ----------
    flip_probability : float in (0, 1/2)
    temperature : float, default=1.0

    Returns
    -------
    float
    """
    p = check_real(
        flip_probability,
        "flip_probability",
        minimum=0.0,
        maximum=0.5,
        include_min=False,
        include_max=False,
    )
    T = check_real(temperature, "temperature", minimum=0.0, include_min=False)
    return 0.5 * T * math.log((1.0 - p) / p)


def ising_cost(noisy, coupling=1.0, field=1.0, connectivity=4):
    """The Ising energy of §9.1 as a :class:`PairwiseMRFCost` (state 0 = -1, 1 = +1).

    Parameters
    ----------
    noisy : array-like of shape (height, width)
        Binary observed image.
    coupling : float, default=1.0
        ``beta >= 0``, the smoothing strength (per pixel, as the energy
        divides by the neighbourhood size).
    field : float, default=1.0
        ``mu >= 0``, the pull towards the observation.
    connectivity : {4, 8}, default=4

    Returns
    -------
    PairwiseMRFCost
        Sites are the pixels in C order.
    """
    y, _ = to_spins(noisy, "noisy")
    beta = check_real(coupling, "coupling", minimum=0.0)
    mu = check_real(field, "field", minimum=0.0)
    A = grid_graph(y.shape, connectivity)
    inv_deg = 1.0 / np.maximum(np.asarray(A.sum(axis=1)).ravel(), 1.0)
    coo = A.tocoo()
    W = A.copy()
    W.data = 0.5 * beta * (inv_deg[coo.row] + inv_deg[coo.col])
    unary = -mu * y.ravel()[:, None] * _SPINS[None, :]
    return PairwiseMRFCost(unary, W, -np.outer(_SPINS, _SPINS))


class IsingDenoiser(BaseEstimator):
    """De-noise a binary image with the Ising model by mean field, Gibbs sampling or ICM.

    Lecture notes §9.1: the clean image minimises (ICM), or is read off the
    posterior marginals of (Gibbs sampling, mean field), the Gibbs
    distribution of ``E(x | y)`` at temperature ``T``.

    Parameters
    ----------
    coupling : float, default=2.0
        ``beta >= 0`` of §9.1 (smoothing; normalised by the neighbourhood size).
    field : float, default=1.0
        ``mu >= 0``, the data term; :func:`field_from_flip_probability` gives
        the exact one for independent flips.
    method : {"mean_field", "gibbs", "icm"}, default="mean_field"
    temperature : float, default=1.0
        ``T > 0`` (mean field and Gibbs).
    connectivity : {4, 8}, default=4
    n_chains : int, default=2
        Gibbs: independent chains, all started from the noisy image.
    n_sweeps : int, default=200
        Gibbs: sweeps per chain, burn-in included.
    burn_in : int, optional
        Gibbs: discarded sweeps; default ``n_sweeps // 4``.
    max_iter : int, default=200
        Mean field and ICM: maximum sweeps.
    tol : float, default=1e-4
        Mean field: stop when no marginal moves more than this.
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator, default=None
        Gibbs: seeds the sweeps.

    Attributes
    ----------
    denoised_ : ndarray of shape (height, width)
        The estimate, in the encoding of the input.
    marginals_ : ndarray of shape (height, width)
        ``P(x_i = +1)`` (mean field, Gibbs); 0/1 for ICM.
    energy_ : float
        ``E(x | y)`` of the estimate.
    n_iter_ : int
        Sweeps done.
    diagnostics_ : object
        The :class:`MeanFieldResult` or :class:`SamplingResult` (None for ICM).

    Notes
    -----
    ``fit`` takes one image, not a feature matrix, so this is not a
    scikit-learn transformer of rows (``check_estimator`` does not apply);
    it keeps the parameter API (``get_params``/``set_params``, ``clone``).

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import IsingDenoiser
    >>> rng = np.random.default_rng(0)
    >>> clean = np.zeros((40, 40), dtype=bool); clean[10:30, 10:30] = True
    >>> noisy = clean ^ (rng.random(clean.shape) < 0.1)
    >>> den = IsingDenoiser(method="icm").fit(noisy)
    >>> bool(np.mean(den.denoised_ != clean) < np.mean(noisy != clean))
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "coupling": [Interval(Real, 0, np.inf, closed="left")],
        "field": [Interval(Real, 0, np.inf, closed="left")],
        "method": [StrOptions({"mean_field", "gibbs", "icm"})],
        "temperature": [Interval(Real, 0, np.inf, closed="neither")],
        "connectivity": [Options(Integral, {4, 8})],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "n_sweeps": [Interval(Integral, 1, None, closed="left")],
        "burn_in": [Interval(Integral, 0, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, np.inf, closed="left")],
        "random_state": [*RANDOM_STATE],
    }

    def __init__(
        self,
        coupling=2.0,
        field=1.0,
        method="mean_field",
        temperature=1.0,
        connectivity=4,
        n_chains=2,
        n_sweeps=200,
        burn_in=None,
        max_iter=200,
        tol=1e-4,
        random_state=None,
    ):
        self.coupling = coupling
        self.field = field
        self.method = method
        self.temperature = temperature
        self.connectivity = connectivity
        self.n_chains = n_chains
        self.n_sweeps = n_sweeps
        self.burn_in = burn_in
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, image, y=None):
        """De-noise ``image``.

        Parameters
        ----------
        image : array-like of shape (height, width)
            Binary noisy image ({0, 1}, bool or ±1).
        y : None
            Ignored.

        Returns
        -------
        self
        """
        method = self.method
        spins, encoding = to_spins(image)
        T = float(self.temperature)
        cost = ising_cost(spins, self.coupling, self.field, self.connectivity)
        rng = check_random_state(self.random_state)
        start = (spins.ravel() > 0).astype(np.int64)
        self.diagnostics_ = None
        if method == "icm":
            labels, self.n_iter_ = iterated_conditional_modes(cost, start, max_iter=self.max_iter)
            marg = labels.astype(float)
        elif method == "mean_field":
            Q0 = np.column_stack([1.0 - start, start]) * 0.8 + 0.1
            res = mean_field(cost, T, init=Q0, max_iter=self.max_iter, tol=self.tol)
            marg = res.Q[:, 1]
            self.n_iter_ = res.n_iter
            self.diagnostics_ = res
        else:
            res = sample_assignments(
                cost,
                T,
                n_chains=self.n_chains,
                n_sweeps=self.n_sweeps,
                burn_in=self.burn_in,
                method="gibbs",
                init=start,
                random_state=rng,
            )
            marg = res.marginals[:, 1]
            self.n_iter_ = res.energies.shape[1]
            self.diagnostics_ = res
        x = np.where(marg > 0.5, 1.0, -1.0)
        self.marginals_ = marg.reshape(spins.shape)
        self.energy_ = float(cost.energy((x > 0).astype(np.int64))[0])
        self.denoised_ = _from_spins(x.reshape(spins.shape), encoding)
        return self

    def fit_transform(self, image, y=None):
        """De-noise ``image`` and return the estimate (same encoding as the input).

        Parameters
        ----------
        image : array-like of shape (height, width)
        y : None
            Ignored.

        Returns
        -------
        ndarray of shape (height, width)
        """
        return self.fit(image).denoised_
