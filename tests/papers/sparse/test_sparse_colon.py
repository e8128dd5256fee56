"""Sparse Bayesian classifier experiments at small size, and the colon data reader."""

import dataclasses

import numpy as np
import pytest

from statmechlearn.datasets import COLON_SHA256, load_colon
from statmechlearn.experiments import evaluate_checks
from statmechlearn.experiments._registry import get, names
from statmechlearn.experiments._runner import run_experiment
from statmechlearn.papers.sparse.colon import sign_test


def _run(name, tmp_path, grid=None, settings=None):
    spec = get(name)
    spec = dataclasses.replace(
        spec,
        name=f"{name}-test",
        grid=grid or spec.grid,
        settings={"quick": settings, "full": settings} if settings else spec.settings,
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    return spec, ds, evaluate_checks(spec, ds)


def test_fig1_theory_checks_pass(tmp_path):
    grid = {"C_t": (0.1, 0.2, 0.3), "C": (0.06, 0.1, 0.14, 0.2, 0.3)}
    _, _, results = _run("sparse-fig1", tmp_path, grid=grid)
    assert all(r.passed for r in results if r.kind == "evidence")


def test_fig3_state_evolution_matches_the_algorithm(tmp_path):
    q = {"n_seeds": 10, "n_features": 500, "n_iter": 4}
    _, ds, results = _run("sparse-fig3", tmp_path, settings=q)
    checked = [r for r in results if r.passed is not None]
    assert checked and all(r.passed for r in checked), [r for r in checked if not r.passed]
    assert ds["sim_eps"].sizes["t"] == 4


def test_fig4_loo_error_tracks_the_replica_error(tmp_path):
    q = {"n_seeds": 8, "n_features": 400, "max_iter": 300}
    _, _, results = _run("sparse-fig4", tmp_path, settings=q)
    checked = [r for r in results if r.passed is not None]
    assert checked and all(r.passed for r in checked), [r for r in checked if not r.passed]


def test_sign_test_reproduces_the_papers_number():
    a = np.r_[np.zeros(99), np.ones(36), np.ones(65)]
    b = np.r_[np.ones(99), np.ones(36), np.zeros(65)]
    wins, ties, losses, z = sign_test(a, b)
    assert (wins, ties, losses) == (99, 36, 65)
    assert z == pytest.approx(2.655, abs=1e-3)


def _write_colon(path, genes=2000, samples=62, zero_label=False):
    path.mkdir()
    np.savetxt(path / "I2000.txt", np.ones((genes, samples)))
    labels = np.r_[-np.ones(40), np.ones(22)][:samples]
    if zero_label:
        labels[0] = 0
    np.savetxt(path / "tissues.txt", labels, fmt="%d")
    (path / "names.txt").write_text("\n".join(f"g{i}\tgene" for i in range(2000)))


def test_colon_reader_names_the_file_and_layout(tmp_path):
    _write_colon(tmp_path / "ok")
    X, y, names_ = load_colon(tmp_path / "ok")
    assert X.shape == (62, 2000) and (y > 0).sum() == 22 and len(names_) == 2000
    _write_colon(tmp_path / "short", samples=61)
    with pytest.raises(ValueError, match=r"I2000\.txt: expected 2000 lines of 62 numbers"):
        load_colon(tmp_path / "short")
    _write_colon(tmp_path / "zero", zero_label=True)
    with pytest.raises(ValueError, match=r"tissues\.txt: expected non-zero"):
        load_colon(tmp_path / "zero")
    with pytest.raises(FileNotFoundError, match=r"I2000\.txt"):
        load_colon(tmp_path / "missing")


def test_shipped_colon_data_match_the_original_files():
    X, y, names_ = load_colon()
    assert X.shape == (62, 2000) and len(names_) == 2000
    # the published first intensities, exactly (decimal text parsed to the same doubles)
    np.testing.assert_array_equal(X[0, :3], [8589.4163, 5468.2409, 4263.4075])
    assert (y < 0).sum() == 40 and (y > 0).sum() == 22
    assert "sparse-table1" in names()  # shipped data: the table is always registered


def test_a_damaged_shipped_file_is_an_error_naming_it(monkeypatch):
    import gzip

    from statmechlearn import datasets

    original = datasets.resources.files

    class Damaged:
        def __init__(self, base):
            self.base = base

        def joinpath(self, *parts):
            target = self.base.joinpath(*parts)
            if parts[-1] == "tissues.txt.gz":
                return _Bytes(gzip.compress(b"-1\n1\n"))
            return target

    monkeypatch.setattr(datasets.resources, "files", lambda name: Damaged(original(name)))
    with pytest.raises(ValueError, match=r"tissues\.txt\.gz does not match .* SHA-256"):
        load_colon()
    assert set(COLON_SHA256) == {"I2000.txt", "tissues.txt", "names.txt"}


class _Bytes:
    def __init__(self, data):
        self.data = data

    def read_bytes(self):
        return self.data


def test_table1_runs_every_method_on_two_splits(tmp_path):
    from statmechlearn.papers.sparse.colon import METHODS, PROTOCOLS, VARIANTS

    _, ds, results = _run("sparse-table1", tmp_path, settings={"n_seeds": 2})
    err = ds["sim_error"].sel(classifier=list(METHODS)).values.reshape(-1, len(METHODS))
    assert err.shape[0] == 2
    # every method gives an error rate on a 20-tissue test set
    assert np.all(np.isfinite(err)) and np.all((err >= 0) & (err <= 1))
    assert np.allclose(err * 20, np.round(err * 20))
    kappa = ds["sim_kappa"].sel(variant=list(VARIANTS)).values.reshape(-1, len(VARIANTS))
    assert set(np.round(kappa.ravel(), 6)) <= {0.1, 0.2, 0.3, 0.4}
    assert np.allclose(kappa[:, [1, 2, 4, 5, 6, 7, 8, 9]], 0.4)  # the kappa = 0.4 variants
    # §5's whitening: the rows of the chosen C are the test errors of the per-C curve there
    test = ds["sim_literal_test"].values.reshape(2, len(PROTOCOLS), -1)
    C = ds["C"].values
    chosen = ds["sim_C"].sel(variant=list(VARIANTS[6:])).values.reshape(2, 4)
    for split in range(2):
        for j, row in enumerate(VARIANTS[6:]):
            at = np.flatnonzero(np.isclose(C, chosen[split, j]))[0]
            assert err[split, METHODS.index(row)] == test[split, j // 2, at]
    # both LOO errors are error rates of the 42 training tissues
    for var in ("sim_literal_loo_cavity", "sim_literal_loo_exact"):
        loo = ds[var].values
        assert np.allclose(loo * 42, np.round(loo * 42))
    data = [r for r in results if r.quantity.startswith(("normal tissues", "first intensities"))]
    assert len(data) == 2 and all(r.passed and r.kind == "evidence" for r in data)
    welch_rows = [r for r in results if r.quantity.startswith("Welch p")]
    assert len(welch_rows) == 7 and all(r.kind == "reported" for r in welch_rows)  # 2 splits
    assert all(0.0 <= r.observed <= 1.0 for r in welch_rows if r.observed is not None)


def test_welch_is_scipys_unequal_variance_test_and_the_papers_numbers():
    from scipy import stats

    from statmechlearn.papers.sparse.colon import _paper_welch, welch

    rng = np.random.default_rng(0)
    a, b = rng.normal(0.2, 0.1, 30), rng.normal(0.3, 0.05, 25)
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert welch(a, b) == pytest.approx((ref.statistic, ref.pvalue))
    assert welch(a, b, "less")[1] == pytest.approx(ref.pvalue / 2)
    # Table 1: FDA is far worse than the SBC (t = -17), SBC and SBL are not told apart
    assert _paper_welch("SBC", "FDA", "less") < 1e-40
    assert 0.4 < _paper_welch("SBC", "SBL") < 0.5


def test_whitening_all_tissues_is_a_simplex_whose_axes_carry_the_label():
    # §5 read literally (all M = 62 tissues whitened in their 61-dim span) makes every
    # pair of tissues equidistant, so a rotation-invariant classifier has nothing to go on;
    # the coordinates are the principal directions, though, and one of them carries the
    # label, which a prior acting on coordinates (the SBC's pruning) can use
    from statmechlearn.papers.sparse.colon import whiten_all_tissues

    X, y, _ = load_colon()
    W = whiten_all_tissues(X)
    assert W.shape == (62, 61)
    np.testing.assert_allclose(W.T @ W / 62, np.eye(61), atol=1e-8)
    d = np.linalg.norm(W[:, None, :] - W[None, :, :], axis=-1)[np.triu_indices(62, 1)]
    assert d.std() / d.mean() < 1e-8
    corr = np.abs([np.corrcoef(W[:, j], y)[0, 1] for j in range(61)])
    # the 61 correlations sum in squares to that of the label with its projection on the span
    # (1 here: the span is every centred vector); under no association each is ~ 1/sqrt(62)
    assert np.isclose(np.sum(corr**2), 1.0)
    assert np.argmax(corr) == 1 and corr[1] > 0.6


def test_fss_ladder_extrapolates_to_the_replica_error(tmp_path):
    from statmechlearn.experiments._finite_size import extrapolate_dataset

    q = {"n_seeds": 40, "n_max": 1000, "max_iter": 300}
    _, ds, results = _run("sparse-fss", tmp_path, settings=q)
    done = ds["sim_done"].sum("seed").values
    # 40, 20, 10 runs at N = 250, 500, 1000 (equal SE per rung); none above n_max
    assert done.tolist() == [40, 20, 10, 0, 0]
    ext = extrapolate_dataset(ds, "sim_eps")
    assert ext.n.tolist() == [250, 500, 1000]
    limits = [r for r in results if "N → ∞" in r.quantity]
    assert len(limits) == 2 and all(r.passed for r in limits), limits
    assert all(r.expected == pytest.approx(0.17570, abs=1e-4) for r in limits)
