"""Barkai & Sompolinsky, *Statistical mechanics of the maximum-likelihood density estimation*.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

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
                "authors and title from seeds/001; journal, volume, page and year as "
                "seeds/000 cites it (its ref. 10); DOI by the APS scheme of that record"
            ),
        ),
    ),
    order=3,
)
