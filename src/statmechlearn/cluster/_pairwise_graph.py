"""Pairwise clustering of a sparse dissimilarity graph (a k-nearest-neighbour graph).

A sparse ``X`` stores some dissimilarities; the pairwise cost needs all of them. The
pairs it does not store are completed by path lengths: ``D_ij`` is the length of the
shortest path from ``i`` to ``j`` along stored pairs, the largest value the triangle
inequality allows (Isomap's completion). Pairs in different connected components, which
no path joins, are given the largest finite path length. Holding ``D`` would cost
``n^2``; it is held through ``L`` landmarks instead: the path lengths from ``L``
landmarks to every object (``L`` single-source Dijkstra runs, ``n L`` numbers) and
landmark multidimensional scaling (de Silva & Tenenbaum 2004), which places every object
at ``y_i`` with ``|y_i - y_j|^2`` approximating ``D_ij``. The pairwise cost is invariant
under constant off-diagonal shifts, and for a squared Euclidean ``D`` it is the k-means
cost of the embedded points (Roth et al. 2003, the constant shift embedding), so the
landmark embedding keeps the directions whose eigenvalue stands above the largest
negative one (below it, a direction cannot be told from the part of ``D`` that no
Euclidean embedding holds). Each product ``D @ Z`` of the annealing is then
``O(n p K)``: ``|y|^2 (1^T Z) + 1 (|y|^2)^T Z - 2 Y (Y^T Z)``. The derivation and its
numerical checks are in ``docs/derivations/pairwise_graph.md``.
"""

import numba
import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.csgraph import connected_components, dijkstra

from statmechlearn._core.thin_product import thin_product
from statmechlearn._core.validation import check_magnitude
from statmechlearn._core.warn import warn

__all__ = [
    "EmbeddedProduct",
    "GraphCompletion",
    "check_dissimilarity_graph",
    "complete_graph",
    "min_plus_rows",
    "min_plus_rows_numpy",
]

# Eigenvalues of the landmark Gram matrix below this share of the largest are zero to
# rounding (the matrix is L x L with entries of the order of the largest).
_RANK_TOL = 1e-10


