"""Barkai & Sompolinsky, *Statistical mechanics of the maximum-likelihood density estimation*.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Theory: :mod:`statmechlearn.theory.ml_mixture` (zero-temperature RS).
Simulation: data from :class:`statmechlearn.models.TwoGaussians`, local maxima
of the likelihood by the library's batched deterministic-annealing kernel
(:func:`statmechlearn.cluster.two_centre_fixed_points`, the fixed points of
:class:`~statmechlearn.cluster.EqualWidthMixture`); deterministic annealing is
the library's :class:`~statmechlearn.cluster.EqualWidthMixture`, annealed down
to each width; random starts draw ``dU_0 ~ N(0, I/N)``. ``mixture-fss`` runs
the same cells at a ladder of N and extrapolates to N → ∞
(:mod:`statmechlearn.experiments._finite_size`).

Modules: fig1 ... fig4, finite_size: the paper's figures and the saddle point over a ladder
of N; real_data: critical temperatures of deterministic annealing on real data.
"""

from statmechlearn.experiments import PaperSection, Reference
from statmechlearn.papers.mixture._common import PAPER

__all__ = ["SECTION"]

#: The report's section for this paper: heading, full reference and DOI.
SECTION = PaperSection(
    PAPER,
    "Maximum-likelihood density estimation of a Gaussian mixture",
    (
        Reference(
            authors="N. Barkai, H. Sompolinsky",
            title="Statistical mechanics of the maximum-likelihood density estimation",
            journal="Phys. Rev. E",
            volume="50",
            pages="1766",
            year=1994,
            doi="10.1103/PhysRevE.50.1766",
            note="First page only, as the citing literature gives it.",
            source=(
                "authors and title from the paper's first page; journal, volume, page and "
                "year as Dietrich, Opper and Sompolinsky (1998) cite it (their ref. 10); DOI "
                "by the APS scheme of that record"
            ),
        ),
    ),
    order=3,
)
