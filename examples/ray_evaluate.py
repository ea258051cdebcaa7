#!/usr/bin/env python3
"""`corpus-eval evaluate` on a Ray cluster: a thin caller of
`corpus_eval.ray.evaluate` (see its documentation).

    python examples/ray_evaluate.py QUESTIONS TRANSCRIPTS OUT
        [--threads 1] [--actors N] [--partitions N] [--transcript-partitions N] [--batch-size 4096]
        [--match normalized] [--fuzzy-threshold 0.9] [--seed 42]

QUESTIONS, TRANSCRIPTS and OUT are local paths or URIs that pyarrow.fs
understands (file://, s3://, gs://, hdfs://), reachable from every node.
Writes OUT/items/ (the flattened question file), OUT/answers/ and
OUT/quotes/ (Parquet, one row per answer and per quote) and
OUT/summary.json, equal to `corpus-eval evaluate`'s. It joins the Ray
cluster it is connected to or that runs on this machine; only without one
does it start a local one. Needs `pip install "ray[data]" pyarrow` and the
corpus_eval package.
"""

from __future__ import annotations

import argparse
import json
import sys

import corpus_eval.ray


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("questions")
    ap.add_argument("transcripts")
    ap.add_argument("out")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--actors", type=int)
    ap.add_argument("--partitions", type=int)
    ap.add_argument("--transcript-partitions", type=int)
    ap.add_argument("--batch-size", type=int, default=4096)
    ap.add_argument("--match", choices=["exact", "normalized", "fuzzy"])
    ap.add_argument("--fuzzy-threshold", type=float)
    ap.add_argument("--seed", type=int)
    args = ap.parse_args()
    config = {k: v for k, v in [("match", args.match), ("fuzzy_threshold", args.fuzzy_threshold),
                                ("seed", args.seed)] if v is not None}
    summary = corpus_eval.ray.evaluate(args.questions, args.transcripts, args.out, threads=args.threads,
                                       actors=args.actors, partitions=args.partitions,
                                       transcript_partitions=args.transcript_partitions,
                                       batch_size=args.batch_size, **config)
    print(json.dumps({"overall": summary["overall"], "existence": summary["existence"],
                      "counts": summary["counts"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
