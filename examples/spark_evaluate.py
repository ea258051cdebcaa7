#!/usr/bin/env python3
"""`corpus-eval evaluate` on Spark: the same Arrow kernels as the Ray
example, called from `mapInArrow` (each Python worker loads the lexicon and
prepares the transcripts once and keeps them for its later tasks), the
per-item results written as Parquet, and the summary computed from them:
equal to the `corpus-eval evaluate` summary.json of the same input.

    python examples/spark_evaluate.py QUESTIONS TRANSCRIPTS OUT_DIR
        [--master local[2]] [--match normalized] [--fuzzy-threshold 0.9] [--seed 42]

QUESTIONS is a question file (.json); it is flattened into item tables
(pairs, answers, quotes) under OUT_DIR/items/ as Parquet, which Spark
reads. Writes OUT_DIR/answers/ and OUT_DIR/quotes/ (Parquet) and
OUT_DIR/summary.json. Needs `pip install pyspark pyarrow`, Java 17, and
the corpus_eval package on the workers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

import corpus_eval
import corpus_eval.arrow as cea

# Per Python worker: the prepared corpus, by transcripts file (Spark reuses
# its Python workers, so this is built once per worker, not per task).
_CORPUS: dict = {}

SCORED = "pair_index long, answer_index long, source string, score double, warning string"
CHECKED = (
    "pair_index long, answer_index long, quote_index long, source string, verdict string, found boolean, "
    "similarity double, span_start long, span_end long, span_speaker string, attribution string, "
    "other_source string, pieces string, differences string, meaning string"
)


def score_batches(config: dict):
    """The mapInArrow function that scores answers."""

    def run(batches):
        for batch in batches:
            table = pa.Table.from_batches([batch])
            scored = cea.score_answers(table.select(["answer", "type", "metric"]), **config)
            out = table.select(["pair_index", "answer_index", "source"])
            out = out.append_column("score", scored.column("score"))
            out = out.append_column("warning", scored.column("warning"))
            yield from out.to_batches()

    return run


def check_batches(transcripts: str, config: dict):
    """The mapInArrow function that verifies quotes."""

    def run(batches):
        corpus = _CORPUS.get(transcripts)
        if corpus is None:
            with open(transcripts, encoding="utf-8-sig") as f:
                corpus = _CORPUS[transcripts] = corpus_eval.Corpus(f.read(), **config)
        for batch in batches:
            table = pa.Table.from_batches([batch])
            checked = cea.verify_quotes(table.select(["quote", "source", "speaker", "answer"]), corpus, **config)
            out = table.select(["pair_index", "answer_index", "quote_index", "source"])
            for name in checked.column_names:
                column = checked.column(name)
                if name in ("span_start", "span_end"):
                    column = column.cast(pa.int64())
                out = out.append_column(name, column)
            yield from out.to_batches()

    return run


def run(questions: str, transcripts: str, out: str, master: str = "local[2]", config: dict | None = None,
        spark=None) -> dict:
    """The whole pipeline; returns the summary (also written to
    OUT/summary.json)."""
    from pyspark.sql import SparkSession

    config = dict(config or {})
    items = os.path.join(out, "items")
    os.makedirs(items, exist_ok=True)
    with open(questions, encoding="utf-8-sig") as f:
        pairs, answers, quotes = cea.item_tables(f.read(), questions)
    for name, table in [("pairs", pairs), ("answers", answers), ("quotes", quotes)]:
        pq.write_table(table, os.path.join(items, f"{name}.parquet"))
    own = spark is None
    # The workers run this Python (it has corpus_eval and pyarrow).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if own:
        spark = (SparkSession.builder.master(master).appName("corpus-eval")
                 .config("spark.ui.enabled", "false").getOrCreate())
    try:
        scored = spark.read.parquet(os.path.join(items, "answers.parquet")).mapInArrow(
            score_batches(config), SCORED)
        scored.write.mode("overwrite").parquet(os.path.join(out, "answers"))
        checked = spark.read.parquet(os.path.join(items, "quotes.parquet")).mapInArrow(
            check_batches(os.path.abspath(transcripts), config), CHECKED)
        checked.write.mode("overwrite").parquet(os.path.join(out, "quotes"))
    finally:
        if own:
            spark.stop()
    summary = cea.summarize(
        pairs,
        pq.read_table(os.path.join(out, "answers")),
        pq.read_table(os.path.join(out, "quotes")),
        **config,
    )
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, ensure_ascii=False, indent=2)
    return summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("questions")
    ap.add_argument("transcripts")
    ap.add_argument("out")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--match", choices=["exact", "normalized", "fuzzy"])
    ap.add_argument("--fuzzy-threshold", type=float)
    ap.add_argument("--seed", type=int)
    args = ap.parse_args()
    config = {k: v for k, v in [("match", args.match), ("fuzzy_threshold", args.fuzzy_threshold),
                                ("seed", args.seed)] if v is not None}
    summary = run(args.questions, args.transcripts, args.out, args.master, config)
    print(json.dumps({"overall": summary["overall"], "existence": summary["existence"],
                      "counts": summary["counts"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
