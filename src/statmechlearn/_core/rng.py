"""``random_state`` handling: one Generator per call, independent child streams.

Simulation cells get their streams from :func:`cell_generator`, which derives
a :class:`numpy.random.SeedSequence` from the experiment's base seed and the
cell's integer key. The stream of a cell therefore depends only on
(base seed, key), never on the order in which cells run or on the backend
that runs them, so serial, loky and dask runs give identical numbers.
"""

import numbers

import numpy as np

__all__ = ["cell_generator", "check_random_state", "spawn_generators"]


def check_random_state(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, SeedSequence, Generator or RandomState
        ``None`` draws fresh OS entropy; an int or SeedSequence seeds a new
        PCG64 generator; a Generator is returned as is (shared, not copied);
        a legacy ``RandomState`` is wrapped around its bit generator.

    Returns
    -------
    numpy.random.Generator
    """
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}")
        return np.random.default_rng(int(random_state))
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.Generator(random_state._bit_generator)
    raise TypeError(
        "random_state must be None, a non-negative int, a SeedSequence, a Generator "
        f"or a RandomState; got {type(random_state).__name__}"
    )


def spawn_generators(random_state, n):
    """``n`` statistically independent Generators derived from ``random_state``.

    Parameters
    ----------
    random_state : None, int, SeedSequence or Generator
        Parent; a Generator is advanced by drawing the child entropy from it.
    n : int
        Number of children.

    Returns
    -------
    list of numpy.random.Generator
    """
    if isinstance(random_state, np.random.Generator):
        seq = np.random.SeedSequence(random_state.integers(0, 2**63, size=4))
    elif isinstance(random_state, np.random.SeedSequence):
        seq = random_state
    else:
        seq = np.random.SeedSequence(random_state)
    return [np.random.default_rng(child) for child in seq.spawn(n)]


def cell_generator(base_seed, *key):
    """Generator of the cell addressed by non-negative integers ``key``.

    Parameters
    ----------
    base_seed : int
        The experiment's seed.
    *key : int
        The cell's address, e.g. (parameter-point index, seed index).

    Returns
    -------
    numpy.random.Generator
        Seeded by ``SeedSequence(base_seed, spawn_key=key)``: the same stream
        :meth:`SeedSequence.spawn` would give, independent across keys.
    """
    key = tuple(int(k) for k in key)
    if any(k < 0 for k in key):
        raise ValueError(f"cell key must be non-negative integers, got {key}")
    return np.random.default_rng(np.random.SeedSequence(int(base_seed), spawn_key=key))
