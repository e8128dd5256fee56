"""The lecture notes' maximum-entropy clustering and inference.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Modules: rate_distortion, critical, finite_size, texture, peers, coding, embedding,
least_angle, planted_partition, constant_shift, phase, som, inference: one figure
family each.
"""

from statmechlearn.experiments import PaperSection
from statmechlearn.papers.maxent._common import PAPER
from statmechlearn.papers.shared import LECTURE_NOTES

__all__ = ["SECTION"]

#: The report's section for this paper: heading, full reference and DOI.
SECTION = PaperSection(
    PAPER,
    "Maximum-entropy clustering and inference (lecture notes)",
    (LECTURE_NOTES,),
    order=5,
)
