"""Every figure in one style: theory as lines, simulation as markers with ± SE bars, said in
the legend; symbols in mathtext, never raw ``_`` or ``^``.

The figures are drawn from the quick run the render test also reads (one session fixture),
so this adds only the plotting time.
"""

import ast
import inspect
import re
import sys
import textwrap

import matplotlib
import numpy as np
import pytest
from matplotlib.container import ErrorbarContainer

from statmechlearn.experiments import ResultStore, get, names
from statmechlearn.experiments._plotting import (
    legend_with_key,
    mean_se,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)

matplotlib.use("Agg")

#: Plot code that takes a standard deviation on purpose, and why.
STD_IN_PLOT = {
    "lvq-self-averaging": "the SD over runs is the quantity; its bars are bootstrap SEs",
    "sparse-table1": "beside the paper's Table 1, which gives mean ± SD over splits",
}
#: Figures whose bars are not a standard error, and why; the figure must say "SD" instead.
SPREAD_ON_PURPOSE = {
    "sparse-table1": "beside the paper's Table 1, which gives mean ± SD over splits",
}


def _outside_math(text):
    return re.sub(r"\$[^$]*\$", "", text)


def raw_notation(text):
    """The TeX-like notation a text shows raw: ``_``, ``^`` or ``\\`` outside ``$…$``."""
    if text.count("$") % 2:
        return "unbalanced $"
    found = sorted(set(re.findall(r"[_^\\]", _outside_math(text))))
    return "".join(found)


def _texts(fig):
    """Every axis label, title and legend text of a figure, with where it sits."""
    out = []
    if fig._suptitle is not None:
        out.append(("suptitle", fig._suptitle.get_text()))
    for legend in fig.legends:
        out += [("figure legend", t.get_text()) for t in legend.get_texts()]
    for i, ax in enumerate(fig.axes):
        out += [
            (f"ax{i} xlabel", ax.get_xlabel()),
            (f"ax{i} ylabel", ax.get_ylabel()),
            (f"ax{i} title", ax.get_title()),
        ]
        if ax.get_legend() is not None:
            out += [(f"ax{i} legend", t.get_text()) for t in ax.get_legend().get_texts()]
    return [(where, text) for where, text in out if text]


def _legend_text(fig):
    return " | ".join(t for where, t in _texts(fig) if "legend" in where).lower()


def _is_cap(line):
    return line.get_linestyle() == "None" and line.get_marker() in ("_", "|", 0, 1, 2, 3)


def _kinds(ax):
    """The marks of one Axes: error-barred simulations, bare markers, data lines."""
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer) and c.has_yerr]
    in_bars = {id(c.lines[0]) for c in bars if c.lines[0] is not None}
    markers, lines = [], []
    for line in ax.get_lines():
        if id(line) in in_bars or _is_cap(line) or line.get_gid() == "guide":
            continue
        if line.get_transform() != ax.transData:
            continue  # axhline / axvline: a reference level, not a curve
        if line.get_linestyle() == "None":
            markers.append(line)
        elif np.size(line.get_xdata()) >= 2:
            lines.append(line)
    return bars, markers, lines


def style_problems(fig):
    """What breaks the house style in a drawn figure (empty when nothing does)."""
    problems = [
        f"{where}: raw {bad!r} in {text!r}"
        for where, text in _texts(fig)
        if (bad := raw_notation(text))
    ]
    legend = _legend_text(fig)
    any_bars = both = False
    for i, ax in enumerate(fig.axes):
        bars, markers, lines = _kinds(ax)
        # one legend entry may stand for a marker drawn in several colours or pieces
        labelled = {m.get_marker() for m in markers if not m.get_label().startswith("_")}
        for m in markers:
            if m.get_label().startswith("_") and m.get_marker() not in labelled:
                problems.append(f"ax{i}: markers without bars and without a legend entry")
        any_bars |= bool(bars)
        both |= bool(bars) and any(line.get_gid() != "simulation" for line in lines)
    if both:
        problems += [
            f"lines beside error bars but no legend entry says {kind!r}"
            for kind in ("theory", "simulation")
            if kind not in legend
        ]
    if any_bars and not any(re.search(r"\bSE\b|standard error", t) for _, t in _texts(fig)):
        problems.append("error bars drawn but nothing says they are ± SE")
    return problems


@pytest.fixture(scope="module")
def stored(quick_results, reproduced):
    out, _ = quick_results
    store = ResultStore(out / "store")
    return {n: store.latest(get(n)) for n in reproduced}


