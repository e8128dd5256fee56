"""The lecture notes' model-order selection and validation.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Two tables:

``selection-gap``
    The gap statistic on Tibshirani et al.'s simulated settings: a null
    (200 points uniform in the 10-dimensional unit cube, one cluster) and
    three 2-D Gaussian clusters centred (0,0), (0,5), (5,−3) with 25/50/25
    points and unit variance. The chosen k over replicate data sets, for
    each named decision rule; the paper reports 49/50 and 50/50 correct.
``selection-comparison``
    Gap, stability, BIC and posterior agreement (approximation set coding,
    §8: Boltzmann weights, resolution β chosen by the largest capacity,
    with the notes' labeling codebook and with the protocol's permutation
    codebook) on the same data sets per seed: four sharp blobs, four
    blurred blobs, Tibshirani's three clusters, a 2-D null and a random
    subsample of scikit-learn's wine data (standardised, three cultivars).
    How often each criterion picks each k, and whether posterior agreement
    over-estimates k more often than the others (paired over seeds).
``selection-protocol``
    The two-instance communication protocol of §8.4 simulated with
    ``simulate_protocol``: the decoding error against the rate ``R = log(M)/n``
    beside the measured approximation capacity and the union bound of §8.5.

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
