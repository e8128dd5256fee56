"""Biehl, Ghosh & Hammer, *Learning vector quantization: dynamics of winner-takes-all algorithms*.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

``lvq-fig1``: the data model (eq. 3) in N = 200: projections of 400 points on a
random orthonormal pair (no visible clusters) and on B₊, B₋ (two clusters),
with the model's exact moments checked over seeds.

``lvq-fig2``: order parameters R_{S sigma}(alpha) and Q_{ST}(alpha) of on-line
LVQ1 (p_+ = 0.8, lambda = 1, eta = 0.2): the ODEs of App. A
(:mod:`statmechlearn.theory.lvq_dynamics`) beside Monte Carlo runs of the
library's WTA kernel (:func:`statmechlearn.lvq.wta_online_updates`) on data
from :class:`statmechlearn.models.LabeledMixture`.

``lvq-fss``: the Fig. 2 point (α = 10) at a ladder of N, extrapolated to
N → ∞ with :mod:`statmechlearn.experiments._finite_size` and compared with the ODEs.

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
                "authors and title from the paper's first page; DOI from the publisher's record; "
                "volume and pages as the LVQ literature cites them"
            ),
        ),
    ),
    order=1,
)