def test_every_figure_keeps_the_house_style(stored, reproduced_name):
    import matplotlib.pyplot as plt

    name = reproduced_name
    spec, ds = get(name), stored[name]
    assert ds is not None, f"{name} has no stored result"
    fig = np.atleast_1d(spec.plot(ds)).flat[0].figure
    try:
        problems, texts = style_problems(fig), _texts(fig)
    finally:
        plt.close(fig)
    if name in SPREAD_ON_PURPOSE:
        problems = [p for p in problems if "± SE" not in p]
        assert any(re.search(r"\bSD\b", t) for _, t in texts), (name, "say the bars are SD")
    assert not problems, (name, problems)


def _plot_source(fn, depth=2):
    """The source of a plot function and of the module-level helpers it calls."""
    module = sys.modules[fn.__module__]
    seen, todo, out = set(), [(fn, 0)], []
    while todo:
        f, d = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
        out.append(tree)
        if d < depth:
            for node in ast.walk(tree):
                if isinstance(node, ast.Name) and inspect.isfunction(vars(module).get(node.id)):
                    helper = vars(module)[node.id]
                    if helper.__module__ == module.__name__:
                        todo.append((helper, d + 1))
    return out


def _takes_a_std(trees):
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in ("std", "nanstd"):
                    return True
    return False


@pytest.mark.parametrize("name", names())
def test_no_plot_draws_a_standard_deviation_as_its_error_bar(name):
    """Error bars are ± SE (mean_se); a plot that takes a SD says why in STD_IN_PLOT."""
    takes = _takes_a_std(_plot_source(get(name).plot))
    assert takes == (name in STD_IN_PLOT), (name, "a SD in the plot code" if takes else "stale")


def test_the_style_check_catches_each_kind_of_break():
    import matplotlib.pyplot as plt

    fig, ax = subplots(figsize=(3, 2))
    plot_theory(ax, [0, 1, 2], [0, 1, 4], label="eps_g")
    plot_simulation(ax, [0, 1, 2], [0.1, 0.9, 4.2], [0.1, 0.1, 0.2], label="LVQ1")
    ax.plot([0, 1], [1, 2], "s")  # bare markers with no legend entry
    ax.set_xlabel(r"$\alpha$ and T_c")
    ax.legend()
    problems = " | ".join(style_problems(fig))
    plt.close(fig)
    for expected in (
        "raw '_' in 'eps_g'",
        "xlabel: raw '_'",
        "markers without bars",
        "no legend entry says 'theory'",
        "no legend entry says 'simulation'",
        "nothing says they are ± SE",
    ):
        assert expected in problems, (expected, problems)

    fig, ax = subplots(figsize=(3, 2))
    plot_theory(ax, [0, 1, 2], [0, 1, 4], label=r"$\epsilon_g$, theory")
    plot_simulation(ax, [0, 1, 2], [0.1, 0.9, 4.2], [0.1, 0.1, 0.2], label=simulation_label(8))
    ax.plot([0, 1], [1, 2], "s", label="reference points")
    ax.axhline(1.0, color="0.5")  # a reference level: neither theory nor simulation
    ax.set_xlabel(r"$\alpha$, $T_c$")
    ax.legend()
    assert style_problems(fig) == []
    plt.close(fig)


def test_raw_notation_is_what_mathtext_would_not_typeset():
    assert raw_notation(r"$\epsilon_g$ of LVQ1") == ""
    assert raw_notation("R_11") == "_"
    assert raw_notation("sigma^2") == "^"
    assert raw_notation(r"\alpha") == "\\"
    assert raw_notation("$x") == "unbalanced $"


def test_simulation_label_names_the_error_and_the_runs():
    assert simulation_label() == "simulation (mean ± SE)"
    assert simulation_label(24) == "simulation (mean ± SE, 24 seeds)"
    assert simulation_label([8, 6, 8, 0], "LVQ1, simulation") == (
        "LVQ1, simulation (mean ± SE, 6–8 seeds)"
    )
    assert simulation_label([0, 0]) == "simulation (mean ± SE)"


def test_the_legend_key_adds_a_theory_line_and_a_simulation_marker_off_the_axes():
    import matplotlib.pyplot as plt

    fig, ax = subplots(figsize=(3, 2))
    plot_theory(ax, [0, 1], [0, 1], label="$p_+ = 0.8$", color="C1")
    mean, se = mean_se(np.array([[1.0, 2.0], [2.0, 4.0]]), 1)
    plot_simulation(ax, [0, 1], mean, se, label=None, color="C1")
    lines, containers = len(ax.get_lines()), len(ax.containers)
    legend = legend_with_key(ax, simulation=simulation_label(2))
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts == ["$p_+ = 0.8$", "theory", "simulation (mean ± SE, 2 seeds)"]
    assert (len(ax.get_lines()), len(ax.containers)) == (lines, containers)
    assert style_problems(fig) == []
    assert [t.get_text() for t in legend_with_key(ax, theory=None).get_texts()] == [
        "$p_+ = 0.8$",
        "simulation (mean ± SE)",
    ]
    plt.close(fig)
