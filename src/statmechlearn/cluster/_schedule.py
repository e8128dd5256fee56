"""The annealing engine: one cooling schedule and one loop that follows a fixed point down it.

Every deterministic annealer of :mod:`statmechlearn.cluster` lowers a
temperature geometrically, ``T <- cooling_rate * T``, from
``max_temperature`` to ``min_temperature`` (:class:`GeometricSchedule`),
and at each temperature does the same four things
(:func:`run_schedule`): iterate its fixed point, look for phase transitions
(splits and merges of clusters), record the path, and stop early where the
model says it is done. What differs between the annealers is only the
fixed-point step and the transition test, which they pass in.

The schedule can be refined near the critical temperatures the theory
knows: given the pending critical temperatures of the current solution, a
step that would jump over one lands just below it instead
(``(1 - margin) T_c``), so that no split is skipped by a coarse schedule. Where the model says
no transition can come any more (every code vector it may use is in use
and distinct), the path only sharpens towards the hard-assignment limit,
and the step is ``cooling_rate ** SETTLED_POWER``: fewer temperatures
where none of them can change the structure of the solution.
"""

from dataclasses import dataclass

import numpy as np

__all__ = [
    "SETTLED_POWER",
    "SPLIT_MARGIN",
    "GeometricSchedule",
    "geometric_schedule",
    "run_schedule",
]

# A refined step lands this far below a pending critical temperature: a split pair grows by
# about T_c/T per iteration, so landing at 0.99 T_c would cost hundreds of iterations of
# critical slowing down for no better a path.
SPLIT_MARGIN = 0.05
# Once no transition can come, each step cools by cooling_rate^4 (0.66 at the default 0.9):
# the fixed point moves smoothly with T there, so a warm start four steps away converges in
# a few more iterations than one step away, and three of every four temperatures are saved.
SETTLED_POWER = 4


@dataclass(frozen=True)
class GeometricSchedule:
    """Temperatures ``max_temperature * cooling_rate^k`` down to ``min_temperature``.

    Parameters
    ----------
    max_temperature : float
        First temperature (``> 0``); a value below ``min_temperature`` starts
        at ``min_temperature``.
    min_temperature : float
        Last temperature (``> 0``), always part of the schedule.
    cooling_rate : float
        Factor in (0, 1) between successive temperatures.
    margin : float, default=SPLIT_MARGIN
        Relative distance below a pending critical temperature at which a
        refined step lands (see :meth:`next`).
    """

    max_temperature: float
    min_temperature: float
    cooling_rate: float
    margin: float = SPLIT_MARGIN

    @property
    def start(self):
        """The first temperature, ``max(max_temperature, min_temperature)``."""
        return max(self.max_temperature, self.min_temperature)

    def next(self, temperature, critical=(), *, settled=False):
        """The temperature after ``temperature``, or None at the end of the schedule.

        Parameters
        ----------
        temperature : float
            The temperature just finished.
        critical : iterable of float, default=()
            Critical temperatures of the current solution still to come. A
            geometric step that would pass ``(1 - margin) T_c`` of one of them
            is shortened to land there (at the highest such one).
        settled : bool, default=False
            No transition can come any more: the step is
            ``cooling_rate ** SETTLED_POWER``.

        Returns
        -------
        float or None
            ``max(cooling_rate * T, min_temperature)``, refined; None once
            ``T <= min_temperature``.
        """
        if temperature <= self.min_temperature:
            return None
        rate = self.cooling_rate**SETTLED_POWER if settled else self.cooling_rate
        following = max(rate * temperature, self.min_temperature)
        below = [t for t in critical if following < t * (1 - self.margin) < temperature]
        if below:
            following = max(below) * (1 - self.margin)
        return following

    def temperatures(self):
        """The unrefined schedule (no critical temperatures).

        Returns
        -------
        ndarray
            Decreasing, from :attr:`start` to ``min_temperature`` (both included).
        """
        out, T = [], self.start
        while T is not None:
            out.append(T)
            T = self.next(T)
        return np.array(out)


