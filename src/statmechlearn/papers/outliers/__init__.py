"""Dietrich & Opper, *Statistical mechanics of learning in the presence of outliers*.

Its figures as experiments, its helpers and its reference. Registered under
the ``statmechlearn.experiments`` entry-point group as a package, exactly as
a user's package would be: the registry imports every module here and
collects the module-level figure specs and :data:`SECTION`.

Figures 1-8 of the paper: the replica theory of
:mod:`statmechlearn.theory.outliers` beside EM simulations on data from
:class:`statmechlearn.models.OutlierMixture` (gamma = gamma~ = 10 throughout,
as in the paper). Soft selection is the MAP of J by EM (eqs. 23-24) started
from the Hebb vector; hard selection is the MAP of the V's: EM (26)-(28)
started from the soft solution, refined by exact single flips (see
``docs/derivations/outliers_replica.md`` for why).

Where the re-derived theory disagrees with the paper (eta0 of eq. 30, the
finite asymptotic critical eta of hard selection and its jump at
gamma < 0.278), the report says so in the checks of ``outliers-fig6`` and
``outliers-fig8``. ``outliers-hard-fss`` (hard EM from the teacher at
alpha = 1000 over a ladder of N) and ``outliers-fss`` (soft selection at a
ladder of N) extrapolate simulations to N -> infinity
(``docs/derivations/outliers_hard_branches.md``).

Modules: fig1 ... fig8 (fig4_fig7 holds the two figures that draw the same branches),
finite_size: the paper's figures and the saddle point over a ladder of N; hard_thresholds:
Fig. 8's thresholds as hard EM from the teacher meets them, over a ladder of N; real_data:
the EM on real data.
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
                "authors and title from the paper's first page; journal, pages and DOI: the arXiv "
                "record cond-mat/9803316"
            ),
        ),
    ),
    order=2,
)
