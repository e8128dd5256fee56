"""Write src/statmechlearn/_experiment_index.json, the table `statmechlearn list` shows.

Run it after adding, renaming or resizing an experiment (the test
tests/experiments/test_cli_front.py::test_index_matches_the_registry fails
until you do), with the store of a real run so the time estimates are
measured, not typed::

    statmechlearn reproduce all --quick --n-jobs 2 --out results   # or `make reproduce`
    python scripts/build_experiment_index.py --store results/store \\
        --machine "AMD EPYC, 2 cores"

Several --store folders may be given (a full run's, for instance: with
--mode full only its full runs are read). An
experiment no store holds a matching run of keeps the seconds per cell of
the previous index (its cell counts are updated); a new one gets none, and
`list` shows "?" until it is measured.
"""

import argparse
import json
import os
import platform
import sys

from statmechlearn._experiment_index import (
    INDEX_PATH,
    MODES,
    load_index,
    static_entries,
    timings_from_store,
)


def _this_machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", action="append", default=[], help="a results/store folder")
    parser.add_argument(
        "--machine", help="the machine the stores were computed on (default: this one)"
    )
    parser.add_argument(
        "--mode",
        choices=(*MODES, "both"),
        default="both",
        help="which runs to read from the stores",
    )
    parser.add_argument("--output", default=str(INDEX_PATH), help="file to write")
    args = parser.parse_args(argv)

    previous = {}
    measured_on = None
    if os.path.exists(args.output):
        old = load_index(args.output)
        previous = {e["name"]: e for e in old["experiments"]}
        measured_on = old.get("measured_on")
    timings = {}
    for store in args.store:
        timings |= {
            k: v for k, v in timings_from_store(store).items() if args.mode in ("both", k[1])
        }
    if args.store:
        measured_on = args.machine or _this_machine()

    entries = []
    for entry in static_entries():
        old = previous.get(entry["name"], {})
        entry["cell_s"], entry["measured"] = {}, {}
        for mode in MODES:
            new = timings.get((entry["name"], mode))
            if new is not None:
                entry["cell_s"][mode] = round(new["cell_s"], 6)
                entry["measured"][mode] = new["measured"]
            else:
                entry["cell_s"][mode] = old.get("cell_s", {}).get(mode)
                entry["measured"][mode] = old.get("measured", {}).get(mode)
        entries.append(entry)
    index = {
        "about": "written by scripts/build_experiment_index.py; do not edit by hand",
        "measured_on": measured_on or "unknown",
        "experiments": entries,
    }
    with open(args.output, "w", encoding="utf-8") as fh:
        json.dump(index, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    unmeasured = [e["name"] for e in entries if e["cell_s"]["quick"] is None]
    print(f"wrote {len(entries)} experiments to {args.output}")
    if unmeasured:
        print(f"no quick timing for: {', '.join(unmeasured)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
