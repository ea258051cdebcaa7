"""`corpus-eval evaluate` on a Ray cluster.

    import corpus_eval.ray
    summary = corpus_eval.ray.evaluate("s3://bucket/questions.json", "s3://bucket/transcripts/",
                                       "s3://bucket/runs/r1", match="normalized", seed=42)

The three locations are local paths or URIs that `pyarrow.fs` understands
(`file://`, `s3://`, `gs://`, `hdfs://`): every node must reach them. The
driver reads neither input: a task flattens the question file into three
item tables (pairs, answers, quotes) under OUT/items/; answers are scored
and quotes verified by corpus-eval's Arrow kernels in `map_batches` actors,
each of which reads the transcripts from their location once; the
per-answer and per-quote tables are written as Parquet under OUT/answers/
and OUT/quotes/, and `summary.json` beside them. The summary equals
`corpus-eval evaluate`'s for the same input and settings (means, counts,
warnings, signature and, with the same seed, the bootstrap intervals); a
lost or doubled row raises ValueError naming the pairs.

It joins the cluster this process is connected to, or the one running on
this machine (`ray.init(address="auto")`); only without one does it start a
local one (with this machine's CPUs). Needs `pip install "ray[data]"
pyarrow`.
"""

from __future__ import annotations

import json as _json
import os as _os
import tempfile as _tempfile
from typing import Any, Dict, Optional, Tuple

from . import Corpus
from . import arrow as _arrow

__all__ = ["evaluate", "connect", "filesystem"]

# Measured: a prepared corpus holds about 7 times its JSON size (5.7-5.9 GB
# for 840 MB); an actor asks Ray for that much memory, and this base.
_CORPUS_FACTOR = 7
_BASE_MEMORY = 256 << 20


def filesystem(location: str) -> Tuple[Any, str]:
    """The `pyarrow.fs` filesystem of a local path or URI, and the path in
    it (a local path is made absolute)."""
    import pyarrow.fs as pafs

    if "://" in location:
        return pafs.FileSystem.from_uri(location)
    return pafs.LocalFileSystem(), _os.path.abspath(location)


def connect() -> None:
    """Joins the Ray cluster this process is connected to, or the one
    running on this machine (`address="auto"`; a running cluster's
    resources are its own, never overridden); only without any, starts a
    local one."""
    import ray

    if ray.is_initialized():
        return
    try:
        ray.init(address="auto", include_dashboard=False, log_to_driver=False)
    except ConnectionError:
        ray.init(include_dashboard=False, log_to_driver=False)


def _read_text(location: str) -> str:
    fs, path = filesystem(location)
    with fs.open_input_stream(path) as f:
        return f.read().decode("utf-8-sig")


def _size(location: str) -> int:
    """The bytes of a file, or of every file under a folder."""
    import pyarrow.fs as pafs

    fs, path = filesystem(location)
    info = fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        raise ValueError(f"{location}: no such file or folder")
    if info.type == pafs.FileType.File:
        return info.size or 0
    found = fs.get_file_info(pafs.FileSelector(path, recursive=True))
    return sum(f.size or 0 for f in found if f.type == pafs.FileType.File)


def _local_transcripts(location: str) -> Any:
    """What `Corpus` takes for `location`: a local path as it is; a file or
    folder on another filesystem copied into a temporary folder first
    (every format is then read by path, as the command line reads it)."""
    import pathlib

    import pyarrow.fs as pafs

    fs, path = filesystem(location)
    if isinstance(fs, pafs.LocalFileSystem):
        return pathlib.Path(path)
    local = _tempfile.mkdtemp(prefix="corpus-eval-")
    target = _os.path.join(local, _os.path.basename(path.rstrip("/")) or "transcripts")
    pafs.copy_files(path, target, source_filesystem=fs, destination_filesystem=pafs.LocalFileSystem())
    return pathlib.Path(target)


def _flatten(questions: str, items: str) -> Dict[str, int]:
    """A task: the question file as three item tables under `items`."""
    import pyarrow.parquet as pq

    tables = _arrow.item_tables(_read_text(questions))
    fs, base = filesystem(items)
    fs.create_dir(base, recursive=True)
    counts = {}
    for name, table in zip(["pairs", "answers", "quotes"], tables):
        pq.write_table(table, f"{base}/{name}.parquet", filesystem=fs)
        counts[name] = table.num_rows
    return counts


class _ScoreAnswers:
    """Scores a batch of answers (the lexicon is loaded once per actor)."""

    def __init__(self, config: dict) -> None:
        self.config = config

    def __call__(self, batch: Any) -> Any:
        scored = _arrow.score_answers(batch.select(["answer", "type", "metric"]), **self.config)
        keep = batch.select(["pair_index", "answer_index", "source"])
        return keep.append_column("score", scored.column("score")).append_column(
            "warning", scored.column("warning"))


