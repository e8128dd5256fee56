"""Sparse Bayesian classifier (Uda & Kabashima): the model choice against L1 logistic regression.

Prints its section of ``docs/benchmarks.md`` (markdown on stdout, progress on stderr):

1. ``SparseBayesClassifierCV`` (C and kappa by the leave-one-out error eq. 56 over the
   paper's 36-point grid) against ``LogisticRegressionCV(penalty="l1", solver="liblinear")``
   (its 10 Cs by 5-fold CV), on teacher–student data (sparse perceptron, C_t = 0.2,
   kappa = 0.05, M = N examples) at N = 1000 and on the colon data (42/20 splits):
   time to fit, on one thread and on all, and test error ± SE over a few splits, both
   fitted on the same training data;
2. the adaptive damping against the former default (damping 0.8): grid fits converged
   and message-passing updates spent, and whether ``SparseBayesClassifier()`` converges;
3. the choice of C by exact leave-one-out (``cv="loo"``) against eq. (56) (``cv=None``) and
   against the same refits through the public estimator, on one colon split.

Run: ``python benchmarks/bench_sparse_bayes.py`` (``BENCH_REPEAT=1`` while developing).
"""

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _bench import (
    fmt_ratio,
    limit_threads,
    measure,
    progress,
    table,
    thread_settings,
    version,
)

from statmechlearn.datasets import load_colon
from statmechlearn.exceptions import ConvergenceWarning
from statmechlearn.linear import SparseBayesClassifier, SparseBayesClassifierCV, sphere_rows
from statmechlearn.models.sparse_perceptron import SparsePerceptron

SIZES = (1000,)  # the size; the peer needs about 7 s per fit there
DAMPING_N = 300  # teacher size of the damping rows (damping 0.8 spends ~10^4 updates)
N_SPLITS = 3  # teacher data sets (or colon splits) behind each test error
N_TEST = 5000


def _peer():
    from sklearn.linear_model import LogisticRegressionCV

    # scikit-learn >= 1.8 spells the L1 penalty l1_ratios=(1,) and warns about penalty=
    warnings.filterwarnings("ignore", category=FutureWarning, module="sklearn")
    # liblinear shuffles the data at random unless seeded: unseeded, the peer's colon error
    # over the same three splits moved between 16.7 % and 20.0 % from run to run
    return LogisticRegressionCV(penalty="l1", solver="liblinear", random_state=0)


def _teacher_splits(n):
    out = []
    for seed in range(N_SPLITS):
        teacher = SparsePerceptron(n, 0.2, 0.05, random_state=seed)
        X, y = teacher.sample(n, random_state=1000 + seed)
        Xt, yt = teacher.sample(N_TEST, random_state=2000 + seed)
        out.append(((X, y, Xt, yt), (X, y, Xt, yt)))  # (ours, peer): the same inputs
    return out


def _colon_splits():
    X, y, _ = load_colon()
    rng = np.random.default_rng(20261122)
    out = []
    for _ in range(N_SPLITS):
        perm = rng.permutation(len(y))
        tr, te = perm[:42], perm[42:]
        mean = X[tr].mean(axis=0)
        # SBC preprocesses the raw data itself; the peer gets the same sphered rows
        peer = (sphere_rows(X[tr] - mean), y[tr], sphere_rows(X[te] - mean), y[te])
        out.append(((X[tr], y[tr], X[te], y[te]), peer))
    return out


def _error(make, X, y, Xt, yt):
    return float(np.mean(make().fit(X, y).predict(Xt) != yt))


def _mean_se(values):
    v = 100 * np.asarray(values)
    return f"{v.mean():.1f} ± {v.std(ddof=1) / np.sqrt(v.size):.1f} %"


