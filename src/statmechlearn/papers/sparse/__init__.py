"""Uda & Kabashima, *Statistical mechanical development of a sparse Bayesian classifier*.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Modules: figures: Figs. 1, 3 and 4 and the state evolution over a ladder of N; colon:
Table 1 on the shipped colon-cancer data.
"""

from statmechlearn.experiments import PaperSection, Reference
from statmechlearn.papers.sparse._common import PAPER

__all__ = ["SECTION"]

#: The report's section for this paper: heading, full reference and DOI.
SECTION = PaperSection(
    PAPER,
    "A sparse Bayesian classifier",
    (
        Reference(
            authors="S. Uda, Y. Kabashima",
            title="Statistical mechanical development of a sparse Bayesian classifier",
            journal="J. Phys. Soc. Jpn.",
            volume="74",
            pages="2233–2242",
            year=2005,
            doi="10.1143/JPSJ.74.2233",
            link="https://arxiv.org/abs/cond-mat/0502051",
            source=(
                "authors and title from the paper's first page; journal, volume, pages and "
                "DOI: the arXiv record cond-mat/0502051"
            ),
        ),
    ),
    order=4,
)
