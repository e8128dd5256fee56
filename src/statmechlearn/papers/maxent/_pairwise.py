"""Reading the pairwise figures' runs: finished seeds, per-point and pooled values."""

__all__ = ["_done", "_pooled", "_runs"]


def _done(ds, point=None):
    sel = ds if point is None else ds.sel(point)
    return sel["sim_done"].values.astype(bool)


def _runs(ds, var, point=None, **coords):
    """Values of ``var`` (at ``point``, ``coords``) over the finished seeds."""
    sel = ds if point is None else ds.sel(point)
    return sel[var].sel(coords).values[_done(ds, point)]


def _pooled(ds, var, **coords):
    """``var`` over every finished (grid point, seed) cell, flattened."""
    v = ds[var].sel(coords)
    return v.values[ds["sim_done"].values.astype(bool)]
