"""The papers the library reproduces, one package each.

Each package (``lvq``, ``outliers``, ``mixture``, ``sparse``, ``maxent``,
``sampling``, ``selection``) holds one paper's figures as
:class:`~statmechlearn.experiments.FigureSpec` objects, its helpers and its
reference, and is listed under the ``statmechlearn.experiments``
entry-point group exactly as a user's package would be. They use the
engine through its public API only and never import each other;
:mod:`statmechlearn.papers.shared` holds what several of them use. Nothing
imports a paper package: the registry finds them by entry point.
"""

__all__ = []
