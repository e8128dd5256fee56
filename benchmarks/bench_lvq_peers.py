"""LVQ on digits against the LVQ packages a user would otherwise install.

Run in an environment that has the peers as well as statmechlearn, e.g.::

    python -m venv /tmp/peers && /tmp/peers/bin/pip install -e . unilvq sklvq sklearn-lvq
    /tmp/peers/bin/python benchmarks/bench_lvq_peers.py

For every peer that installs and fits, prints its fit time and test accuracy
(digits, standardised, stratified 75/25 split, the peer's defaults), then the
time statmechlearn's estimator of the same rule needs to reach at least that
accuracy (the fewest epochs that do), and the ratio of the two times from one
run. Peers that fail are listed with their error: on current NumPy, SciPy and
scikit-learn several do.
"""

import importlib
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from statmechlearn.lvq import GLVQ, LVQ1, LVQ21

#: (package, import path, constructor kwargs, our rule)
PEERS = (
    ("unilvq", "unilvq:Lvq1Classifier", {"seed": 0}, LVQ1),
    ("unilvq", "unilvq:Lvq21Classifier", {"seed": 0}, LVQ21),
    ("unilvq", "unilvq:GlvqClassifier", {"seed": 0, "verbose": False}, GLVQ),
    ("sklvq", "sklvq:GLVQ", {"random_state": 0}, GLVQ),
    ("sklearn-lvq", "sklearn_lvq:GlvqModel", {"random_state": 0}, GLVQ),
)


def _data():
    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte), ytr, yte


def _timed_fit(make, Xtr, ytr, repeat):
    best, model = np.inf, None
    for _ in range(repeat):
        model = make()
        start = time.perf_counter()
        model.fit(Xtr, ytr)
        best = min(best, time.perf_counter() - start)
    return best, model


def _ours_at_accuracy(cls, target, Xtr, Xte, ytr, yte):
    """Fewest epochs of ``cls`` (1 prototype per class) reaching ``target``; its fit time."""
    best_acc = 0.0
    for epochs in (1, 2, 3, 5, 10, 20, 50, 100):

        def make(epochs=epochs):
            return cls(1, max_iter=epochs, tol=0.0, random_state=0)

        t, model = _timed_fit(make, Xtr, ytr, repeat=5)
        acc = model.score(Xte, yte)
        best_acc = max(best_acc, acc)
        if acc >= target:
            return epochs, t, acc
    return None, np.nan, best_acc


def main():
    warnings.simplefilter("ignore")
    Xtr, Xte, ytr, yte = _data()
    for cls in (LVQ1, LVQ21, GLVQ):  # compile the kernels outside the timings
        cls(max_iter=1).fit(Xtr[:50], ytr[:50])
    print("digits 1347/450, standardised; peer defaults vs statmechlearn (1 prototype/class)")
    for package, path, kwargs, ours in PEERS:
        module, name = path.split(":")
        try:
            peer_cls = getattr(importlib.import_module(module), name)
            t_peer, model = _timed_fit(lambda c=peer_cls, k=kwargs: c(**k), Xtr, ytr, repeat=3)
            acc_peer = float(np.mean(model.predict(Xte) == yte))
        except Exception as exc:  # a broken peer is a result, not a crash
            msg = str(exc).strip().splitlines()[-1][:90] if str(exc).strip() else ""
            print(f"  {package:12s} {name:22s} FAILS: {type(exc).__name__}: {msg}")
            continue
        epochs, t_ours, acc_ours = _ours_at_accuracy(ours, acc_peer, Xtr, Xte, ytr, yte)
        if epochs is None:
            print(
                f"  {package:12s} {name:22s} {t_peer:8.3f} s acc {acc_peer:.3f} | "
                f"{ours.__name__} never reaches it (best {acc_ours:.3f})"
            )
            continue
        print(
            f"  {package:12s} {name:22s} {t_peer:8.3f} s acc {acc_peer:.3f} | "
            f"{ours.__name__} {epochs:3d} epochs {t_ours:8.4f} s acc {acc_ours:.3f} | "
            f"{t_peer / t_ours:8.1f}x faster"
        )


if __name__ == "__main__":
    main()
