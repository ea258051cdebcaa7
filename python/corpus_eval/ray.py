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
from . import _native
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


# A quote whose source names no transcript of the corpus is checked under
# this source (no transcript of any partition has it), so that a partition
# never resolves, by an id without its extension, a name that the whole
# corpus finds ambiguous.
_NO_TRANSCRIPT = "\u0000(no transcript)"

# The attributions of a quote not found in its own transcript: a transcript
# of another partition may hold it.
_MISSING = tuple(name for kind, name, _, missing in _native.classes() if kind == "attribution" and missing)


def _aliases(names: list) -> Dict[str, str]:
    """The ids without their extension that find a transcript (where
    unique, and not an id themselves): the loaders' rule, from Rust."""
    return _native.transcript_aliases(list(names))


def _partition_transcripts(transcripts: str, out: str, parts: int) -> Dict[str, Any]:
    """A task: the corpus's transcript ids in corpus order, split into at
    most `parts` partitions of about equal size (largest transcripts
    first), each written under OUT/transcripts/ as a corpus of its own (a
    JSON chunk file, or a folder of the transcript files). A corpus that
    cannot be split by file (a .qdpx project, one transcript file) is one
    partition, read where it is."""
    import pyarrow.fs as pafs

    local = _local_transcripts(transcripts)
    # A .json file of two transcripts or more is a chunk corpus (a whisperX
    # file is one transcript). Its chunks are read as written by the Rust
    # core (the task holds the text and its tape, not a prepared corpus).
    chunked = False
    if local.is_file() and local.suffix.lower() == ".json":
        try:
            names, sizes = _native.chunk_files(str(local))
            chunked = len(names) > 1
        except ValueError:
            chunked = False
    if not chunked:
        names = _native.transcript_files(str(local))
    folder = local.is_dir() and all((local / n).is_file() for n in names)
    one = {"names": names, "partition": [0] * len(names), "locations": [transcripts],
           "aliases": _aliases(names) if not chunked else {}, "sizes": [0]}
    if parts < 2 or len(names) < 2 or not (chunked or folder):
        one["sizes"] = [_size(transcripts)]
        return one
    if chunked:
        size = dict(zip(names, sizes))
    else:
        size = {n: (local / n).stat().st_size for n in names}
    parts = min(parts, len(names))
    loads = [0] * parts
    partition_of: Dict[str, int] = {}
    for name in sorted(names, key=lambda n: -size.get(n, 0)):
        k = loads.index(min(loads))
        partition_of[name] = k
        loads[k] += size.get(name, 0)
    fs, base = filesystem(out.rstrip("/") + "/transcripts")
    fs.create_dir(base, recursive=True)
    locations = []
    # Written here by the core, then copied to OUT (any filesystem).
    staged = _tempfile.mkdtemp(prefix="corpus-eval-parts-") if chunked else ""
    if chunked:
        _native.write_chunk_partitions(str(local), partition_of,
                                       [_os.path.join(staged, f"part-{k}.json") for k in range(parts)])
    for k in range(parts):
        if chunked:
            path = f"{base}/part-{k}.json"
            with open(_os.path.join(staged, f"part-{k}.json"), "rb") as src, fs.open_output_stream(path) as dst:
                while True:
                    block = src.read(1 << 24)
                    if not block:
                        break
                    dst.write(block)
            _os.remove(_os.path.join(staged, f"part-{k}.json"))
        else:
            path = f"{base}/part-{k}"
            for name in names:
                if partition_of[name] == k:
                    target = f"{path}/{name}"
                    fs.create_dir(target.rsplit("/", 1)[0], recursive=True)
                    with open(local / name, "rb") as src, fs.open_output_stream(target) as dst:
                        dst.write(src.read())
        # The partition's location written as OUT is (a URI keeps its
        # scheme and authority).
        locations.append(f"{out.rstrip('/')}/transcripts/{path.rsplit('/', 1)[-1]}")
    if staged:
        _os.rmdir(staged)
    return {"names": names, "partition": [partition_of[n] for n in names], "locations": locations,
            "aliases": {} if chunked else _aliases(names), "sizes": loads}


