"""Cost of one soft-selection EM iteration against one matrix-vector product.

Run: ``.venv/bin/python benchmarks/bench_outlier_em.py``. At P = 10^4
examples in N = 500 dimensions, prints the time of one ``X @ w`` (BLAS), of
one fused EM pass (numba: E-step and M-step sums in one read of X), of the
NumPy twin (two BLAS passes), and their ratios to the matvec from one run.
Target (issue 4): an EM iteration costs at most 2 matvecs.
"""

import numpy as np
from _timing import best_of

from statmechlearn.linear._selection_em import soft_em_pass, soft_em_pass_numpy


def main(P=10_000, N=500):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((P, N))
    S = rng.choice([-1.0, 1.0], size=P)
    J = rng.standard_normal(N)
    soft_em_pass(X[:2], S[:2], J, 10.0, 0.0)  # compile
    t_mv = best_of(lambda: X @ J, 20)
    t_fused = best_of(lambda: soft_em_pass(X, S, J, 10.0, 0.0), 20)
    t_numpy = best_of(lambda: soft_em_pass_numpy(X, S, J, 10.0, 0.0), 20)
    print(f"P={P}, N={N}: X @ w {t_mv * 1e3:.2f} ms")
    print(f"  fused EM pass (numba) {t_fused * 1e3:.2f} ms = {t_fused / t_mv:.2f} matvecs")
    print(f"  NumPy twin            {t_numpy * 1e3:.2f} ms = {t_numpy / t_mv:.2f} matvecs")


if __name__ == "__main__":
    main()
