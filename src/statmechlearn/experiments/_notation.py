"""Plain-text symbols as HTML: ``Delta_em(alpha=0.5)`` -> Δ<sub>em</sub>(α=0.5).

Check quantities and figure captions are written in plain text (``R_{++}``, ``eps_g``, ``N^-2/3``)
so that they read well in a terminal and in code. The report is HTML and
loads no math renderer (it is one self-contained file), so it sets the
symbols itself: Greek names become Greek letters, a subscript or superscript
on a symbol becomes ``<sub>``/``<sup>``. Code names stay as they are: a
subscript is only read as one on a single letter or a Greek name, and a
lowercase Latin letter takes at most two subscript characters, so
``n_init``, ``max_iter`` and ``informative_proba_`` are left alone.
"""

import html
import re

__all__ = ["notation_html"]

#: Greek names as the checks spell them (whole words only)
_GREEK = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "Gamma": "Γ",
    "delta": "δ",
    "Delta": "Δ",
    "eps": "ε",
    "epsilon": "ε",
    "eta": "η",
    "theta": "θ",
    "kappa": "κ",
    "lambda": "λ",
    "lam": "λ",
    "mu": "μ",
    "nu": "ν",
    "rho": "ρ",
    "sigma": "σ",
    "Sigma": "Σ",
    "tau": "τ",
    "phi": "φ",
    "Phi": "Φ",
    "psi": "ψ",
    "omega": "ω",
}
_GREEK_NAMES = "|".join(sorted(_GREEK, key=len, reverse=True))
# a symbol: a Greek name, a Greek letter or a Latin letter, not inside a longer word
_SYMBOL = rf"(?<![\w\\])(?P<base>{_GREEK_NAMES}|[A-Za-zα-ωΑ-Ω])"
_SUB = re.compile(
    _SYMBOL + r"_(?:\{(?P<braced>[^{}]{1,12})\}|(?P<bare>[A-Za-z0-9+\-α-ω]{1,6}))(?![\w])"
)
_SUP = re.compile(
    r"(?<=[\w)⟩])\^(?:\{(?P<braced>[^{}]{1,12})\}"
    rf"|(?P<bare>-?[0-9./]+|(?:{_GREEK_NAMES}|[A-Za-zα-ω])(?!\w)))"
)
_WORD = re.compile(rf"(?<![\w\\])(?:{_GREEK_NAMES})(?![\w])")


def _sub(match):
    base, text = match["base"], match["braced"] or match["bare"]
    if match["bare"] and base.isascii() and base.islower() and len(text) > 2:
        return match[0]  # n_init, p_exact: a name in code, not a symbol with a subscript
    return f"{base}\x00{text}\x01"


def notation_html(text):
    """``text`` as HTML, with its plain-text symbols set as symbols.

    Parameters
    ----------
    text : str
        A check's quantity, e.g. ``"Q_{++}(alpha=10), N -> inf"``.

    Returns
    -------
    str
        Escaped HTML: ``Q<sub>++</sub>(α=10), N -> inf``.

    Examples
    --------
    >>> from statmechlearn.experiments._notation import notation_html
    >>> notation_html("Delta_em(alpha=0.5)")
    'Δ<sub>em</sub>(α=0.5)'
    >>> notation_html("n_init=10 beats N^-2/3")
    'n_init=10 beats N<sup>-2/3</sup>'
    """
    marked = _SUB.sub(_sub, text)
    marked = _SUP.sub(lambda m: f"\x02{m['braced'] or m['bare']}\x03", marked)
    marked = _WORD.sub(lambda m: _GREEK[m[0]], marked)
    out = html.escape(marked, quote=False)
    for mark, tag in (("\x00", "<sub>"), ("\x01", "</sub>"), ("\x02", "<sup>"), ("\x03", "</sup>")):
        out = out.replace(mark, tag)
    # the base of a subscript may itself be a Greek name: set it too
    return re.sub(rf"(?<![\w])({_GREEK_NAMES})(?=<sub>)", lambda m: _GREEK[m[1]], out)
