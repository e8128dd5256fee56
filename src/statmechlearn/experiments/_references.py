"""The works experiments reproduce, as the report heads its sections with them.

A paper's package (or a user's experiment module) defines one
:class:`PaperSection` at module level next to its figure specs; the
registry collects it as it collects the specs, and the report gives each
paper key its own section headed by these references, in the sections'
``order``. The engine holds no paper's reference itself.
"""

from dataclasses import dataclass

__all__ = ["PaperSection", "Reference"]


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
    order : float, default=inf
        Where the section stands in the report (ascending; ties and
        sections without an order by key).

    Examples
    --------
    >>> from statmechlearn.experiments import PaperSection, Reference
    >>> hebb = Reference(authors="D. O. Hebb", title="The Organization of Behavior", year=1949)
    >>> section = PaperSection("hebb", "Hebbian learning", (hebb,), order=1)
    >>> section.references[0].text()
    'D. O. Hebb, The Organization of Behavior (1949).'
    """

    key: str
    heading: str
    references: tuple = ()
    order: float = float("inf")