def versus_peer():
    have_peer = version("scikit-learn") is not None
    rows, verdicts = [], []
    cases = [(f"teacher, N = M = {n}", lambda n=n: _teacher_splits(n)) for n in SIZES]
    cases.append(("colon, 42 tissues × 2000 genes", _colon_splits))
    for name, make_splits in cases:
        progress(f"{name}: data and test errors over {N_SPLITS} splits")
        splits = make_splits()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fitted = [SparseBayesClassifierCV().fit(X, y) for (X, y, _, _), _ in splits]
            ours_err = [
                np.mean(cv.predict(d[2]) != d[3]) for cv, (d, _) in zip(fitted, splits, strict=True)
            ]
            updates = int(fitted[0].cv_results_["n_iter"].sum())
            peer_err = [_error(_peer, *p) for _, p in splits] if have_peer else None
        (X, y, _, _), (Xp, yp, _, _) = splits[0]
        for n_threads in thread_settings():
            progress(f"{name}: timing on {n_threads} thread(s)")
            with limit_threads(n_threads), warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                t_ours = measure(lambda X=X, y=y: SparseBayesClassifierCV().fit(X, y), warmup=0)
                t_peer = (
                    measure(lambda X=Xp, y=yp: _peer().fit(X, y), warmup=0) if have_peer else None
                )
            if t_peer is None:
                rows.append((name, n_threads, str(t_ours), "peer not installed", "", "", ""))
                continue
            ratio = t_ours / t_peer
            not_worse = np.mean(ours_err) <= np.mean(peer_err)
            verdicts.append((name, n_threads, ratio, not_worse, t_ours.median / updates))
            rows.append(
                (
                    name,
                    n_threads,
                    str(t_ours),
                    str(t_peer),
                    fmt_ratio(ratio),
                    _mean_se(ours_err),
                    _mean_se(peer_err),
                )
            )
    header = (
        "data",
        "threads",
        "SBC CV fit",
        "LogisticRegressionCV fit",
        "ratio (SBC / peer)",
        "SBC test error",
        "peer test error",
    )
    return table(header, rows), verdicts


def _grid_counts(X, y, damping):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cv = SparseBayesClassifierCV(damping=damping).fit(X, y)
    res = cv.cv_results_
    return int(res["converged"].sum()), res["converged"].size, int(res["n_iter"].sum())


def _single(X, y, damping):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        est = SparseBayesClassifier(damping=damping).fit(X, y)
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return f"{est.n_iter_} updates, " + ("ConvergenceWarning" if warned else "converged")


def damping_rows():
    teacher = SparsePerceptron(DAMPING_N, 0.2, 0.05, random_state=0)
    Xs, ys = teacher.sample(DAMPING_N, random_state=1000)
    (Xc, yc, _, _), _ = _colon_splits()[0]
    rows, totals = [], {}
    for name, X, y in ((f"teacher, N = M = {DAMPING_N}", Xs, ys), ("colon, one split", Xc, yc)):
        for damping in (0.8, "auto"):
            progress(f"{name}: grid with damping={damping}")
            conv, size, updates = _grid_counts(X, y, damping)
            totals[name, damping] = updates
            rows.append((name, repr(damping), f"{conv} of {size}", updates, _single(X, y, damping)))
    header = ("data", "damping", "grid fits converged", "updates over the grid", "C=0.1 default")
    return table(header, rows), totals


def _public_refits(X, y, Cs, kappas, preprocessing):
    """Exact LOO by refitting the public SparseBayesClassifier: what cv="loo" replaces."""
    from sklearn.model_selection import LeaveOneOut

    for C in Cs:
        for kappa in kappas:
            for train, test in LeaveOneOut().split(X):
                SparseBayesClassifier(C=C, kappa=kappa, preprocessing=preprocessing).fit(
                    X[train], y[train]
                ).predict(X[test])


def _loo_row(name, X, y, kappas, preprocessing):
    from statmechlearn.linear import PAPER_C_GRID

    grid = {"preprocessing": preprocessing} | ({"kappas": kappas} if kappas else {})
    progress(f"{name}: cv=None, cv='loo', public refits")
    t_cav = measure(lambda: SparseBayesClassifierCV(**grid).fit(X, y))
    t_loo = measure(lambda: SparseBayesClassifierCV(**grid, cv="loo").fit(X, y))
    every_kappa = kappas or (0.1, 0.2, 0.3, 0.4)
    t_pub = measure(
        lambda: _public_refits(X, y, PAPER_C_GRID, every_kappa, preprocessing), repeat=1
    )
    ratios = (fmt_ratio(t_loo / t_cav), fmt_ratio(t_pub / t_loo))
    return (name, str(t_cav), str(t_loo), ratios[0], str(t_pub), ratios[1])


