"""LVQ on digits against the LVQ packages a user would otherwise install.

Run: ``python benchmarks/bench_lvq_peers.py`` (markdown on stdout). The peers
are not dependencies (UniLVQ pulls in PyTorch); to compare, run in an
environment that has them, e.g.::

    python -m venv /tmp/peers && /tmp/peers/bin/pip install -e . unilvq sklvq sklearn-lvq
    /tmp/peers/bin/python benchmarks/bench_lvq_peers.py

For every peer that installs and fits: its fit time and test accuracy
(digits, standardised, stratified 75/25 split, the peer's defaults), then the
time statmechlearn's estimator of the same rule needs to reach at least that
accuracy (the fewest epochs that do), on one thread and on all threads. A
peer that is not installed or fails prints a row saying so; statmechlearn's
side (fit time and accuracy per number of epochs) is printed in any case.
"""

import importlib
import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).parent))
from _bench import fmt_ratio, limit_threads, measure, progress, table, thread_settings, version

from statmechlearn.lvq import GLVQ, LVQ1, LVQ21

#: (package, import path, constructor kwargs, our rule)
PEERS = (
    ("unilvq", "unilvq:Lvq1Classifier", {"seed": 0}, LVQ1),
    ("unilvq", "unilvq:Lvq21Classifier", {"seed": 0}, LVQ21),
    ("unilvq", "unilvq:GlvqClassifier", {"seed": 0, "verbose": False}, GLVQ),
    ("sklvq", "sklvq:GLVQ", {"random_state": 0}, GLVQ),
    ("sklearn-lvq", "sklearn_lvq:GlvqModel", {"random_state": 0}, GLVQ),
)
EPOCHS = (1, 2, 3, 5, 10, 20, 50, 100)
TARGET = 5.0
SLOW = 10.0  # seconds: a peer fit slower than this is timed once


def _data():
    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte), ytr, yte


def _ours(cls, epochs, Xtr, Xte, ytr, yte):
    """Fit time and test accuracy of ``cls`` (1 prototype per class) after ``epochs``."""

    def fit():
        return cls(1, max_iter=epochs, tol=0.0, random_state=0).fit(Xtr, ytr)

    t = measure(fit)
    return t, fit().score(Xte, yte)


def _peer(cls, kwargs, Xtr, ytr):
    import time

    start = time.perf_counter()
    model = cls(**kwargs).fit(Xtr, ytr)
    once = time.perf_counter() - start
    if once > SLOW:
        return measure(lambda: cls(**kwargs).fit(Xtr, ytr), repeat=1, warmup=0), model, True
    return measure(lambda: cls(**kwargs).fit(Xtr, ytr), warmup=0), model, False


def main():
    warnings.simplefilter("ignore")
    Xtr, Xte, ytr, yte = _data()
    for cls in (LVQ1, LVQ21, GLVQ):  # compile the kernels outside the timings
        cls(max_iter=1).fit(Xtr[:50], ytr[:50])
    peer_rows, ours_rows, ratios = [], [], []
    for package, path, _, _ in PEERS:
        module, name = path.split(":")
        if importlib.util.find_spec(module) is None:
            peer_rows.append((f"{package} `{name}`", "", "not installed", "", ""))
    for n in thread_settings():
        with limit_threads(n):
            progress(f"lvq peers: ours, {n} thread(s)")
            for cls in (LVQ1, LVQ21, GLVQ):
                for epochs in (1, 2, 5):
                    t, acc = _ours(cls, epochs, Xtr, Xte, ytr, yte)
                    ours_rows.append((f"`{cls.__name__}`", epochs, n, t, f"{acc:.3f}"))
            for package, path, kwargs, ours in PEERS:
                module, name = path.split(":")
                label = f"{package} {version(package) or ''} `{name}`".replace("  ", " ")
                if importlib.util.find_spec(module) is None:
                    continue
                progress(f"lvq peers: {package} {name}, {n} thread(s)")
                try:
                    peer_cls = getattr(importlib.import_module(module), name)
                    t_peer, model, once = _peer(peer_cls, kwargs, Xtr, ytr)
                    acc_peer = float(np.mean(model.predict(Xte) == yte))
                except Exception as exc:  # a broken peer is a result, not a crash
                    msg = str(exc).strip().splitlines()[-1][:90] if str(exc).strip() else ""
                    peer_rows.append((label, n, f"fails: `{type(exc).__name__}: {msg}`", "", ""))
                    continue
                peer_time = f"{t_peer}{' (one fit)' if once else ''}"
                for epochs in EPOCHS:
                    t_ours, acc = _ours(ours, epochs, Xtr, Xte, ytr, yte)
                    if acc >= acc_peer:
                        ratios.append(t_peer / t_ours)
                        peer_rows.append(
                            (
                                label,
                                n,
                                f"{peer_time}, {acc_peer:.3f}",
                                f"`{ours.__name__}`, {epochs} epoch(s): {t_ours}, {acc:.3f}",
                                f"**{fmt_ratio(t_peer / t_ours)}**",
                            )
                        )
                        break
                else:
                    peer_rows.append(
                        (
                            label,
                            n,
                            f"{peer_time}, {acc_peer:.3f}",
                            f"`{ours.__name__}` never reaches it in {EPOCHS[-1]} epochs",
                            "",
                        )
                    )
    if ratios:
        best_peer = min(ratios)
        verdict = (
            f"Target: ≥ {TARGET:g}× the installable peers at equal accuracy: "
            f"**{'met' if best_peer >= TARGET else 'not met'}** (smallest speed-up "
            f"{fmt_ratio(best_peer)})."
        )
    else:
        verdict = (
            f"Target: ≥ {TARGET:g}× the installable peers at equal accuracy: not measured "
            "here, no peer is installed in this environment (see the command above)."
        )
    print(
        "\n\n".join(
            [
                "## LVQ against the packages a user would otherwise install "
                "(`benchmarks/bench_lvq_peers.py`)",
                f"Digits, standardised, stratified 75/25 split ({len(Xtr)}/{len(Xte)}), each "
                "peer with its default settings: its fit time and test accuracy, and on our "
                "side the fewest epochs of the estimator with the same rule (one prototype "
                "per class) that reach at least the peer's accuracy, and the time of that "
                "fit. The peers are not dependencies; they run in their own environment "
                "(`pip install -e . unilvq sklvq sklearn-lvq`; UniLVQ pulls in PyTorch). "
                f"A peer fit slower than {SLOW:g} s is timed once.",
                table(
                    ("peer", "threads", "peer fit, accuracy", "statmechlearn", "speed-up"),
                    peer_rows,
                ),
                "statmechlearn's side, one prototype per class (our time includes input "
                "validation and initialisation at the class means):",
                table(("estimator", "epochs", "threads", "fit", "test accuracy"), ours_rows),
                verdict,
            ]
        )
    )


if __name__ == "__main__":
    main()