class _VerifyQuotes:
    """Verifies a batch of quotes against the corpus, which the actor reads
    from its location and prepares once."""

    def __init__(self, transcripts: str, config: dict) -> None:
        self.corpus = Corpus(_local_transcripts(transcripts), **config)
        self.config = config

    def __call__(self, batch: Any) -> Any:
        checked = _arrow.verify_quotes(batch.select(["quote", "source", "speaker", "answer"]), self.corpus,
                                       **self.config)
        out = batch.select(["pair_index", "answer_index", "quote_index", "source"])
        for name in checked.column_names:
            out = out.append_column(name, checked.column(name))
        return out


def evaluate(questions: str, transcripts: str, out: str, *, partitions: Optional[int] = None,
             threads: int = 1, actors: Optional[int] = None, batch_size: int = 4096,
             **config: Any) -> Dict[str, Any]:
    """Runs `evaluate` on the Ray cluster; returns the summary (also
    written to OUT/summary.json).

    questions: the question file (a local path or a URI).
    transcripts: the transcripts, as `corpus-eval evaluate` takes them (a
        JSON chunk file, a transcript file, a folder of them or a .qdpx
        project), by path or URI.
    out: the folder (path or URI) that receives items/, answers/, quotes/
        and summary.json.
    partitions: how many blocks the answers and quotes are split into
        (default: twice the actors, so that every actor has work).
    threads: the CPU threads each actor's Rust core uses; the actor asks Ray
        for that many CPUs (and for memory in proportion to the
        transcripts' size), so Ray places actors where they fit.
    actors: how many actors score and verify at once (default: as many as
        the cluster's CPUs allow, at least 1).
    config: evaluate's settings (match, fuzzy_threshold, seed, speaker
        settings, ...), as for `corpus_eval.evaluate`.
    """
    import ray
    import pyarrow.parquet as pq

    if threads < 1 or batch_size < 1 or (partitions is not None and partitions < 1):
        raise ValueError("threads, batch_size and partitions must be at least 1")
    config = dict(config)
    connect()
    fs, base = filesystem(out)
    fs.create_dir(base, recursive=True)
    items = out.rstrip("/") + "/items"
    counts = ray.get(ray.remote(_flatten).options(num_cpus=1).remote(questions, items))
    cpus = int(ray.cluster_resources().get("CPU", 1))
    # One CPU is left to the read and write tasks.
    actors = actors or max(1, (cpus - 1) // threads)
    env = {"env_vars": {"RAYON_NUM_THREADS": str(threads)}}
    memory = _BASE_MEMORY + _CORPUS_FACTOR * _size(transcripts)
    items_fs, items_base = filesystem(items)

    def dataset(name: str) -> Any:
        ds = ray.data.read_parquet(f"{items_base}/{name}.parquet", filesystem=items_fs)
        return ds.repartition(partitions or 2 * actors)

    answers = dataset("answers").map_batches(
        _ScoreAnswers, fn_constructor_kwargs={"config": config}, batch_format="pyarrow",
        batch_size=batch_size, concurrency=actors, num_cpus=threads, runtime_env=env)
    quotes = dataset("quotes").map_batches(
        _VerifyQuotes, fn_constructor_kwargs={"transcripts": transcripts, "config": config},
        batch_format="pyarrow", batch_size=batch_size, concurrency=actors, num_cpus=threads,
        memory=memory, runtime_env=env)
    answers.write_parquet(f"{base}/answers", filesystem=fs)
    quotes.write_parquet(f"{base}/quotes", filesystem=fs)
    pairs = pq.read_table(f"{items_base}/pairs.parquet", filesystem=items_fs)
    answer_rows = pq.read_table(f"{base}/answers", filesystem=fs,
                                columns=["pair_index", "answer_index", "source", "score"])
    quote_rows = pq.read_table(f"{base}/quotes", filesystem=fs,
                               columns=["pair_index", "answer_index", "quote_index", "source", "verdict",
                                        "found", "attribution"])
    # Rows in = rows out (summarize names the pairs of a lost or doubled row).
    summary = _arrow.summarize(pairs, answer_rows, quote_rows, **config)
    if (answer_rows.num_rows, quote_rows.num_rows) != (counts["answers"], counts["quotes"]):
        raise ValueError(f"{out}: {answer_rows.num_rows} answer and {quote_rows.num_rows} quote rows written "
                         f"for {counts['answers']} answers and {counts['quotes']} quotes")
    with fs.open_output_stream(f"{base}/summary.json") as f:
        f.write(_json.dumps(summary, ensure_ascii=False, indent=2).encode("utf-8"))
    return summary
