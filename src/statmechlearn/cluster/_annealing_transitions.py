"""The transitions of deterministic annealing's path: merges, splits and the final moves.

:class:`_Transitions` holds the methods of
:class:`~statmechlearn.cluster.DeterministicAnnealing` that change its code
vectors between fixed points: merging code vectors that fell together, finding
and making the splits (critical temperatures from the posterior-weighted
covariances), and, at the final temperature, the split-and-merge and swap moves
and Hartigan's single-object moves. They read the fit's state from the
estimator (``_x_sq``, ``_sample_weight``, ``_scale``, ``path_``) and iterate
fixed points through its ``_iterate``.
"""

import numpy as np

from statmechlearn._core.distances import squared_distances
from statmechlearn.cluster._annealing_inputs import verbose_print
from statmechlearn.cluster._annealing_moves import (
    SWAP_ROWS,
    coincident,
    coincident_groups,
    nearest,
    principal_axes,
    relocate,
    swap,
)
from statmechlearn.cluster._gibbs import gibbs_statistics
from statmechlearn.cluster._polish_kmeans import sse_moves

__all__ = []


class _Transitions:
    """Merges, splits and final moves of :class:`~statmechlearn.cluster.DeterministicAnnealing`."""

    def _relocate(self, X, centers, log_w, T, rng):
        """Split-and-merge, then swap moves at the final temperature (see Notes).

        Above ``SWAP_ROWS`` rows the moves are searched on an even thinning of
        X (each trial is a fixed point, tens of passes) and their result is
        kept only if its fixed point on all rows has a lower inertia.
        """
        x_sq, w = self._x_sq, self._sample_weight
        stride = -(-X.shape[0] // SWAP_ROWS)
        Xs, self._x_sq = X[::stride], x_sq[::stride]
        self._sample_weight = None if w is None else w[::stride]
        events = []

        def trial(X, centers, log_w, T):
            return self._iterate(X, centers, log_w, T, with_stats=False)

        try:
            ws = self._sample_weight
            moved_c, moved_w = relocate(Xs, self._x_sq, centers, log_w, T, trial, events, ws)
            swapped = swap(Xs, self._x_sq, moved_c, T, trial, events, rng, ws)
            if swapped is not None:
                moved_c, moved_w = swapped
        finally:
            self._x_sq, self._sample_weight = x_sq, w
        if not events:
            return centers, log_w
        if stride > 1:
            moved_c, moved_w, _ = self._iterate(X, moved_c, moved_w, T, with_stats=False)
            after, before = (nearest(X, x_sq, c, w)[1] for c in (moved_c, centers))
            if not after < before * (1.0 - 1e-12):
                return centers, log_w
        self.path_.events.extend(events)
        verbose_print(self.verbose, f"Relocation moves: {len(events)} kept.")
        return moved_c, moved_w

    def _single_moves(self, X, centers, log_w, T):
        """Hartigan's single-object moves on the final partition, kept if the free energy falls.

        The fixed point at the floor is one of Lloyd's: every row is nearest its own
        centroid, yet moving one row to another cluster can still lower the k-means
        cost (``n_b/(n_b+1) |x - m_b|^2 < n_a/(n_a-1) |x - m_a|^2``). The moves take the
        partition to a local minimum of the cost under single moves
        (:func:`~statmechlearn.cluster._polish.sse_moves`), where every row is still
        nearest its own centroid, so the fixed point from its means is that partition.
        """
        sw = self._sample_weight
        labels, _ = nearest(X, self._x_sq, centers)
        K = len(centers)
        if np.bincount(labels, weights=sw, minlength=K).min() == 0:
            return centers, log_w
        moved, n_moves = sse_moves(X, labels, K, sample_weight=sw)
        if n_moves == 0:
            return centers, log_w
        counts = np.bincount(moved, weights=sw, minlength=K)
        if sw is None:
            sums = np.column_stack([np.bincount(moved, weights=col, minlength=K) for col in X.T])
        else:
            sums = np.column_stack(
                [np.bincount(moved, weights=sw * col, minlength=K) for col in X.T]
            )
        total = X.shape[0] if sw is None else sw.sum()
        trial_w = np.log(counts / total) if self.mass_constrained else log_w
        trial, trial_w, _ = self._iterate(X, sums / counts[:, None], trial_w, T, with_stats=False)
        # judged by the anneal's own objective at T, the free energy (the inertia as
        # T -> 0): at a finite last temperature (EqualWidthMixture's width) a fixed point
        # of lower hard inertia can have a higher free energy
        before, after = (
            float(gibbs_statistics(X, c[None], w[None], T, sample_weight=sw)["free_energy"][0])
            for c, w in ((centers, log_w), (trial, trial_w))
        )
        if not after < before - 1e-12 * abs(before):
            return centers, log_w
        verbose_print(self.verbose, f"Single-object moves: {n_moves} made.")
        self.path_.events.append(
            {
                "temperature": T,
                "critical_temperature": np.nan,
                "cluster": -1,
                "accepted": True,
                "single_moves": int(n_moves),
            }
        )
        return trial, trial_w

    def _settled(self, centers):
        """Whether no split can come any more: every code vector allowed is in use and distinct."""
        if self.mass_constrained:
            return len(centers) >= self.n_clusters
        return int(coincident_groups(coincident(centers, np.sqrt(self._scale))).max()) + 1 == len(
            centers
        )

    def _merge(self, centers, log_w, T, stats):
        """Merge mass-constrained code vectors that have fallen together.

        Coincident code vectors act as one whose weight is their sum, so
        merging them changes nothing but frees room for a split elsewhere.
        Two count as coincident when their squared gap is below ``1e-6``
        times their clusters' mean squared spread.
        """
        if len(centers) < 2:
            return centers, log_w
        mass = stats["cluster_mass"]
        spread = stats["cluster_distortion"] / np.maximum(mass, np.finfo(float).tiny)
        gap = squared_distances(centers, centers)
        labels = coincident_groups(gap < 1e-6 * (spread[:, None] + spread[None, :]) / 2.0)
        if labels.max() + 1 == len(centers):
            return centers, log_w
        members = [labels == g for g in range(labels.max() + 1)]
        merged_w = np.array([np.logaddexp.reduce(log_w[m]) for m in members])
        merged_c = np.array(
            [np.average(centers[m], axis=0, weights=mass[m] + 1e-300) for m in members]
        )
        for m in members:
            if m.sum() > 1:
                self.path_.events.append(
                    {
                        "temperature": T,
                        "critical_temperature": np.nan,
                        "cluster": int(np.argmax(m)),
                        "accepted": False,
                    }
                )
        return merged_c, merged_w

    def _candidates(self, X, centers, log_w, T):
        """Clusters that may still split, with their critical temperatures.

        Mass-constrained: every code vector while fewer than n_clusters exist.
        Unconstrained: every group of code vectors that still coincide. Returns
        ``(2 lambda_max, first member, members, lambda_max, principal axis)``
        of the posterior-weighted covariance, highest critical temperature first.
        """
        if self.mass_constrained:
            if len(centers) >= self.n_clusters:
                return []
            labels = np.arange(len(centers))
        else:
            labels = coincident_groups(coincident(centers, np.sqrt(self._scale)))
        groups = [np.flatnonzero(labels == g) for g in range(labels.max() + 1)]
        if not self.mass_constrained:
            groups = [members for members in groups if len(members) >= 2]
        axes = principal_axes(X, self._x_sq, centers, log_w, T, groups, self._sample_weight)
        candidates = [
            (2.0 * lam, members[0], members, lam, vec, mass)
            for members, (lam, vec, mass) in zip(groups, axes, strict=True)
        ]
        candidates.sort(key=lambda c: -c[0])
        return candidates

    def _split(self, X, centers, log_w, T, rng, candidates):
        """Split the candidate clusters whose critical temperature lies above T.

        Mass-constrained: a code vector is duplicated and the pair pushed apart
        along its principal axis (weights halved). Unconstrained: a group of
        coincident code vectors is divided in two halves the same way. Returns
        the new code vectors and weights, the path statistics at them (None
        when a pair was merged back), and the candidates left unsplit.
        """
        room = self.n_clusters - len(centers) if self.mass_constrained else len(centers)
        splits = [c for c in candidates if c[0] > T][:room]
        centers, log_w = list(centers), list(log_w)
        pairs = []
        for Tc_k, k, members, lam, vec, _ in splits:
            delta = 0.1 * np.sqrt(lam) * vec * rng.choice([-1.0, 1.0])
            base = centers[k].copy()
            if self.mass_constrained:
                centers[k] = base + delta
                centers.append(base - delta)
                log_w[k] -= np.log(2.0)
                log_w.append(log_w[k])
                pairs.append((Tc_k, k, len(centers) - 1, 4.0 * lam * 0.01))
            else:
                half = len(members) // 2
                for i, j in enumerate(members):
                    centers[j] = base + delta if i < half else base - delta
                pairs.append((Tc_k, members[0], members[-1], 4.0 * lam * 0.01))
        centers, log_w = np.array(centers), np.array(log_w)
        centers, log_w, stats = self._iterate(X, centers, log_w, T)
        # below its critical temperature a pair's gap grows (by about T_c/T per
        # iteration); a pair whose gap shrank is not splitting: merge it back
        merged = []
        for Tc_k, k, j, gap_0 in pairs:
            gap = np.sum((centers[k] - centers[j]) ** 2)
            accepted = bool(gap > gap_0)
            self.path_.events.append(
                {"temperature": T, "critical_temperature": Tc_k, "cluster": k, "accepted": accepted}
            )
            if not accepted and self.mass_constrained:
                log_w[k] = np.logaddexp(log_w[k], log_w[j])
                merged.append(j)
        if merged:
            keep = np.setdiff1d(np.arange(len(centers)), merged)
            centers, log_w, stats = centers[keep], log_w[keep], None
        rest = [c for c in candidates if not any(c is s for s in splits)]
        return centers, log_w, stats, rest
