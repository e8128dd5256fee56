"""The hard-selection estimator reaches the minimum of the energy (10): certified by
exhaustive enumeration of V at P <= 20 and by a peer (the published EM from many random
starts) at small N.
"""

import itertools

import numpy as np
import pytest

from statmechlearn.linear import (
    OutlierRobustClassifier,
    hard_selection_em,
    hard_selection_energy,
)
from statmechlearn.linear._selection_search import (
    hard_selection_search,
    hebb_quantile_starts,
)
from statmechlearn.models.outliers import OutlierMixture


def _sample(N, P, eta, gamma, seed):
    X, S, V = OutlierMixture(N, eta, gamma).sample(P, seed)
    return X, S.astype(float), V.astype(float)


def _gaussian_energy(X, S, V, gamma, eta):
    """-ln int dJ P(data, J, V) per N from the likelihood, by a generic Gaussian integral.

    ``-ln P(data, J, V) = gamma/2 sum |xi - V S J/sqrt(N)|^2 + |J|^2/2 + eta sum V + const``:
    quadratic in J with precision M and linear term b; the integral is
    ``-b M^-1 b / 2 + ln det M / 2`` plus the V-free ``gamma/2 sum |xi|^2`` and constants.
    """
    N = X.shape[1]
    M = np.eye(N) * (1.0 + gamma * V.sum() / N)
    b = gamma * (V * S) @ X / np.sqrt(N)
    _, logdet = np.linalg.slogdet(M)
    return (eta * V.sum() - b @ np.linalg.solve(M, b) / 2 + logdet / 2) / N


def _all_energies(X, S, gamma, eta):
    """Energy (10) per N of every V in {0, 1}^P (P <= 20), vectorised."""
    P, N = X.shape
    V = np.array(list(itertools.product((0.0, 1.0), repeat=P)))
    k = V.sum(axis=1)
    A = 1.0 + gamma * k / N
    b = gamma * (V * S) @ X / np.sqrt(N)
    return V, eta * k / N - np.einsum("vn,vn->v", b, b) / (2 * N * A) + np.log(A) / 2


def test_energy_is_the_gaussian_integral_of_the_likelihood():
    rng = np.random.default_rng(0)
    X, S, _ = _sample(6, 15, 0.5, 2.0, 1)
    for _ in range(5):
        V = (rng.random(15) < 0.5).astype(float)
        expected = _gaussian_energy(X, S, V, 2.0, 0.5)
        got = hard_selection_energy(X[None], S[None], V[None], gamma=2.0, eta=0.5)[0]
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


# (N, P, eta, gamma): learning, near the trivial state's takeover, many outliers at small gamma
_ENUMERATION = [(3, 16, 0.0, 4.0), (2, 18, 1.0, 1.0), (4, 16, 1.2, 0.5), (2, 18, 0.3, 10.0)]


@pytest.mark.parametrize(("N", "P", "eta", "gamma"), _ENUMERATION)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_estimator_reaches_the_exhaustive_minimum(N, P, eta, gamma, seed):
    X, S, _ = _sample(N, P, eta, gamma, 100 * seed + N)
    V_all, E_all = _all_energies(X, S, gamma, eta)
    best = int(np.argmin(E_all))
    clf = OutlierRobustClassifier("hard", gamma=gamma, eta=eta, fit_intercept=False)
    if E_all[best] >= 0.0:  # the trivial state is the MAP
        with pytest.warns(UserWarning, match="trivial selection"):
            clf.fit(X, S)
        assert clf.energy_ == 0.0 and not clf.J_.any()
        return
    clf.fit(X, S)
    assert clf.energy_ == pytest.approx(E_all[best], abs=1e-12)
    assert clf.energy_ == pytest.approx(
        hard_selection_energy(X[None], S[None], clf.informative_proba_[None], gamma=gamma, eta=eta)[
            0
        ],
        abs=1e-12,
    )
    # the MAP's V (ties between selections are of measure zero) and <J> = b / A, eq. (28)
    np.testing.assert_array_equal(clf.informative_proba_, V_all[best])
    k = V_all[best].sum()
    J = np.sqrt(N) * (V_all[best] * S) @ X / (k + N / gamma)
    np.testing.assert_allclose(clf.J_, J, rtol=1e-10)


