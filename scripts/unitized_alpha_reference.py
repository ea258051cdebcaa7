#!/usr/bin/env python3
"""Reference values for Krippendorff's unitized alpha (uα), computed once by
the `krippendorff-unitized-alpha` package (PyPI, 0.1.0: Krippendorff et al.
2016's coincidence matrices) in a throwaway venv:

    python3 -m venv /tmp/kua-venv
    /tmp/kua-venv/bin/pip install "numpy<2" "pytest<8"
    /tmp/kua-venv/bin/pip install --no-deps krippendorff-unitized-alpha==0.1.0
    /tmp/kua-venv/bin/python scripts/unitized_alpha_reference.py fixtures/agreement-unitized

Writes OUT/expected.json: generated unitizations (2 or 3 coders of one
continuum; several sources are one continuum, end to end), each coder's
units as [start, end, code] (end exclusive, no two of one coder
overlapping), and per case the package's uα over every code, and per code
the uα of that code against the rest (the coder's other codes read as gaps).
The package is handed each coder's whole segmentation, gaps included, as
`Segment`s with exclusive ends (its own `impute_empty_segments` mixes
inclusive and exclusive ends, so it is not used). A case whose uα the
package cannot give (no expected disagreement) has null. The Rust test
`agreement::unitized` reads the file and asserts equality to 1e-9.

Cases: identical coders, disjoint units, units shifted by a few characters,
partly overlapping units, one coder with no units, random units of 1 to 3
codes over 2 or 3 coders, and a continuum of several sources.
"""

import json
import math
import os
import random
import sys
from importlib.metadata import version

from krippendorff_unitized_alpha.krippendorffs_unitized_alpha import (
    EMPTY_TAG,
    KrippendorffUnitizedAlpha,
    Segment,
)


def segmentation(length, units):
    """A coder's units and the gaps between them, as the package's segments."""
    out, at = [], 0
    for start, end, code in sorted(units):
        if start > at:
            out.append(Segment(tag=EMPTY_TAG, start=at, end=start))
        out.append(Segment(tag=code, start=start, end=end))
        at = end
    if at < length:
        out.append(Segment(tag=EMPTY_TAG, start=at, end=length))
    return out


def alpha(length, coders):
    data = {name: segmentation(length, units) for name, units in coders.items()}
    try:
        value = float(KrippendorffUnitizedAlpha(data).result)
    except ZeroDivisionError:
        return None
    return value if math.isfinite(value) else None


def random_units(rng, length, codes, count):
    """Up to `count` non-overlapping units of random codes."""
    cuts = sorted(rng.sample(range(1, length), min(2 * count, length - 1)))
    units = []
    for a, b in zip(cuts[0::2], cuts[1::2]):
        if a < b and rng.random() < 0.8:
            units.append([a, b, rng.choice(codes)])
    return units


def cases():
    rng = random.Random(58)
    base = [[10, 30, "quote"], [45, 60, "quote"], [70, 95, "quote"]]
    yield "identical", 100, {"A": base, "B": base}
    yield "disjoint", 100, {"A": [[0, 20, "quote"], [50, 60, "quote"]],
                            "B": [[25, 45, "quote"], [70, 90, "quote"]]}
    for shift in (1, 3, 8):
        yield f"shifted by {shift}", 100, {
            "A": base, "B": [[s + shift, min(e + shift, 100), c] for s, e, c in base]}
    yield "partly overlapping", 120, {
        "A": [[10, 40, "quote"], [60, 100, "quote"]],
        "B": [[20, 50, "quote"], [55, 80, "quote"], [90, 110, "quote"]]}
    yield "two codes, one swapped", 100, {
        "A": [[10, 30, "quote"], [45, 60, "claim"], [70, 95, "quote"]],
        "B": [[10, 30, "quote"], [45, 60, "quote"], [70, 95, "quote"]]}
    yield "one coder without units", 80, {"A": [[5, 25, "quote"]], "B": []}
    for i in range(24):
        length = rng.randint(40, 400)
        codes = ["quote", "claim", "aside"][: rng.randint(1, 3)]
        m = rng.choice([2, 2, 3])
        coders = {}
        first = random_units(rng, length, codes, rng.randint(1, 8))
        for c in "ABC"[:m]:
            if rng.random() < 0.5:
                # A noisy copy of the first coder: ends moved, codes kept.
                units, at = [], 0
                for s, e, code in first:
                    s2 = max(at, s + rng.randint(-3, 3))
                    e2 = min(length, e + rng.randint(-3, 3))
                    if s2 < e2:
                        units.append([s2, e2, code])
                        at = e2
                coders[c] = units
            else:
                coders[c] = random_units(rng, length, codes, rng.randint(1, 8))
        yield f"random {i}", length, coders
    # Three sources end to end: 150 + 90 + 200 characters.
    offsets = [0, 150, 240]
    a, b, at = [], [], 0
    for off, size in zip(offsets, [150, 90, 200]):
        for s, e, c in random_units(rng, size, ["quote"], 4):
            a.append([off + s, off + e, c])
            b.append([max(at, off + max(0, s - 2)), off + e, c])
            at = off + e
    yield "three sources", 440, {"A": a, "B": b}


def main(out):
    os.makedirs(out, exist_ok=True)
    rows = []
    for name, length, coders in cases():
        for units in coders.values():
            ends = sorted((s, e) for s, e, _ in units)
            assert all(0 <= s < e <= length for s, e in ends), name
            assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:])), name
        codes = sorted({c for units in coders.values() for _, _, c in units})
        per_code = {}
        for code in codes:
            only = {n: [u for u in units if u[2] == code] for n, units in coders.items()}
            per_code[code] = alpha(length, only)
        rows.append({"name": name, "length": length, "coders": coders,
                     "alpha": alpha(length, coders), "per_code": per_code})
    doc = {"reference": f"krippendorff-unitized-alpha {version('krippendorff-unitized-alpha')}",
           "cases": rows}
    with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(rows)} cases written to {out}/expected.json")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/agreement-unitized")
