"""A dask worker plugin that runs a warm-up once in every worker, before its first task.

Kept apart from the runner: it imports dask.distributed, which a run without
``--scheduler`` never needs.
"""

from distributed.diagnostics.plugin import WorkerPlugin

__all__ = ["WarmUp"]


class WarmUp(WorkerPlugin):
    """Calls ``fn(*args)`` once in each worker: those running when it is registered and
    every one that joins later (a worker the nanny restarted included).

    Registered again under the same name (``idempotent``), it is not run again.

    Parameters
    ----------
    fn : callable
        Importable by the workers (pickled by reference).
    *args
        Its arguments.
    """

    idempotent = True

    def __init__(self, fn, *args):
        self.fn = fn
        self.args = args

    def setup(self, worker):
        self.fn(*self.args)
