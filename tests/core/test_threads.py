"""BLAS held to one thread, and released again."""

from threadpoolctl import threadpool_info

from statmechlearn._core.threads import one_blas_thread


def test_one_blas_thread_holds_blas_to_one_thread_and_restores_it():
    def blas_threads():
        return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]

    before = blas_threads()
    with one_blas_thread():
        assert all(t == 1 for t in blas_threads())
    assert blas_threads() == before
