"""
Choosing the number of clusters with the gap statistic
======================================================

:func:`~statmechlearn.model_selection.select_n_clusters` with
``method="gap"`` compares the log within-cluster dispersion of the data with
its expectation under a uniform reference distribution (Tibshirani, Walther
& Hastie 2001) and picks the smallest ``k`` whose gap is within one standard
error of the next one. There is no closed-form theory for this curve: the
gap is estimated from reference draws (markers, ± the SE the rule uses), and
the line marks the true number of clusters the data were drawn with.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_blobs

from statmechlearn.model_selection import select_n_clusters

true_k = 4
X, _ = make_blobs(300, centers=true_k, cluster_std=0.7, random_state=0)
result = select_n_clusters(X, k_range=range(1, 9), method="gap", random_state=0)
print(f"chosen k = {result.n_clusters} (true k = {true_k})")

# %%
fig, ax = plt.subplots(figsize=(6.4, 4.2))
ax.errorbar(
    result.k_values,
    result.scores,
    yerr=result.errors,
    fmt="o",
    color="C1",
    capsize=3,
    label="simulation: gap(k) (± SE over reference draws)",
)
ax.axvline(true_k, color="C0", label=f"the data's number of clusters, k = {true_k}")
ax.plot(
    result.n_clusters,
    result.scores[list(result.k_values).index(result.n_clusters)],
    "*",
    color="k",
    markersize=14,
    label=f"chosen by the 1-SE rule: k = {result.n_clusters}",
)
ax.set_xlabel("number of clusters $k$")
ax.set_ylabel("gap statistic")
ax.legend()
fig.tight_layout()