def check_dissimilarity_graph(X, name="X", *, symmetry_tol=1e-8):
    """Validate a sparse dissimilarity graph and return it symmetric, without diagonal.

    Rules: square, at least one stored off-diagonal pair, finite and non-negative stored
    values, and zero wherever the diagonal is stored. A pair stored one way only (``j``
    among ``i``'s neighbours but not ``i`` among ``j``'s) is known both ways; a pair
    stored both ways with different values takes their mean, with a warning when they
    differ by more than ``symmetry_tol`` times the largest value. An explicitly stored
    zero is a known zero dissimilarity (scikit-learn's convention for precomputed
    neighbour graphs); a pair not stored is unknown.

    Parameters
    ----------
    X : scipy sparse matrix or array of shape (n, n)
    name : str, default="X"
        The argument's name in error messages.
    symmetry_tol : float, default=1e-8

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n)
        The stored dissimilarities, symmetric, with no diagonal entries.
    """
    X = sp.coo_matrix(X)
    if np.iscomplexobj(X.data):
        raise TypeError(f"{name} must be a real dissimilarity graph, got complex values")
    X = X.astype(float)
    n = X.shape[0]
    if X.shape[0] != X.shape[1] or n == 0:
        raise ValueError(
            f"{name} is sparse, and a sparse {name} is read as a neighbour graph of "
            f"dissimilarities (metric='precomputed'): it must be a non-empty square (n, n) "
            f"matrix, got shape {X.shape}. For sparse feature vectors pass a metric "
            "(metric='sqeuclidean', or another one); for a full dissimilarity matrix, a dense array"
        )
    X.sum_duplicates()
    rows, cols, values = X.row.astype(np.int64), X.col.astype(np.int64), X.data
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be finite (no NaN or inf among the stored values)")
    if values.size and values.min() < 0:
        raise ValueError(
            f"Negative values in data passed to {name}: dissimilarities must be >= 0, "
            f"smallest {values.min():g}"
        )
    scale = float(values.max()) if values.size else 0.0
    diagonal = rows == cols
    if np.any(values[diagonal] > symmetry_tol * max(scale, 1.0)):
        largest = float(values[diagonal].max())
        raise ValueError(f"{name} must have a zero diagonal, largest stored X_ii {largest:g}")
    rows, cols, values = rows[~diagonal], cols[~diagonal], values[~diagonal]
    if values.size == 0:
        raise ValueError(
            f"{name} stores no dissimilarity between two different objects: a sparse "
            "graph must store some pairs (for example the k nearest neighbours of each object)"
        )
    check_magnitude(np.array([scale]), name)
    # Union of the pattern and its transpose, the values of a pair averaged over the ways
    # it is stored (one or two): after sum_duplicates a key occurs once per way.
    keys = np.concatenate([rows * n + cols, cols * n + rows])
    pairs, where = np.unique(keys, return_inverse=True)
    count = np.bincount(where, minlength=pairs.size)
    total = np.bincount(where, weights=np.concatenate([values, values]), minlength=pairs.size)
    direct = np.zeros(pairs.size)
    direct[where[: values.size]] = values
    twice = count == 2
    asym = float(np.max(np.abs(total[twice] - 2.0 * direct[twice]))) if twice.any() else 0.0
    if asym > symmetry_tol * max(scale, 1.0):
        warn(
            f"{name} is not symmetric (max |X_ij - X_ji| = {asym:g} over pairs stored both "
            "ways); using their mean",
            UserWarning,
        )
    G = sp.csr_matrix((total / count, (pairs // n, pairs % n)), shape=(n, n))
    # an explicitly stored zero is an edge of length 0: csr keeps it, and so does dijkstra
    return G


def complete_graph(G):
    """Every pair's dissimilarity: the stored ones, and the shortest path length for the rest.

    Pairs in different connected components, which no path joins, get the largest finite
    path length, with a warning (as in :class:`GraphCompletion`).

    Parameters
    ----------
    G : scipy.sparse.csr_matrix of shape (n, n)
        From :func:`check_dissimilarity_graph`.

    Returns
    -------
    ndarray of shape (n, n)
        Symmetric, zero diagonal.
    """
    # G is symmetric: the directed search gives the undirected lengths
    D = dijkstra(G, directed=True)
    finite = np.isfinite(D)
    if not finite.all():
        far = float(D[finite].max())
        D[~finite] = far
        components = int(connected_components(G, directed=False)[0])
        warn(
            f"the graph has {components} connected components; pairs in different "
            f"components are given the largest path length, {far:g}",
            UserWarning,
        )
    # the two searches of a pair add its path's lengths in opposite orders
    return 0.5 * (D + D.T)


@numba.njit(cache=True, nogil=True)
def min_plus_rows(indptr, indices, data, distances):
    """``out[a, l] = min_j (X[a, j] + distances[j, l])`` over the stored ``j`` of row ``a``.

    The path lengths from new objects to the landmarks, given the stored dissimilarities
    ``X`` (CSR arrays) of the new objects to the training objects. A row with no stored
    entry gets ``inf``.
    """
    n_rows = indptr.size - 1
    n_land = distances.shape[1]
    out = np.full((n_rows, n_land), np.inf)
    for a in range(n_rows):
        for p in range(indptr[a], indptr[a + 1]):
            j = indices[p]
            x = data[p]
            for l in range(n_land):
                v = x + distances[j, l]
                if v < out[a, l]:
                    out[a, l] = v
    return out


def min_plus_rows_numpy(X, distances):
    """NumPy twin of :func:`min_plus_rows` (``X`` a CSR matrix), which the tests hold it to."""
    out = np.full((X.shape[0], distances.shape[1]), np.inf)
    for a in range(X.shape[0]):
        start, stop = X.indptr[a], X.indptr[a + 1]
        if stop > start:
            out[a] = np.min(X.data[start:stop, None] + distances[X.indices[start:stop]], axis=0)
    return out


class EmbeddedProduct:
    """``D @ Z`` of ``D_ij = |y_i - y_j|^2`` in ``O(n p K)``, with a count of the products.

    The interface of :class:`~statmechlearn.cluster._pairwise_anneal.ProductCounter`; the
    annealing never sees ``D``. The coordinates are held transposed, ``(p, n)``: ``Y^T Z``
    is then a product of a wide matrix with a thin one, which
    :func:`~statmechlearn._core.thin_product.thin_product` does in one read (4 ms at
    n = 10^5, p = 96, K = 4, one thread, against 16 ms for BLAS on the ``(n, p)`` layout),
    and ``(Y^T Z)^T Y^T`` streams it once more in BLAS (8 ms against 14 ms).

    Parameters
    ----------
    coordinates_t : ndarray of shape (p, n)
        The embedding, transposed.
    """

    def __init__(self, coordinates_t):
        self.Yt = np.ascontiguousarray(coordinates_t, dtype=float)
        self.norms = np.ones(self.Yt.shape[0]) @ (self.Yt * self.Yt)
        self.count = 0

    def __call__(self, Z):
        self.count += 1
        Z = np.asarray(Z, dtype=float)
        column = Z.ndim == 1
        Z = Z[:, None] if column else Z
        W = thin_product(self.Yt, Z)
        out = W.T @ self.Yt
        out *= -2.0
        out += np.outer(np.ones(Z.shape[0]) @ Z, self.norms)
        out += (self.norms @ Z)[:, None]
        return out[0] if column else np.ascontiguousarray(out.T)

    def rows(self, coordinates, Z):
        """``D_new @ Z`` for new objects at ``coordinates``, ``D_new[a, j] = |y_a - y_j|^2``.

        Parameters
        ----------
        coordinates : ndarray of shape (m, p)
        Z : ndarray of shape (n, K)

        Returns
        -------
        ndarray of shape (m, K)
        """
        norms = np.einsum("ij,ij->i", coordinates, coordinates)
        out = np.outer(norms, np.ones(Z.shape[0]) @ Z)
        out += self.norms @ Z
        out -= 2.0 * (coordinates @ (self.Yt @ Z))
        return out


class GraphCompletion:
    """Path-length completion of a dissimilarity graph, held as a landmark embedding.

    Parameters
    ----------
    n_landmarks : int
        Landmarks ``L`` (at most ``n``), chosen by max-min distance: the first at random,
        each next the object farthest from those chosen (every connected component gets
        one before any gets a second).
    random_state : numpy.random.Generator
        Chooses the first landmark.

    Attributes
    ----------
    landmarks_ : ndarray of shape (L,)
    distances_ : ndarray of shape (n, L)
        Completed dissimilarities of every object to the landmarks.
    far_ : float
        The value of pairs that no path joins: the largest finite path length found.
    n_connected_components_ : int
        Counted only when some pair has no path (1 otherwise).
    eigenvalues_ : ndarray of shape (p,)
        The kept eigenvalues of the landmarks' centred Gram matrix, decreasing.
    embedding_ : ndarray of shape (n, p)
        A view of ``coordinates_t_``, the coordinates held as ``(p, n)``.
    """

    def __init__(self, n_landmarks, random_state):
        self.n_landmarks = n_landmarks
        self.random_state = random_state

    def fit(self, G):
        """Complete the symmetric graph ``G`` (from :func:`check_dissimilarity_graph`) and embed it.

        Returns
        -------
        self
        """
        n = G.shape[0]
        n_land = min(int(self.n_landmarks), n)
        landmarks = [int(self.random_state.integers(n))]
        distances = np.empty((n, n_land))
        nearest = np.full(n, np.inf)
        for t in range(n_land):
            # G is symmetric: the directed search gives the undirected lengths without
            # the transpose scipy would build on every call
            column = dijkstra(G, directed=True, indices=landmarks[t])
            distances[:, t] = column
            np.minimum(nearest, column, out=nearest)
            if t + 1 == n_land:
                break
            farthest = int(np.argmax(nearest))
            if nearest[farthest] == 0.0:  # every object coincides with a landmark
                distances = distances[:, : t + 1].copy()
                break
            landmarks.append(farthest)
        finite = np.isfinite(distances)
        self.far_ = float(distances[finite].max())
        self.n_connected_components_ = 1
        if not finite.all():
            distances[~finite] = self.far_
            self.n_connected_components_ = int(connected_components(G, directed=False)[0])
            warn(
                f"the graph has {self.n_connected_components_} connected components; pairs "
                f"in different components are given the largest path length, {self.far_:g}",
                UserWarning,
            )
        self.landmarks_ = np.asarray(landmarks, dtype=np.intp)
        self.distances_ = distances
        self._scale_landmarks()
        # held transposed for the products (EmbeddedProduct); embedding_ is its (n, p) view
        self.coordinates_t_ = self._embed_t(self.distances_)
        self.embedding_ = self.coordinates_t_.T
        return self

    def _scale_landmarks(self):
        """Classical scaling of the landmarks and the triangulation that places the rest."""
        square = self.distances_[self.landmarks_]
        square = 0.5 * (square + square.T)
        gram = -0.5 * (square - square.mean(axis=0) - square.mean(axis=1)[:, None] + square.mean())
        values, vectors = eigh(gram)
        # Directions at or below the largest negative eigenvalue cannot be told from the
        # part of D that no Euclidean embedding holds (Roth et al.'s denoising cut).
        floor = max(-float(values[0]), _RANK_TOL * max(float(values[-1]), 0.0))
        keep = values > floor
        if not keep.any():
            raise ValueError(
                "the completed dissimilarities have no Euclidean direction above their "
                "non-Euclidean part; the graph holds no structure to cluster"
            )
        values, vectors = values[keep][::-1], vectors[:, keep][:, ::-1]
        self.eigenvalues_ = values
        self._pseudo = vectors / np.sqrt(values)
        self._mean = square.mean(axis=1)

    def embed(self, distances):
        """Coordinates of objects from their completed dissimilarities to the landmarks.

        Parameters
        ----------
        distances : ndarray of shape (m, L)

        Returns
        -------
        ndarray of shape (m, p)
            A view of a C-ordered ``(p, m)`` array.
        """
        return self._embed_t(distances).T

    def _embed_t(self, distances):
        """:meth:`embed`, transposed: ``-(pseudo^T (distances - mean)^T) / 2`` as ``(p, m)``,
        without the centred ``(m, L)`` temporary."""
        coordinates_t = self._pseudo.T @ distances.T
        coordinates_t -= (self._mean @ self._pseudo)[:, None]
        coordinates_t *= -0.5
        return coordinates_t

    def landmark_distances(self, X):
        """Completed dissimilarities of new objects to the landmarks.

        Parameters
        ----------
        X : sparse matrix or ndarray of shape (m, n)
            Dissimilarities of new objects to the training objects; for a sparse ``X``
            the stored ones (a new object's path to a landmark runs through them).

        Returns
        -------
        ndarray of shape (m, L)
        """
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=float)
            X.sum_duplicates()
            indptr, indices, data = X.indptr, X.indices, X.data
        else:
            # every entry of a dense row is known, zeros included
            X = np.asarray(X, dtype=float)
            m, n = X.shape
            indptr, indices, data = np.arange(0, m * n + 1, n), np.tile(np.arange(n), m), X.ravel()
        out = min_plus_rows(
            indptr.astype(np.int64), indices.astype(np.int64), data, self.distances_
        )
        out[np.isinf(out)] = self.far_  # a new object joined to no training object
        return out