def _route(batch: Any, plan: Dict[str, Any]) -> Any:
    """Adds each quote's partition and the source its check uses: the
    transcript's full id, or a name no transcript has."""
    import pyarrow as pa

    partition = dict(zip(plan["names"], plan["partition"]))
    aliases = plan["aliases"]
    sources = batch.column("source").to_pylist()
    resolved = [s if s in partition else aliases.get(s) if s is not None else None for s in sources]
    parts = [partition[r] if r is not None else 0 for r in resolved]
    lookup = [r if r is not None else _NO_TRANSCRIPT for r in resolved]
    return batch.append_column("partition", pa.array(parts, pa.int64())).append_column(
        "lookup_source", pa.array(lookup, pa.string()))


class _VerifyPartition:
    """Verifies the quotes of one transcript partition against that
    partition alone (read from its location and prepared once per
    partition the actor is handed)."""

    def __init__(self, plan: Dict[str, Any], config: dict) -> None:
        self.locations = plan["locations"]
        self.config = config
        self.loaded: Optional[Tuple[int, Any]] = None

    def __call__(self, batch: Any) -> Any:
        if batch.num_rows == 0:
            return batch
        k = batch.column("partition")[0].as_py()
        if self.loaded is None or self.loaded[0] != k:
            self.loaded = None
            self.loaded = (k, Corpus(_local_transcripts(self.locations[k]), **self.config))
        ask = batch.select(["quote", "lookup_source", "speaker", "answer"]).rename_columns(
            ["quote", "source", "speaker", "answer"])
        checked = _arrow.verify_quotes(ask, self.loaded[1], **self.config)
        out = batch.select(["pair_index", "answer_index", "quote_index", "source", "quote", "lookup_source",
                            "partition"])
        for name in checked.column_names:
            out = out.append_column(name, checked.column(name))
        return out


def _holders(out: str, plan: Dict[str, Any], k: int, config: dict) -> Any:
    """A task: the quotes not found in their own transcript, searched in
    partition k's transcripts (those of other partitions: a partition's own
    were searched with its checks); the hits, with the holder's position in
    the corpus."""
    import pyarrow as pa
    import pyarrow.dataset as pads

    fs, base = filesystem(out)
    missing = pads.dataset(f"{base}/_missing", filesystem=fs, format="parquet").to_table(
        filter=pads.field("partition") != k)
    empty = pa.table({"key": pa.array([], pa.string()), "holder": pa.array([], pa.int64()),
                      "other_source": pa.array([], pa.string())})
    if missing.num_rows == 0:
        return empty
    corpus = Corpus(_local_transcripts(plan["locations"][k]), **config)
    found = _arrow.other_sources(missing.select(["quote", "lookup_source"]).rename_columns(["quote", "source"]),
                                 corpus).column("other_source").to_pylist()
    position = {n: i for i, n in enumerate(plan["names"])}
    keys, holders, records = [], [], []
    for key, record in zip(missing.column("key").to_pylist(), found):
        if record is not None:
            keys.append(key)
            holders.append(position[_json.loads(record)["source"]])
            records.append(record)
    if not keys:
        return empty
    return pa.table({"key": pa.array(keys, pa.string()), "holder": pa.array(holders, pa.int64()),
                     "other_source": pa.array(records, pa.string())})


def _settle(batch: Any, settled: Dict[str, str]) -> Any:
    """The quotes' final attribution: a quote not found in its own
    transcript that a transcript of another partition holds first (in
    corpus order) is `other_source` there, as one search over the whole
    corpus finds it."""
    import pyarrow as pa

    keys = _keys(batch)
    attribution = batch.column("attribution").to_pylist()
    other = batch.column("other_source").to_pylist()
    speaker = batch.column("span_speaker").to_pylist()
    pieces = batch.column("pieces").to_pylist()
    for i, key in enumerate(keys):
        record = settled.get(key)
        if record is not None:
            attribution[i], other[i], speaker[i], pieces[i] = "other_source", record, None, None
    names = [n for n in batch.column_names if n not in ("quote", "lookup_source", "partition")]
    columns = {"span_speaker": speaker, "attribution": attribution, "other_source": other, "pieces": pieces}
    out = batch.drop_columns(["quote", "lookup_source", "partition", *columns])
    for name, values in columns.items():
        out = out.append_column(name, pa.array(values, pa.string()))
    return out.select(names)


