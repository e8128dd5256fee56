"""The works the experiments reproduce: full references, DOIs and stable links.

One :class:`PaperSection` per paper key of the registry (``statmechlearn
list``); the report gives each its own section headed by these references.
Authors, titles and years are those printed in the texts the project works
from (``seeds/000``-``004``); journal, volume, pages and DOI are the
publisher's record of the same work (the seeds are preprint extractions that
do not print them), and ``source`` says where each came from. The lecture
notes were never published: no journal, no DOI, no stable link, and the
report says so instead of inventing one.
"""

from dataclasses import dataclass

__all__ = ["PAPERS", "PaperSection", "Reference", "paper_section"]


@dataclass(frozen=True)
class Reference:
    """One published work (or unpublished notes), as a bibliography entry.

    Attributes
    ----------
    authors : str
    title : str
    year : int
    journal, volume, pages : str or None
        None for unpublished notes.
    doi : str or None
        Without the resolver prefix (``10.1103/PhysRevE.50.1766``).
    link : str or None
        A stable link besides the DOI (arXiv), or the only one.
    note : str
        What the reader should know about the entry (no DOI exists, ...).
    source : str
        Where the bibliographic data come from.
    """

    authors: str
    title: str
    year: int
    journal: str | None = None
    volume: str | None = None
    pages: str | None = None
    doi: str | None = None
    link: str | None = None
    note: str = ""
    source: str = ""

    @property
    def doi_url(self):
        """The DOI as a resolvable link, or None."""
        return f"https://doi.org/{self.doi}" if self.doi else None

    def text(self):
        """The entry as one line of plain text."""
        parts = [f"{self.authors}, {self.title}"]
        if self.journal:
            venue = self.journal
            if self.volume:
                venue += f" {self.volume}"
            if self.pages:
                venue += f", {self.pages}"
            parts.append(venue)
        line = ", ".join(parts) + f" ({self.year})."
        if self.doi:
            line += f" doi:{self.doi}"
        return line


@dataclass(frozen=True)
class PaperSection:
    """A paper key's section of the report: its heading and its references.

    Attributes
    ----------
    key : str
        The paper key of the registry (``FigureSpec.paper``).
    heading : str
        Short title of the section.
    references : tuple of Reference
        The work reproduced first, then works a section also draws on.
    """

    key: str
    heading: str
    references: tuple


_LECTURE_NOTES = Reference(
    authors="D. Çetin",
    title="Statistical Learning Theory (lecture notes)",
    year=2019,
    note=(
        "Unpublished course notes dated 13 September 2019, quoting the lecturer (Buhmann); "
        "they print no institution. No DOI or stable public link exists: the project works "
        "from the text copy in seeds/004."
    ),
    source="title, author and date as printed in seeds/004",
)

#: Paper key -> section, in the order the report shows them (the seeds' order of topics).
PAPERS = {
    section.key: section
    for section in (
        PaperSection(
            "lvq",
            "Learning vector quantization: dynamics of winner-takes-all algorithms",
            (
                Reference(
                    authors="M. Biehl, A. Ghosh, B. Hammer",
                    title=(
                        "Learning vector quantization: The dynamics of winner-takes-all algorithms"
                    ),
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
        ),
        PaperSection(
            "outliers",
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
        ),
        PaperSection(
            "mixture",
            "Maximum-likelihood density estimation of a Gaussian mixture",
            (
                Reference(
                    authors="N. Barkai, H. Sompolinsky",
                    title="Statistical mechanics of the maximum-likelihood density estimation",
                    journal="Phys. Rev. E",
                    volume="50",
                    pages="1766",
                    year=1994,
                    doi="10.1103/PhysRevE.50.1766",
                    note="First page only, as the citing literature gives it.",
                    source=(
                        "authors and title from seeds/001; journal, volume, page and year as "
                        "seeds/000 cites it (its ref. 10); DOI by the APS scheme of that record"
                    ),
                ),
            ),
        ),
        PaperSection(
            "sparse",
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
                        "authors and title from seeds/003; journal, volume, pages and DOI: the "
                        "arXiv record cond-mat/0502051"
                    ),
                ),
            ),
        ),
        PaperSection(
            "maxent",
            "Maximum-entropy clustering and inference (lecture notes)",
            (_LECTURE_NOTES,),
        ),
        PaperSection(
            "sampling",
            "Sampling, annealing and mean-field approximation (lecture notes)",
            (_LECTURE_NOTES,),
        ),
        PaperSection(
            "selection",
            "Model-order selection and validation (lecture notes)",
            (
                _LECTURE_NOTES,
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
        ),
    )
}


def paper_section(key):
    """The section for a paper key; a key without references gets an empty one.

    Parameters
    ----------
    key : str

    Returns
    -------
    PaperSection
    """
    return PAPERS.get(key) or PaperSection(key, key, ())