def geometric_schedule(max_temperature, min_temperature, cooling_rate, *, anchor="max"):
    """Geometric temperatures from ``max_temperature`` down to ``min_temperature`` (both included).

    Parameters
    ----------
    max_temperature, min_temperature : float
        First and last temperature (``> 0``); when ``max_temperature <=
        min_temperature`` the schedule is ``[min_temperature]``.
    cooling_rate : float
        Ratio of successive temperatures, in (0, 1).
    anchor : {"max", "min"}, default="max"
        Which end lies on the lattice ``T_end cooling_rate^(+-k)``. ``"max"``:
        ``max_temperature cooling_rate^k`` (:class:`GeometricSchedule`).
        ``"min"``: ``min_temperature / cooling_rate^k`` below ``max_temperature``,
        preceded by ``max_temperature``, so that the low-temperature end (an
        inverse temperature grid ``beta_max growth^-k``) is the same whatever
        the start.

    Returns
    -------
    ndarray
        Decreasing temperatures.
    """
    if anchor == "max":
        return GeometricSchedule(max_temperature, min_temperature, cooling_rate).temperatures()
    if anchor != "min":
        raise ValueError(f"anchor must be 'max' or 'min', got {anchor!r}")
    if max_temperature <= min_temperature:
        return np.array([min_temperature])
    n = int(np.ceil(np.log(max_temperature / min_temperature) / -np.log(cooling_rate)))
    # computed as inverse temperatures beta_max cooling_rate^k, the grid such schedules have
    up = 1.0 / ((1.0 / min_temperature) * cooling_rate ** np.arange(n + 1))
    return np.append(max_temperature, up[up < max_temperature][::-1])


def run_schedule(
    state,
    schedule,
    *,
    solve,
    transition=None,
    record=None,
    stop=None,
    critical=None,
    settled=None,
):
    """Follow a model's fixed point down a cooling schedule.

    At each temperature ``T``, in this order: ``state = solve(state, T)``
    (iterate the fixed point at ``T`` from the previous solution, to the
    model's tolerance within its ``max_iter``); ``state = transition(state,
    T)`` (detect phase transitions: split clusters that have become
    unstable, merge copies that fell together); ``record(state, T)`` (the
    path); then stop if ``stop(state, T)``, else move to the next
    temperature.

    Parameters
    ----------
    state : object
        The model's starting state (assignments, code vectors, ...), passed
        through the callables unchanged in type.
    schedule : GeometricSchedule or sequence of float
        A geometric schedule, refined by ``critical``; or explicit decreasing
        temperatures, run as given.
    solve : callable
        ``solve(state, T) -> state``.
    transition : callable, optional
        ``transition(state, T) -> state``.
    record : callable, optional
        ``record(state, T)``.
    stop : callable, optional
        ``stop(state, T) -> bool``: end before ``min_temperature`` (e.g. once
        every assignment is hard).
    critical : callable, optional
        ``critical(state) -> iterable of float``: pending critical
        temperatures, which refine a :class:`GeometricSchedule`.
    settled : callable, optional
        ``settled(state) -> bool``: no transition can come any more, so a
        :class:`GeometricSchedule` cools by ``cooling_rate ** SETTLED_POWER``.

    Returns
    -------
    state : object
        The state at the last temperature.
    temperatures : ndarray
        The temperatures that were run.
    """
    geometric = isinstance(schedule, GeometricSchedule)
    explicit = None if geometric else iter(schedule)
    T = schedule.start if geometric else next(explicit, None)
    ran = []
    while T is not None:
        state = solve(state, T)
        if transition is not None:
            state = transition(state, T)
        if record is not None:
            record(state, T)
        ran.append(T)
        if stop is not None and stop(state, T):
            break
        if geometric:
            T = schedule.next(
                T,
                () if critical is None else critical(state),
                settled=settled is not None and settled(state),
            )
        else:
            T = next(explicit, None)
    return state, np.array(ran)