def _keys(batch: Any) -> list:
    return [f"{p}/{a}/{q}" for p, a, q in zip(batch.column("pair_index").to_pylist(),
                                             batch.column("answer_index").to_pylist(),
                                             batch.column("quote_index").to_pylist())]


def _missing_keys(batch: Any) -> Any:
    """The quotes not found in their own transcript, keyed."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keep = pc.is_in(batch.column("attribution"), value_set=pa.array(_MISSING, pa.string()))
    rows = batch.filter(pc.fill_null(keep, False))
    return pa.table({"key": pa.array(_keys(rows), pa.string()), "quote": rows.column("quote"),
                     "lookup_source": rows.column("lookup_source"), "partition": rows.column("partition"),
                     "attribution": rows.column("attribution"), "other_source": rows.column("other_source")})


def _flatten(questions: str, items: str) -> Dict[str, int]:
    """A task: the question file as three item tables under `items`."""
    import pyarrow.parquet as pq

    tables = _arrow.item_tables(_read_text(questions), questions)
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
             transcript_partitions: Optional[int] = None, threads: int = 1, actors: Optional[int] = None,
             batch_size: int = 4096, **config: Any) -> Dict[str, Any]:
    """Runs `evaluate` on the Ray cluster; returns the summary (also
    written to OUT/summary.json).

    questions: the question file (a local path or a URI).
    transcripts: the transcripts, as `corpus-eval evaluate` takes them (a
        JSON chunk file, a transcript file, a folder of them or a .qdpx
        project), by path or URI.
    out: the folder (path or URI) that receives items/, answers/, quotes/
        and summary.json.
    partitions: how many blocks the answers are split into, and how many
        ranges of pairs the summary is made of (default: twice the actors).
    transcript_partitions: how many partitions the transcripts are split
        into (default: the actors; at most one per transcript): the quotes
        are grouped by the partition of the transcript they cite, each group
        checked by an actor that reads and prepares that partition alone,
        and the quotes not found in their own transcript are then searched
        in the other partitions, once per run (one task per partition). A
        corpus that cannot be split by file (a .qdpx project, one
        transcript file) is one partition.
    threads: the CPU threads each actor's Rust core uses; the actor asks Ray
        for that many CPUs (and for memory in proportion to the
        transcripts' size), so Ray places actors where they fit.
    actors: how many actors score and verify at once (default: as many as
        the cluster's CPUs allow, at least 1).
    config: evaluate's settings (match, fuzzy_threshold, seed, speaker
        settings, ...), as for `corpus_eval.evaluate`.
    """
    import ray

    if threads < 1 or batch_size < 1 or any(p is not None and p < 1 for p in (partitions, transcript_partitions)):
        raise ValueError("threads, batch_size, partitions and transcript_partitions must be at least 1")
    config = dict(config)
    connect()
    actors = _placeable(threads, actors)
    fs, base = filesystem(out)
    fs.create_dir(base, recursive=True)
    items = out.rstrip("/") + "/items"
    ray.get(ray.remote(_flatten).options(num_cpus=1).remote(questions, items))
    env = {"env_vars": {"RAYON_NUM_THREADS": str(threads)}}
    memory = _BASE_MEMORY + _CORPUS_FACTOR * _size(transcripts)
    items_fs, items_base = filesystem(items)

    def dataset(name: str) -> Any:
        ds = ray.data.read_parquet(f"{items_base}/{name}.parquet", filesystem=items_fs)
        return ds.repartition(partitions or 2 * actors)

    answers = dataset("answers").map_batches(
        _ScoreAnswers, fn_constructor_kwargs={"config": config}, batch_format="pyarrow",
        batch_size=batch_size, concurrency=actors, num_cpus=threads, runtime_env=env)
    plan = ray.get(ray.remote(_partition_transcripts).options(num_cpus=1, memory=memory).remote(
        transcripts, out, transcript_partitions or actors))
    count = len(plan["locations"])
    if count == 1:
        quotes = dataset("quotes").map_batches(
            _VerifyQuotes, fn_constructor_kwargs={"transcripts": transcripts, "config": config},
            batch_format="pyarrow", batch_size=batch_size, concurrency=actors, num_cpus=threads,
            memory=memory, runtime_env=env)
        answers.write_parquet(f"{base}/answers", filesystem=fs)
        quotes.write_parquet(f"{base}/quotes", filesystem=fs)
    else:
        answers.write_parquet(f"{base}/answers", filesystem=fs)
        _verify_partitioned(dataset("quotes"), plan, out, config, actors, threads, env)
    summary = summarize(out, partitions=partitions or 2 * actors, **config)
    with fs.open_output_stream(f"{base}/summary.json") as f:
        f.write(_json.dumps(summary, ensure_ascii=False, indent=2).encode("utf-8"))
    return summary


def _placeable(threads: int, actors: Optional[int]) -> int:
    """The number of actors (default: as many as leave one CPU of the
    cluster to the read and write tasks), or a ValueError when the actors
    could never be placed or would hold every CPU: Ray would wait for
    resources forever instead of failing."""
    import ray

    cpus = int(ray.cluster_resources().get("CPU", 1))
    widest = int(max((n.get("Resources", {}).get("CPU", 0) for n in ray.nodes() if n.get("Alive")), default=cpus))
    if threads > widest:
        raise ValueError(f"threads={threads}: an actor needs that many CPUs on one node, and the largest node "
                         f"has {widest}")
    actors = actors or max(1, (cpus - 1) // threads)
    if actors * threads > max(1, cpus - 1):
        raise ValueError(f"{actors} actor(s) x {threads} threads would hold every CPU of the cluster ({cpus}); "
                         "the read and write tasks need one: give fewer actors or threads")
    return actors


def _verify_partitioned(quotes: Any, plan: Dict[str, Any], out: str, config: dict, actors: int, threads: int,
                        env: dict) -> None:
    """The quotes checked partition by partition, then the ones not found
    in their own transcript searched in the other partitions (one task per
    partition), and OUT/quotes/ written with their final attribution."""
    import ray
    import pyarrow.parquet as pq

    fs, base = filesystem(out)
    memory = _BASE_MEMORY + _CORPUS_FACTOR * max(plan["sizes"])
    local = quotes.map_batches(_route, fn_kwargs={"plan": plan}, batch_format="pyarrow").groupby(
        "partition").map_groups(
        _VerifyPartition, fn_constructor_kwargs={"plan": plan, "config": config}, batch_format="pyarrow",
        concurrency=actors, num_cpus=threads, memory=memory, runtime_env=env).materialize()
    missing_path = f"{base}/_missing"
    local.map_batches(_missing_keys, batch_format="pyarrow").write_parquet(
        missing_path, filesystem=fs)
    settled: Dict[str, str] = {}
    if _rows(fs, missing_path) > 0:
        task = ray.remote(_holders).options(num_cpus=threads, memory=memory, runtime_env=env)
        hits = ray.get([task.remote(out, plan, k, config) for k in range(len(plan["locations"]))])
        best: Dict[str, Tuple[int, str]] = {}
        for table in hits:
            for key, holder, record in zip(table.column("key").to_pylist(), table.column("holder").to_pylist(),
                                           table.column("other_source").to_pylist()):
                if key not in best or holder < best[key][0]:
                    best[key] = (holder, record)
        position = {n: i for i, n in enumerate(plan["names"])}
        mine = pq.read_table(missing_path, filesystem=fs, columns=["key", "attribution", "other_source"])
        for key, attribution, record in zip(mine.column("key").to_pylist(), mine.column("attribution").to_pylist(),
                                            mine.column("other_source").to_pylist()):
            found = best.get(key)
            if found is None:
                continue
            if attribution == "other_source" and record is not None:
                if position[_json.loads(record)["source"]] < found[0]:
                    continue
            settled[key] = found[1]
    local.map_batches(_settle, fn_kwargs={"settled": settled}, batch_format="pyarrow").write_parquet(
        f"{base}/quotes", filesystem=fs)
    fs.delete_dir(missing_path)


_ANSWER_COLUMNS = ["pair_index", "answer_index", "source", "score"]
_QUOTE_COLUMNS = ["pair_index", "answer_index", "quote_index", "source", "verdict", "found", "attribution", "meaning"]


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
    """The rows of a Parquet dataset (from its files' footers; 0 when
    nothing was written)."""
    import pyarrow.dataset as pads
    import pyarrow.fs as pafs

    if fs.get_file_info(path).type == pafs.FileType.NotFound:
        return 0
    return pads.dataset(path, filesystem=fs, format="parquet").count_rows()
