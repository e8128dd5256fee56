"""Rendering a stored result computes nothing: plots and checks only read the dataset."""

import ast
import inspect
import sys

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import ResultStore, evaluate_checks, get, names

matplotlib.use("Agg")

#: Code that solves, fits, samples or loads: none of it may run while a figure is drawn.
FORBIDDEN = (
    "statmechlearn.theory",
    "statmechlearn.cluster",
    "statmechlearn.lvq",
    "statmechlearn.linear",
    "statmechlearn.inference",
    "statmechlearn.model_selection",
    "statmechlearn.models",
    "statmechlearn.datasets",
    "scipy.optimize",
    "scipy.integrate",
    "sklearn",
    "skimage",
    "minisom",
    "dit",
)


@pytest.fixture(scope="module")
def stored(quick_results, reproduced):
    out, _ = quick_results
    store = ResultStore(out / "store")
    return {n: store.latest(get(n)) for n in reproduced}


def _calls_while(fn):
    modules = set()

    def profiler(frame, event, arg):
        if event == "call":
            modules.add(frame.f_globals.get("__name__", ""))

    sys.setprofile(profiler)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return modules


def test_plot_and_checks_call_no_solver_estimator_or_loader(stored, reproduced_name):
    import matplotlib.pyplot as plt

    name = reproduced_name
    spec, ds = get(name), stored[name]
    assert ds is not None, f"{name} has no stored result"

    def render():
        spec.plot(ds)
        evaluate_checks(spec, ds)

    modules = _calls_while(render)
    plt.close("all")
    assert not sorted(m for m in modules if m.startswith(FORBIDDEN))


def _stored_values(ds):
    """Every number the dataset holds, and its reductions over seeds (means, medians, extremes)."""
    pools = []
    for name in ds.variables:
        var = ds[name]
        values = np.asarray(var.values)
        if values.dtype.kind not in "fiub":
            continue
        pools.append(values.astype(float).ravel())
        if "seed" in var.dims and "sim_done" in ds and name != "sim_done":
            kept = var.where(ds["sim_done"])
            for reduction in ("mean", "median", "min", "max"):
                pools.append(np.asarray(getattr(kept, reduction)("seed"), dtype=float).ravel())
            pools.append(np.asarray(kept.std("seed", ddof=1), dtype=float).ravel())
    pool = np.concatenate(pools)
    return np.unique(pool[np.isfinite(pool)])


def _in_pool(values, pool):
    x = np.asarray(values, dtype=float).ravel()
    x = x[np.isfinite(x)]
    i = np.clip(np.searchsorted(pool, x), 1, pool.size - 1)
    gap = np.minimum(np.abs(pool[i] - x), np.abs(pool[i - 1] - x))
    return gap <= 1e-12 * np.maximum(1.0, np.abs(x))


def _data_lines(fig):
    """Lines that show data: not error-bar caps, not axhline/axvline, not declared guides."""
    for ax in fig.axes:
        for line in ax.get_lines():
            if np.size(line.get_xdata()) < 2 or line.get_transform() != ax.transData:
                continue
            if line.get_linestyle() == "None" and line.get_marker() in ("_", "|"):
                continue  # the caps of an error bar: mean ± its error, drawn, not data
            if line.get_gid() == "guide":
                continue  # a slope guide drawn through stored points, declared as such
            yield line


def test_every_drawn_line_is_stored_data(stored, reproduced_name):
    """The y of every data line is a stored number or its mean, median, extreme or
    spread over seeds: no curve is re-interpolated or computed at render time."""
    import matplotlib.pyplot as plt

    name = reproduced_name
    spec, ds = get(name), stored[name]
    fig = np.atleast_1d(spec.plot(ds)).flat[0].figure
    pool = _stored_values(ds)
    try:
        for line in _data_lines(fig):
            y = line.get_ydata()
            assert _in_pool(y, pool).all(), (name, line.get_label(), np.asarray(y)[:5])
    finally:
        plt.close(fig)


def test_the_rate_distortion_points_are_drawn_where_they_were_computed(stored):
    """maxent-rd-ib once placed its Blahut–Arimoto points with np.interp over a decreasing
    array: the drawn (D, R) pairs must be the stored ones."""
    import matplotlib.pyplot as plt

    if "maxent-rd-ib" not in stored:
        pytest.skip("maxent-rd-ib is not in this reproduction (make test-report covers it)")
    ds = stored["maxent-rd-ib"].isel(beta_max=0, seed=0)
    ax = np.atleast_1d(get("maxent-rd-ib").plot(stored["maxent-rd-ib"]))[0]
    points = next(line for line in ax.get_lines() if line.get_label() == "Blahut–Arimoto")
    np.testing.assert_array_equal(points.get_xdata(), ds["sim_distortion"].values)
    np.testing.assert_array_equal(points.get_ydata(), ds["sim_rate"].values)
    np.testing.assert_allclose(
        points.get_ydata(), 1 - _binary_entropy(points.get_xdata()), rtol=1e-12
    )
    plt.close("all")


def _binary_entropy(p):
    return -(p * np.log2(p) + (1 - p) * np.log2(1 - p))


def test_no_plot_or_check_function_imports_a_solver():
    """Statically too: no plot or check function of an experiment module imports the
    algorithm, theory or model packages (a cell function may)."""
    for name in names():
        spec = get(name)
        for fn in (spec.plot, spec.checks):
            tree = ast.parse(inspect.getsource(sys.modules[fn.__module__]))
            node = next(
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef) and n.name == fn.__name__
            )
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom | ast.Import):
                    target = getattr(sub, "module", None) or sub.names[0].name
                    assert not target.startswith(FORBIDDEN), (name, fn.__name__, target)