def test_search_ends_where_no_single_flip_lowers_the_energy():
    X, S, _ = _sample(8, 400, 1.0, 1.0, 3)
    res = hard_selection_search(
        X, S, gamma=1.0, eta=1.0, starts=hebb_quantile_starts(X, S, (0.2, 0.5, 1.0))
    )
    assert res.converged and not res.trivial_lowest
    for mu in range(0, 400, 7):
        V = res.V.copy()
        V[mu] = 1.0 - V[mu]
        flipped = hard_selection_energy(X[None], S[None], V[None], gamma=1.0, eta=1.0)[0]
        assert flipped >= res.energy - 1e-12
    assert res.energy == pytest.approx(res.energies.min(), abs=0)


@pytest.mark.parametrize(("N", "P", "eta", "gamma"), [(10, 300, 1.2, 0.5), (20, 400, 0.5, 1.0)])
@pytest.mark.parametrize("seed", [0, 1])
def test_estimator_is_at_least_as_low_as_the_best_of_many_random_em_starts(N, P, eta, gamma, seed):
    # a peer independent of the search: the published EM (eqs. 26-28, its own single-flip
    # polish) from 400 random starts, each the examples of largest field along a random
    # direction at a random fraction, all in one batch
    X, S, _ = _sample(N, P, eta, gamma, 50 + seed)
    rng = np.random.default_rng(seed)
    n_runs = 400
    fields = S * (rng.standard_normal((n_runs, N)) @ X.T)
    fraction = rng.uniform(0.02, 0.6, n_runs)
    V0 = (fields >= np.quantile(fields, 1 - fraction, axis=1).diagonal()[:, None]).astype(float)
    Xb, Sb = np.broadcast_to(X, (n_runs, P, N)), np.broadcast_to(S, (n_runs, P))
    peer = hard_selection_em(Xb, Sb, gamma=gamma, eta=eta, V0=V0)
    energies = hard_selection_energy(Xb, Sb, peer.V, gamma=gamma, eta=eta)
    assert energies.min() < 0.0  # a learning state exists: the comparison is not with V = 0
    clf = OutlierRobustClassifier("hard", gamma=gamma, eta=eta, fit_intercept=False).fit(X, S)
    assert clf.energy_ <= energies.min() + 1e-12


def test_learns_where_em_from_the_teacher_falls_into_the_trivial_state():
    # many outliers at small gamma and large alpha (the regime of the RS learning threshold):
    # EM from the true selection ends at V = 0, the estimator in a learning state far below
    N, alpha, eta, gamma = 20, 500, 1.2, 0.1
    model = OutlierMixture(N, eta, gamma)
    X, S, V = model.sample(N * alpha, 7)
    S = S.astype(float)
    teacher = hard_selection_em(X[None], S[None], gamma=gamma, eta=eta, V0=V[None].astype(float))
    E_teacher = hard_selection_energy(X[None], S[None], teacher.V, gamma=gamma, eta=eta)[0]
    clf = OutlierRobustClassifier("hard", gamma=gamma, eta=eta, fit_intercept=False).fit(X, S)
    op = model.order_parameters(clf.J_)
    assert clf.energy_ < min(E_teacher, 0.0) - 1.0
    assert op.R / np.sqrt(op.Q) > 0.5
    # at or below the published EM from each of its Hebb-quantile starts
    for V0 in hebb_quantile_starts(X, S):
        em = hard_selection_em(X[None], S[None], gamma=gamma, eta=eta, V0=V0[None])
        E_em = hard_selection_energy(X[None], S[None], em.V, gamma=gamma, eta=eta)[0]
        assert clf.energy_ <= E_em + 1e-12


