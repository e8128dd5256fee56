"""Write every check's numbers from a results folder as JSON, to compare two versions of the code.

Each experiment's newest dataset under its current result key is read and its
checks evaluated, exactly as the report does; the output lists, per
experiment and check, the observed and expected values, their standard
errors, z and the verdict. Two dumps of the same mode (before and after a
change that should not move any number) are compared with ``--compare``::

    python scripts/dump_checks.py results --output before.json     # on the old code
    python scripts/dump_checks.py results --output after.json      # on the new code
    python scripts/dump_checks.py --compare before.json after.json
"""

import argparse
import json
import math
import sys
import warnings
from pathlib import Path

_FIELDS = ("observed", "observed_se", "expected", "z", "theory", "simulation", "passed", "kind")


def dump(out):
    from statmechlearn.experiments import ResultStore, evaluate_checks, get, module_names

    store = ResultStore(Path(out) / "store")
    rows = {}
    for name in module_names():
        spec = get(name)
        ds = store.latest(spec)
        if ds is None:
            rows[name] = None
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = evaluate_checks(spec, ds)
        rows[name] = [
            {"quantity": r.quantity, **{f: getattr(r, f, None) for f in _FIELDS}} for r in results
        ]
    return rows


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


def compare(before, after):
    """Print every difference; return the number of checks that differ."""
    differ = 0
    n = 0
    for name in sorted(set(before) | set(after)):
        a, b = before.get(name), after.get(name)
        if a is None or b is None:
            print(f"{name}: {'missing before' if a is None else 'missing after'}")
            differ += 1
            continue
        if len(a) != len(b):
            print(f"{name}: {len(a)} checks before, {len(b)} after")
            differ += 1
            continue
        for x, y in zip(a, b, strict=True):
            n += 1
            diffs = [f for f in ("quantity", *_FIELDS) if not _same(x.get(f), y.get(f))]
            if diffs:
                differ += 1
                shown = ", ".join(f"{f}: {x.get(f)!r} -> {y.get(f)!r}" for f in diffs)
                print(f"{name} / {x['quantity']}: {shown}")
    print(f"{n} checks in {len(after)} experiments compared; {differ} differ")
    return differ


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", help="a results folder (--out of reproduce)")
    parser.add_argument("--output", help="JSON file to write (default: stdout)")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(Path(p).read_text()) for p in args.compare)
        return 1 if compare(before, after) else 0
    if not args.out:
        parser.error("give a results folder or --compare BEFORE AFTER")
    text = json.dumps(dump(args.out), indent=1, default=float)
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
