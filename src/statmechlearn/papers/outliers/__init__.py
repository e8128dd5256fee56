"""Dietrich & Opper, *Statistical mechanics of learning in the presence of outliers*.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Modules: fig1 ... fig8 (fig4_fig7 holds the two figures that draw the same branches),
finite_size: the paper's figures and the saddle point over a ladder of N; real_data: the
EM on real data.
"""

from statmechlearn.experiments import PaperSection, Reference
from statmechlearn.papers.outliers._common import PAPER

__all__ = ["SECTION"]

#: The report's section for this paper: heading, full reference and DOI.
SECTION = PaperSection(
    PAPER,
    "Learning in the presence of outliers",
    (
        Reference(
            authors="R. Dietrich, M. Opper",
            title="Statistical mechanics of learning in the presence of outliers",
            journal="J. Phys. A: Math. Gen.",
            volume="31",
            pages="9131–9147",
            year=1998,
            doi="10.1088/0305-4470/31/46/005",
            link="https://arxiv.org/abs/cond-mat/9803316",
            source=(
                "authors and title from seeds/000; journal, pages and DOI: the arXiv "
                "record cond-mat/9803316"
            ),
        ),
    ),
    order=2,
)
