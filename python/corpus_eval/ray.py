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

__all__ = ["evaluate", "summarize", "connect", "filesystem"]

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

    if threads < 1 or batch_size < 1 or (partitions is not None and partitions < 1):
        raise ValueError("threads, batch_size and partitions must be at least 1")
    config = dict(config)
    connect()
    fs, base = filesystem(out)
    fs.create_dir(base, recursive=True)
    items = out.rstrip("/") + "/items"
    ray.get(ray.remote(_flatten).options(num_cpus=1).remote(questions, items))
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
    summary = summarize(out, partitions=partitions or 2 * actors, **config)
    with fs.open_output_stream(f"{base}/summary.json") as f:
        f.write(_json.dumps(summary, ensure_ascii=False, indent=2).encode("utf-8"))
    return summary


_ANSWER_COLUMNS = ["pair_index", "answer_index", "source", "score"]
_QUOTE_COLUMNS = ["pair_index", "answer_index", "quote_index", "source", "verdict", "found", "attribution"]


def _range_parts(out: str, lo: int, hi: int, config: dict) -> Tuple[str, int, int]:
    """A task: the summary parts of the pairs at positions lo..hi (their
    rows read from OUT with a filter), and how many answer and quote rows
    it read."""
    import pyarrow.dataset as pads

    fs, base = filesystem(out)
    keep = (pads.field("pair_index") >= lo) & (pads.field("pair_index") < hi)

    def table(path: str, columns: Optional[list] = None) -> Any:
        return pads.dataset(path, filesystem=fs, format="parquet").to_table(columns=columns, filter=keep)

    pairs = table(f"{base}/items/pairs.parquet")
    answers = table(f"{base}/answers", _ANSWER_COLUMNS)
    quotes = table(f"{base}/quotes", _QUOTE_COLUMNS)
    return _arrow.summary_parts(pairs, answers, quotes, **config), answers.num_rows, quotes.num_rows


def summarize(out: str, *, partitions: int = 8, **config: Any) -> Dict[str, Any]:
    """summary.json of a finished run folder OUT (items/, answers/,
    quotes/, as `evaluate` writes them) from partial aggregates: one Ray
    task per range of pairs returns its summary parts (value counts,
    counts, warnings; never rows), and the driver combines them. Rows lost
    or doubled raise ValueError naming the pairs; answer or quote rows of
    no pair too."""
    import ray
    import pyarrow.parquet as pq

    if partitions < 1:
        raise ValueError("partitions must be at least 1")
    connect()
    fs, base = filesystem(out)
    meta = pq.read_metadata(f"{base}/items/pairs.parquet", filesystem=fs)
    n_pairs = meta.num_rows
    step = max(1, -(-n_pairs // partitions))
    task = ray.remote(_range_parts).options(num_cpus=1)
    done = ray.get([task.remote(out, lo, lo + step, config) for lo in range(0, max(n_pairs, 1), step)])
    answer_rows = sum(d[1] for d in done)
    quote_rows = sum(d[2] for d in done)
    written = (_rows(fs, f"{base}/answers"), _rows(fs, f"{base}/quotes"))
    if written != (answer_rows, quote_rows):
        raise ValueError(f"{out}: {written[0] - answer_rows} answer and {written[1] - quote_rows} quote rows "
                         f"name no pair of the question file")
    return _arrow.combine([d[0] for d in done], **config)


def _rows(fs: Any, path: str) -> int:
    """The rows of a Parquet dataset (from its files' footers)."""
    import pyarrow.dataset as pads

    return pads.dataset(path, filesystem=fs, format="parquet").count_rows()
