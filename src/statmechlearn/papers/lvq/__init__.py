"""Biehl, Ghosh & Hammer, *Learning vector quantization: dynamics of winner-takes-all algorithms*.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Modules: fig1, fig2, fig3 (a and b), finite_size: the paper's figures and the ODEs over a
ladder of N; beyond: the VQ plateau and self-averaging; real_data: LVQ on real data sets.
"""

from statmechlearn.experiments import PaperSection, Reference
from statmechlearn.papers.lvq._common import PAPER

__all__ = ["SECTION"]

#: The report's section for this paper: heading, full reference and DOI.
SECTION = PaperSection(
    PAPER,
    "Learning vector quantization: dynamics of winner-takes-all algorithms",
    (
        Reference(
            authors="M. Biehl, A. Ghosh, B. Hammer",
            title=("Learning vector quantization: The dynamics of winner-takes-all algorithms"),
            journal="Neurocomputing",
            volume="69",
            pages="660–670",
            year=2006,
            doi="10.1016/j.neucom.2005.12.007",
            source=(
                "authors and title from seeds/002; DOI from the publisher's record; "
                "volume and pages as the LVQ literature cites them"
            ),
        ),
    ),
    order=1,
)
