"""The lecture notes' sampling, annealing and mean-field approximation.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Modules: mean_field, exact_gibbs, metropolis, structured: one figure family each.
"""

from statmechlearn.experiments import PaperSection
from statmechlearn.papers.sampling._common import PAPER
from statmechlearn.papers.shared import LECTURE_NOTES

__all__ = ["SECTION"]

#: The report's section for this paper: heading, full reference and DOI.
SECTION = PaperSection(
    PAPER,
    "Sampling, annealing and mean-field approximation (lecture notes)",
    (LECTURE_NOTES,),
    order=6,
)
