#!/usr/bin/env python3
"""Reference values for `corpus-eval agreement`, computed once by the
reference libraries themselves, in a throwaway venv:

    python3 -m venv /tmp/agreement-venv
    /tmp/agreement-venv/bin/pip install scikit-learn statsmodels krippendorff irrCAC pandas
    /tmp/agreement-venv/bin/python scripts/agreement_reference.py fixtures/agreement

Writes OUT/tables/NN-<level>.csv (generated rating tables: 2-6 raters, 2-7
values, skewed prevalence, 10-20% missing, nominal and numeric scales) and
OUT/expected.json (per table: its level and every coefficient; null where a
coefficient does not apply), plus the library versions. The Rust test
`agreement_parity` reads both and asserts equality to 1e-9.

Which library gives what:
- cohen_kappa(_linear|_quadratic): sklearn.metrics.cohen_kappa_score over
  the items both raters rated (two-rater tables);
- fleiss_kappa: statsmodels.stats.inter_rater.fleiss_kappa over the items
  every rater rated (aggregate_raters for the counts);
- krippendorff_alpha: krippendorff.alpha(reliability_data, level);
- gwet_ac1 / gwet_ac2_linear / gwet_ac2_quadratic: irrCAC.raw.CAC(...).gwet()
  with identity weights, and with the kappas' weights over the ranks of the
  values (1 - |k-l|/(q-1), 1 - (k-l)^2/(q-1)^2) passed as a matrix;
- percent_agreement, prevalence_index, bias_index, pabak: their definitions
  (no library ships them), from sklearn's confusion matrix where two raters.
"""

import csv
import json
import math
import os
import random
import sys
from importlib.metadata import version

import irrCAC.raw
import krippendorff
import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

NOMINAL_SETS = [
    ["no", "yes"],
    ["fabricated", "paraphrase", "verbatim"],
    ["A", "B", "C", "D"],
    ["anger", "fear", "joy", "neutral", "sadness"],
    ["Ä", "é", "中", "z", "ß", "ø"],
    ["c1", "c2", "c3", "c4", "c5", "c6", "c7"],
]
NUMERIC_SETS = [
    [1, 2],
    [1, 2, 3],
    [1, 2, 3, 4, 5],
    [0, 0.5, 2, 10],
    [1, 2, 3, 4, 5, 6, 7],
    [0, 1, 3, 4, 9, 12],
    [-2, -1, 0, 1, 2],
]


def fmt(v):
    if isinstance(v, str):
        return v
    return repr(float(v)).rstrip("0").rstrip(".") if float(v) != int(v) else str(int(v))


