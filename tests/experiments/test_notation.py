"""Check names in the report: plain-text symbols set as HTML symbols, code names left alone."""

import html
import re

import pytest

from statmechlearn.experiments._notation import notation_html


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Delta_em(alpha=0.5)", "Δ<sub>em</sub>(α=0.5)"),
        ("Phi_soft(eta=1)", "Φ<sub>soft</sub>(η=1)"),
        ("Q_{++}(α=10)", "Q<sub>++</sub>(α=10)"),
        ("R_+-", "R<sub>+-</sub>"),
        ("eps_g at C=C_t", "ε<sub>g</sub> at C=C<sub>t</sub>"),
        ("T_c = 2 λ_max", "T<sub>c</sub> = 2 λ<sub>max</sub>"),
        ("slope vs N^-2/3", "slope vs N<sup>-2/3</sup>"),
        ("1/(1+e^eta)", "1/(1+e<sup>η</sup>)"),
        ("Delta = (J - B)^2 / N", "Δ = (J - B)<sup>2</sup> / N"),
        ("p_1 + p_2", "p<sub>1</sub> + p<sub>2</sub>"),
        ("beta, not theta or alphabet", "β, not θ or alphabet"),
    ],
)
def test_symbols_are_set(text, expected):
    assert notation_html(text) == expected


@pytest.mark.parametrize(
    "text", ["n_init=10", "max_iter", "informative_proba_", "maximum_entropy", "p_exact"]
)
def test_code_names_stay_as_written(text):
    assert notation_html(text) == text


def test_everything_else_is_escaped():
    out = notation_html("<script>a & b</script> R_{<b>}")
    assert "<script>" not in out and "&lt;script&gt;" in out and "&amp;" in out
    # only the tags the formatter itself writes
    assert set(re.findall(r"</?(\w+)>", out)) <= {"sub", "sup"}


def test_the_text_survives_apart_from_the_symbols():
    text = "Delta_hebb(alpha=2), N → ∞ (1/N fit) vs theory"
    plain = html.unescape(re.sub(r"</?su[bp]>", "", notation_html(text)))
    assert plain == "Δhebb(α=2), N → ∞ (1/N fit) vs theory"