def test_warns_and_returns_the_trivial_state_when_it_is_lowest():
    # eta far above every learning threshold: selecting any example costs more than it gains
    X, S, _ = _sample(5, 40, 0.0, 1.0, 4)
    clf = OutlierRobustClassifier("hard", gamma=1.0, eta=20.0, fit_intercept=False)
    with pytest.warns(UserWarning, match="trivial selection V = 0"):
        clf.fit(X, S)
    assert clf.energy_ == 0.0
    assert not clf.informative_proba_.any() and not clf.J_.any()


def test_soft_selection_has_no_energy_and_refitting_hard_to_soft_drops_it():
    X, S, _ = _sample(5, 200, 0.0, 4.0, 5)
    clf = OutlierRobustClassifier("hard", gamma=4.0, eta=0.0, fit_intercept=False).fit(X, S)
    assert hasattr(clf, "energy_")
    clf.set_params(selection="soft").fit(X, S)
    assert not hasattr(clf, "energy_")


def test_search_rejects_bad_starts():
    X, S, _ = _sample(3, 10, 0.0, 1.0, 6)
    with pytest.raises(ValueError, match="starts must have shape"):
        hard_selection_search(X, S, gamma=1.0, eta=0.0, starts=np.ones((2, 9)))
    with pytest.raises(ValueError, match="starts must hold selections 0 or 1"):
        hard_selection_search(X, S, gamma=1.0, eta=0.0, starts=np.full((1, 10), 0.5))


@pytest.mark.parametrize(("gamma", "eta"), [(0.1, 1.0), (1.0, 2.0), (10.0, 4.0)])
def test_compiled_descent_step_is_its_numpy_twin(gamma, eta):
    from statmechlearn.linear._selection_kernels import descent_step
    from statmechlearn.linear._selection_search import _state, descent_step_numpy

    seed = int(np.random.default_rng().integers(2**32))
    rng = np.random.default_rng(seed)
    N, P = 12, 600
    X, S, V_true = _sample(N, P, eta, gamma, seed)
    # states near and far from a minimum: the teacher's selection, random ones, all, none
    V = np.vstack(
        [V_true, (rng.random((5, P)) < rng.random((5, 1))).astype(float), np.ones(P), np.zeros(P)]
    )
    rows = np.arange(V.shape[0])
    w2 = gamma**2 * np.einsum("pn,pn->p", X, X) / N
    for _ in range(6):  # several steps, each from the state the last one reached
        b, energy = _state(X, S, V, gamma, eta)
        bw = gamma * S * (b @ X.T) / np.sqrt(N)
        states = []
        for step in (descent_step, descent_step_numpy):
            Vs, bs, es = V.copy(), b.copy(), energy.copy()
            status = step(X, S, Vs, bs, es, rows, bw, w2, gamma, eta, 1e-12)
            states.append((status, Vs, bs, es))
        (s1, V1, b1, e1), (s2, V2, b2, e2) = states
        np.testing.assert_array_equal(s1, s2)
        np.testing.assert_array_equal(V1, V2)
        np.testing.assert_allclose(b1, b2, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(e1, e2, rtol=1e-10, atol=1e-12)
        V = V1


def test_search_with_the_numpy_twin_reaches_the_same_states():
    from statmechlearn.linear._selection_search import (
        _descend,
        descent_step_numpy,
        direction_starts,
    )

    seed = int(np.random.default_rng().integers(2**32))
    X, S, _ = _sample(10, 500, 1.5, 1.0, seed)
    starts = np.vstack([hebb_quantile_starts(X, S), direction_starts(X, S)])
    compiled = _descend(X, S, starts.copy(), 1.0, 1.5, 1000)
    twin = _descend(X, S, starts.copy(), 1.0, 1.5, 1000, step=descent_step_numpy)
    np.testing.assert_array_equal(compiled[0], twin[0])
    np.testing.assert_allclose(compiled[2], twin[2], rtol=1e-12, atol=1e-12)
    assert compiled[3] == twin[3]
