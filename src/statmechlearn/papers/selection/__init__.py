"""The lecture notes' model-order selection and validation.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Modules: gap, comparison, protocol, typical_set: one figure each.
"""

from statmechlearn.experiments import PaperSection, Reference
from statmechlearn.papers.selection._common import PAPER
from statmechlearn.papers.shared import LECTURE_NOTES

__all__ = ["SECTION"]

#: The report's section for this paper: heading, full reference and DOI.
SECTION = PaperSection(
    PAPER,
    "Model-order selection and validation (lecture notes)",
    (
        LECTURE_NOTES,
        Reference(
            authors="R. Tibshirani, G. Walther, T. Hastie",
            title="Estimating the number of clusters in a data set via the gap statistic",
            journal="J. R. Stat. Soc. B",
            volume="63",
            pages="411–423",
            year=2001,
            doi="10.1111/1467-9868.00293",
            source="the gap statistic the selection experiments compare with",
        ),
    ),
    order=7,
)