def loo_rows():
    """Fit time of SparseBayesClassifierCV with cv=None and cv="loo" on one colon split."""
    from statmechlearn.papers.sparse.colon import whiten_all_tissues

    (Xc, yc, _, _), _ = _colon_splits()[0]
    X, y, _ = load_colon()
    # the training tissues of the first split of _colon_splits
    train = np.random.default_rng(20261122).permutation(len(y))[:42]
    W = whiten_all_tissues(X)[train]
    with limit_threads(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        rows = [
            _loo_row("colon whitened on all 62 (42 × 61), κ = 0.4, 9 C", W, y[train], (0.4,), None),
            _loo_row(
                "colon raw (42 × 2000, sphered by the estimator), 9 × 4", Xc, yc, None, "sphere"
            ),
        ]
    header = (
        "data",
        "cv=None (eq. 56)",
        'cv="loo"',
        "ratio",
        "refits of the public estimator",
        'ratio to cv="loo"',
    )
    return table(header, rows)


def update_profile():
    """Where a colon update's time goes, measured: the grid's problems, captured from a real
    ``SparseBayesClassifierCV`` fit on the first split, run again by the compiled loop
    (time per update) and by its NumPy twin with the prior update and the channel timed
    (the twin calls the same compiled Newton solve and beliefs as the compiled loop)."""
    from time import perf_counter

    import statmechlearn.linear._sparse_bayes as sb
    import statmechlearn.linear._sparse_bayes_adaptive as ad

    (X, y, _, _), _ = _colon_splits()[0]
    problems, real = [], sb.adaptive_amp

    def capture(F, C, activation, **kwargs):
        problems.append((F, C, activation, kwargs))
        return real(F, C, activation, **kwargs)

    sb.adaptive_amp = capture
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            SparseBayesClassifierCV().fit(X, y)
    finally:
        sb.adaptive_amp = real
    import statmechlearn.linear._sparse_bayes_kernels as kernels

    spent = {"_newton": 0.0, "_beliefs": 0.0, "channel": 0.0}
    originals = {name: getattr(kernels, name) for name in ("_newton", "_beliefs")}

    def timer(name):
        def timed(*args, f=originals[name]):
            start = perf_counter()
            out = f(*args)
            spent[name] += perf_counter() - start
            return out

        return timed

    compiled = numpy_updates = 0
    t_compiled = 0.0
    for name in originals:
        setattr(kernels, name, timer(name))
    try:
        for F, C, activation, kwargs in problems:
            real(F, C, activation, **kwargs)  # compiled, warm
            start = perf_counter()
            compiled += real(F, C, activation, **kwargs)["n_iter"]
            t_compiled += perf_counter() - start
            log_partition = activation.log_partition

            def timed_channel(*args, f=log_partition):
                start = perf_counter()
                out = f(*args)
                spent["channel"] += perf_counter() - start
                return out

            activation.log_partition = timed_channel
            try:
                numpy_updates += ad.adaptive_amp_numpy(F, C, activation, **kwargs)["n_iter"]
            finally:
                del activation.log_partition
    finally:
        for name, f in originals.items():
            setattr(kernels, name, f)
    F = problems[0][0]
    m, a = np.ones(F.shape[1]), np.ones(F.shape[0])
    t_products = measure(lambda: (F @ m, F.T @ a), warmup=1).median
    return {
        "problems": len(problems),
        "shape": F.shape,
        "compiled": t_compiled / compiled,
        "prior": (spent["_newton"] + spent["_beliefs"]) / numpy_updates,
        "channel": spent["channel"] / numpy_updates,
        "products": t_products,
    }


def main():
    progress("where a colon update's time goes")
    profile = update_profile()
    progress("versus the peer")
    peer_table, verdicts = versus_peer()
    progress("damping")
    damp_table, totals = damping_rows()
    progress("exact leave-one-out")
    loo_table = loo_rows()
    sk = version("scikit-learn") or "not installed"
    lines = [
        "## Sparse Bayesian classifier (`benchmarks/bench_sparse_bayes.py`)",
        "`SparseBayesClassifierCV` (C and κ chosen by the leave-one-out error eq. (56) over "
        "the paper's 9 × 4 grid, every point fitted by message passing with adaptive "
        f'damping) against scikit-learn {sk} `LogisticRegressionCV(penalty="l1", '
        'solver="liblinear", random_state=0)` (10 Cs, 5-fold CV; seeded, since liblinear '
        "shuffles the data and its colon error moved by 3 points from run to run), the "
        "peer a user would otherwise pick "
        "for a sparse linear classifier. Teacher data: a sparse perceptron (C_t = 0.2, "
        f"label noise κ = 0.05) with as many examples as inputs, test error on {N_TEST} "
        f"fresh examples; colon: random 42/20 splits, SBC preprocesses the raw data itself, "
        "the peer gets the same rows sphered. Fit times on the first split; test error "
        f"mean ± SE over {N_SPLITS} splits, both fitted on the same training data.",
        peer_table,
    ]
    for name, n_threads, ratio, not_worse, per_update in verdicts:
        met = ratio < 1.0 and not_worse
        lines.append(
            f"- {name}, {n_threads} thread(s): SBC takes {fmt_ratio(ratio)} the peer's time at "
            f"{'equal or better' if not_worse else 'worse'} mean test error: target (faster "
            f"at equal or better error) **{'met' if met else 'not met'}**; "
            f"{per_update * 1e3:.2f} ms per message-passing update."
        )
    lines += [
        'Adaptive damping (`damping="auto"`, the new default) against the former default '
        "0.8 on one data set each: grid fits converged, message-passing updates summed over "
        "the 36 grid points (a stalled point stops after 50 updates without a smaller "
        "residual), and a single `SparseBayesClassifier()` at C = κ = 0.1.",
        damp_table,
    ]
    for name in {k[0] for k in totals}:
        lines.append(
            f"- {name}: the grid needs {totals[name, 'auto'] / totals[name, 0.8]:.2f}× the "
            "updates of damping 0.8."
        )
    p = profile
    lines.append(
        "An update costs two matrix–vector products with the data plus O(N + M) work: the "
        "channel's error functions and the Newton solve of the pruning conditions for the "
        "prior's two hyperparameters with the beliefs, all in one compiled loop for the "
        f"smoothed-step channel. Where it goes on the colon data, measured on the "
        f"{p['problems']} grid problems of the first split's fit ({p['shape'][0]} × "
        f"{p['shape'][1]} pattern matrix), one thread: the compiled loop takes "
        f"{p['compiled'] * 1e6:.0f} µs per update; the prior update (Newton solve and "
        f"beliefs: the same compiled functions, timed per update in the NumPy loop) "
        f"{p['prior'] * 1e6:.0f} µs ({p['prior'] / p['compiled']:.0%}); the two products "
        f"{p['products'] * 1e6:.0f} µs ({p['products'] / p['compiled']:.0%}); the channel "
        f"(timed in NumPy, compiled in the loop) {p['channel'] * 1e6:.0f} µs in NumPy. The "
        "peer's 50 liblinear fits on 34 tissues are cheaper still."
    )
    lines += [
        'Choosing C by exact leave-one-out (`cv="loo"`: every grid point refitted without '
        "each training example, preprocessing included) against eq. (56)'s cavity estimate "
        "(`cv=None`), one thread, on one colon split (42 training tissues), and the same "
        "refits through the public `SparseBayesClassifier` (input validation per fit).",
        loo_table,
    ]
    print("\n\n".join(lines))


if __name__ == "__main__":
    main()