def generate(rng, case):
    level = ["nominal", "ordinal", "interval", "ratio"][case % 4]
    raters = 2 + (case * 7 // 3) % 5  # 2..6
    if case % 3 == 0:
        raters = 2
    if level == "nominal":
        values = NOMINAL_SETS[case % len(NOMINAL_SETS)]
    else:
        values = NUMERIC_SETS[case % len(NUMERIC_SETS)]
        if level == "ratio":
            values = [v for v in values if v >= 0] or [0, 1]
            if len(values) < 2:
                values = [0, 1, 2]
    items = rng.choice([20, 37, 60, 120, 200])
    missing = rng.uniform(0.10, 0.20)
    # Skewed prevalence: a Zipf-like weight per value, sometimes extreme.
    skew = rng.choice([0.0, 1.0, 2.5])
    weights = [1.0 / (i + 1) ** skew for i in range(len(values))]
    if case % 5 == 4:
        weights = [20.0] + [1.0] * (len(values) - 1)
    noise = rng.choice([0.1, 0.3, 0.6])
    rows = []
    for i in range(items):
        truth = rng.choices(range(len(values)), weights)[0]
        row = []
        for r in range(raters):
            if rng.random() < missing:
                row.append(None)
                continue
            if rng.random() < noise:
                j = rng.choices(range(len(values)), weights)[0]
            else:
                j = truth
            if level != "nominal" and rng.random() < 0.3:
                j = min(len(values) - 1, max(0, j + rng.choice([-1, 1])))
            row.append(values[j])
        rows.append((f"item-{case:02d}-{i:03d}", row))
    return level, raters, rows


def percent_agreement(rows):
    multi = [[v for v in r if v is not None] for _, r in rows]
    multi = [m for m in multi if len(m) >= 2]
    if not multi:
        return None
    return sum(1 for m in multi if len(set(m)) == 1) / len(multi)


def finite(x):
    x = float(x)
    return x if math.isfinite(x) else None


def reference(level, raters, rows):
    out = {}
    out["percent_agreement"] = percent_agreement(rows)
    numeric = level != "nominal"
    # Codes: rank of each value among the sorted distinct values.
    distinct = sorted({v for _, r in rows for v in r if v is not None})
    rank = {v: i for i, v in enumerate(distinct)}

    if raters == 2:
        both = [(r[0], r[1]) for _, r in rows if r[0] is not None and r[1] is not None]
        y1 = [a for a, _ in both]
        y2 = [b for _, b in both]
        labels = sorted(set(y1 + y2))
        if numeric:
            # sklearn refuses non-integer floats as labels; its weights are
            # over the indices of the sorted labels, so ranks give the same.
            y1 = np.array([rank[v] for v in y1])
            y2 = np.array([rank[v] for v in y2])
        out["cohen_kappa"] = finite(cohen_kappa_score(y1, y2))
        if numeric:
            out["cohen_kappa_linear"] = finite(cohen_kappa_score(y1, y2, weights="linear"))
            out["cohen_kappa_quadratic"] = finite(cohen_kappa_score(y1, y2, weights="quadratic"))
        cm = confusion_matrix(y1, y2)
        n = cm.sum()
        q = cm.shape[0]
        out["confusion_labels"] = [fmt(v) for v in labels]
        out["confusion_counts"] = cm.tolist()
        if q == 2:
            out["prevalence_index"] = float((cm[0, 0] - cm[1, 1]) / n)
            out["bias_index"] = float((cm[0, 1] - cm[1, 0]) / n)
        else:
            out["prevalence_index"] = None
            out["bias_index"] = None
        out["pabak"] = float((q * np.trace(cm) / n - 1) / (q - 1)) if q >= 2 else None
    else:
        out["cohen_kappa"] = None
        if numeric:
            out["cohen_kappa_linear"] = None
            out["cohen_kappa_quadratic"] = None
        out["prevalence_index"] = None
        out["bias_index"] = None
        out["pabak"] = None

    complete = [[rank[v] for v in r] for _, r in rows if all(v is not None for v in r)]
    if complete:
        table, _ = aggregate_raters(np.array(complete))
        out["fleiss_kappa"] = finite(fleiss_kappa(table, method="fleiss"))
    else:
        out["fleiss_kappa"] = None
    out["fleiss_items"] = len(complete)

    # Krippendorff: raters x units; nominal values as their ranks.
    data = np.array(
        [
            [np.nan if r[k] is None else (rank[r[k]] if not numeric else float(r[k])) for _, r in rows]
            for k in range(raters)
        ],
        dtype=float,
    )
    out["krippendorff_alpha"] = finite(krippendorff.alpha(reliability_data=data, level_of_measurement=level))

    # irrCAC: subjects x raters, NaN missing; values as ranks so that the
    # weights below are over ranks.
    frame = pd.DataFrame(
        [[np.nan if v is None else float(rank[v]) for v in r] for _, r in rows],
        columns=[f"r{k}" for k in range(raters)],
    )
    q = len(sorted(frame.stack().unique().tolist()))
    ac1 = irrCAC.raw.CAC(frame, weights="identity", digits=15).gwet()
    out["gwet_ac1"] = finite(ac1["est"]["coefficient_value"])
    if numeric:
        idx = np.arange(q)
        lin = 1 - np.abs(idx[:, None] - idx[None, :]) / (q - 1)
        quad = 1 - (idx[:, None] - idx[None, :]) ** 2 / (q - 1) ** 2
        out["gwet_ac2_linear"] = finite(irrCAC.raw.CAC(frame, weights=lin, digits=15).gwet()["est"]["coefficient_value"])
        out["gwet_ac2_quadratic"] = finite(irrCAC.raw.CAC(frame, weights=quad, digits=15).gwet()["est"]["coefficient_value"])
    out["n_items"] = len(rows)
    out["n_ratings"] = sum(1 for _, r in rows for v in r if v is not None)
    out["disagreements"] = sum(
        1 for _, r in rows if len({v for v in r if v is not None}) > 1
    )
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: agreement_reference.py OUT_DIR")
    out_dir = sys.argv[1]
    os.makedirs(os.path.join(out_dir, "tables"), exist_ok=True)
    rng = random.Random(20261124)
    expected = {
        "generator": "scripts/agreement_reference.py",
        "libraries": {
            name: version(name)
            for name in ["scikit-learn", "statsmodels", "krippendorff", "irrCAC", "numpy", "pandas"]
        },
        "tables": {},
    }
    for case in range(48):
        level, raters, rows = generate(rng, case)
        name = f"{case:02d}-{level}.csv"
        with open(os.path.join(out_dir, "tables", name), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["id"] + [f"coder_{k + 1}" for k in range(raters)])
            for item, r in rows:
                w.writerow([item] + ["" if v is None else fmt(v) for v in r])
        ref = reference(level, raters, rows)
        ref["level"] = level
        ref["raters"] = raters
        expected["tables"][name] = ref
    with open(os.path.join(out_dir, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
