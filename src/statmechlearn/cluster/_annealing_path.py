"""The record of a deterministic-annealing path, one entry per temperature."""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["AnnealingPath"]


@dataclass
class AnnealingPath:
    """What deterministic annealing went through, one entry per temperature.

    Attributes
    ----------
    temperature, free_energy, distortion, entropy, mutual_information : ndarray
        Per-sample quantities at each converged temperature (nats).
    n_clusters : ndarray of int
        Number of distinct code vectors.
    centers : list of ndarray
        Code vectors at each temperature (their number grows with splits).
    weights : list of ndarray
        Cluster weights at each temperature.
    events : list of dict
        Critical events: ``temperature`` (where the split was made),
        ``critical_temperature`` (``2 lambda_max`` of the cluster's posterior
        covariance), ``cluster``, ``accepted`` (False when the pair fell back
        together and was merged). A mass-constrained code vector that later
        falls onto another is merged into it and recorded with
        ``critical_temperature`` NaN and ``accepted`` False. A split-and-merge
        move at the final temperature (``relocate``) is recorded with
        ``critical_temperature`` NaN, ``accepted`` True and ``relocated``, the
        code vector that was moved to split ``cluster``; a swap move (also
        ``relocate``) with ``critical_temperature`` NaN, ``accepted`` True and
        ``swapped`` True, ``cluster`` being the code vector moved onto a data
        point.
    """

    temperature: np.ndarray = field(default_factory=lambda: np.empty(0))
    free_energy: np.ndarray = field(default_factory=lambda: np.empty(0))
    distortion: np.ndarray = field(default_factory=lambda: np.empty(0))
    entropy: np.ndarray = field(default_factory=lambda: np.empty(0))
    mutual_information: np.ndarray = field(default_factory=lambda: np.empty(0))
    n_clusters: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=int))
    centers: list = field(default_factory=list)
    weights: list = field(default_factory=list)
    events: list = field(default_factory=list)

    def _append(self, temperature, stats, centers, weights, n_distinct):
        for name in ("free_energy", "distortion", "entropy", "mutual_information"):
            setattr(self, name, np.append(getattr(self, name), stats[name][0]))
        self.temperature = np.append(self.temperature, temperature)
        self.n_clusters = np.append(self.n_clusters, n_distinct)
        self.centers.append(centers.copy())
        self.weights.append(weights.copy())
