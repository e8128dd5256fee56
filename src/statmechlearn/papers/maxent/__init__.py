"""The lecture notes' maximum-entropy clustering and inference.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Three figures:

``maxent-rd-ib``
    Rate–distortion of a fair coin under Hamming distortion by Blahut–Arimoto
    against ``R(D) = 1 - H(D)``; the information bottleneck of the joint
    ``{00, 02, 12, 21, 22}`` (each 1/5): ``I(X;Y)``, the optimum at
    ``beta = 10`` quoted in the issue, the first transition at
    ``1 / s_2^2`` (derived in ``docs/derivations/information_bottleneck.md``),
    and the same curve from dit (``IBCurve``), with the run-time ratio.
``maxent-critical-temperature``
    One data set (count histograms of three multinomial sources): free
    energy and number of clusters against ``T / T_c`` for deterministic
    annealing, pairwise clustering of the squared distances and histogram
    clustering; each first split against its predicted ``T_c``.
``maxent-texture``
    Histogram clustering segments a mosaic of scikit-image's brick, grass
    and gravel textures from local binary-pattern histograms; accuracy
    against the known tiling, KMeans on the same histograms beside it.

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
