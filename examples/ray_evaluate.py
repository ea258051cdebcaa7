#!/usr/bin/env python3
"""`corpus-eval evaluate` on Ray Data: the question corpus as Ray Datasets,
answers scored and quotes verified by corpus-eval's Arrow kernels in
`map_batches(..., batch_format="pyarrow")` with class UDFs (the lexicon and
the prepared transcripts loaded once per actor), the per-item results
written as Parquet, and the summary computed from those tables: equal to
the `corpus-eval evaluate` summary.json of the same input (means, counts,
warnings, signature and, with the same seed, the bootstrap intervals).

    python examples/ray_evaluate.py QUESTIONS TRANSCRIPTS OUT_DIR
        [--num-cpus 2] [--batch-size 4096] [--items jsonl|parquet]
        [--match normalized] [--fuzzy-threshold 0.9] [--seed 42]

QUESTIONS is a question file (.json, as `evaluate` reads it): it is first
flattened into three item tables under OUT_DIR/items/ (pairs, answers,
quotes; JSON Lines or Parquet), which Ray reads as Datasets; or a folder
that already holds pairs, answers and quotes tables in that layout.
Writes OUT_DIR/answers/ and OUT_DIR/quotes/ (Parquet, one row per answer
and per quote) and OUT_DIR/summary.json. It joins the Ray cluster it is
connected to or that runs on this machine; only without one does it start
a local one of --num-cpus CPUs. Needs `pip install "ray[data]" pyarrow`
and the corpus_eval package.
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

PAIRS, ANSWERS, QUOTES = cea.PAIRS_SCHEMA(), cea.ANSWERS_SCHEMA(), cea.QUOTES_SCHEMA()


def flatten(questions_path: str, out: str, fmt: str) -> None:
    """The question file as three item tables (data preparation, once)."""
    with open(questions_path, encoding="utf-8-sig") as f:
        tables = cea.item_tables(f.read())
    os.makedirs(out, exist_ok=True)
    for name, table in zip(["pairs", "answers", "quotes"], tables):
        if fmt == "parquet":
            pq.write_table(table, os.path.join(out, f"{name}.parquet"))
        else:
            with open(os.path.join(out, f"{name}.jsonl"), "w", encoding="utf-8") as f:
                for row in table.to_pylist():
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")


class ScoreAnswers:
    """Scores a batch of answers (the lexicon is loaded once per process)."""

    def __init__(self, config: dict) -> None:
        self.config = config

    def __call__(self, batch: pa.Table) -> pa.Table:
        scored = cea.score_answers(batch.select(["answer", "type", "metric"]), **self.config)
        keep = batch.select(["pair_index", "answer_index", "source"])
        return keep.append_column("score", scored.column("score")).append_column(
            "warning", scored.column("warning"))


class VerifyQuotes:
    """Verifies a batch of quotes against the corpus, parsed and prepared
    once per actor."""

    def __init__(self, transcripts: str, config: dict) -> None:
        with open(transcripts, encoding="utf-8-sig") as f:
            self.corpus = corpus_eval.Corpus(f.read(), **config)
        self.config = config

    def __call__(self, batch: pa.Table) -> pa.Table:
        checked = cea.verify_quotes(batch.select(["quote", "source", "speaker", "answer"]), self.corpus,
                                    **self.config)
        out = batch.select(["pair_index", "answer_index", "quote_index", "source"])
        for name in checked.column_names:
            out = out.append_column(name, checked.column(name))
        return out


def connect(ray, num_cpus: int) -> None:
    """Joins the Ray cluster this process is connected to, or the one
    running on this machine (`address="auto"`, never with `num_cpus`: a
    running cluster's resources are its own); only without any, starts a
    local one with `num_cpus` CPUs."""
    if ray.is_initialized():
        return
    try:
        ray.init(address="auto", include_dashboard=False, log_to_driver=False)
    except ConnectionError:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)


def read(ray, folder: str, name: str, schema: pa.Schema):
    """An item table of `folder` as a Ray Dataset (Parquet or JSON Lines)."""
    parquet = os.path.join(folder, f"{name}.parquet")
    if os.path.exists(parquet):
        return ray.data.read_parquet(parquet)
    import pyarrow.json as pajson

    return ray.data.read_json(os.path.join(folder, f"{name}.jsonl"),
                              parse_options=pajson.ParseOptions(explicit_schema=schema))


def run(questions: str, transcripts: str, out: str, num_cpus: int = 2, batch_size: int = 4096,
        items: str = "jsonl", config: dict | None = None) -> dict:
    """The whole pipeline; returns the summary (also written to
    OUT/summary.json)."""
    import ray

    config = dict(config or {})
    folder = questions
    if not os.path.isdir(questions):
        folder = os.path.join(out, "items")
        flatten(questions, folder, items)
    connect(ray, num_cpus)
    # Each kernel call runs on every core of its worker (the Rust core is
    # parallel), so one actor per node or two suffices; CPUs are left to the
    # read and write tasks.
    actors = max(1, num_cpus // 2)
    answers = read(ray, folder, "answers", ANSWERS).map_batches(
        ScoreAnswers, fn_constructor_kwargs={"config": config}, batch_format="pyarrow",
        batch_size=batch_size, concurrency=actors, num_cpus=1)
    quotes = read(ray, folder, "quotes", QUOTES).map_batches(
        VerifyQuotes, fn_constructor_kwargs={"transcripts": transcripts, "config": config},
        batch_format="pyarrow", batch_size=batch_size, concurrency=actors, num_cpus=1)
    answers.write_parquet(os.path.join(out, "answers"))
    quotes.write_parquet(os.path.join(out, "quotes"))
    pairs = read(ray, folder, "pairs", PAIRS).to_arrow_refs()
    pairs = pa.concat_tables(ray.get(pairs))
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
    ap.add_argument("--num-cpus", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=4096)
    ap.add_argument("--items", choices=["jsonl", "parquet"], default="jsonl")
    ap.add_argument("--match", choices=["exact", "normalized", "fuzzy"])
    ap.add_argument("--fuzzy-threshold", type=float)
    ap.add_argument("--seed", type=int)
    args = ap.parse_args()
    config = {k: v for k, v in [("match", args.match), ("fuzzy_threshold", args.fuzzy_threshold),
                                ("seed", args.seed)] if v is not None}
    summary = run(args.questions, args.transcripts, args.out, args.num_cpus, args.batch_size, args.items, config)
    print(json.dumps({"overall": summary["overall"], "existence": summary["existence"],
                      "counts": summary["counts"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
