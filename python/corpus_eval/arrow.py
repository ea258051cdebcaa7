"""The corpus-eval kernels over Arrow tables: what data engines call (Ray
Data's `map_batches(..., batch_format="pyarrow")`, Spark's `mapInArrow`).

Tables cross into Rust through the Arrow C stream interface (no Python
object per row) and come back as `pyarrow.Table`s with one row per input
row, in order. Inputs may be a `pyarrow.Table`, a `pyarrow.RecordBatch`, a
`pyarrow.RecordBatchReader`, or anything with `__arrow_c_stream__`. Needs
pyarrow >= 14.
"""

from __future__ import annotations

import json as _json
from typing import TYPE_CHECKING, Any, Dict

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._configs import EvaluateConfig

from . import _native
from . import _dumps

__all__ = ["verify_quotes", "score_answers", "summarize", "item_tables"]


def _stream(data: Any) -> Any:
    """The Arrow stream capsule of a table-like object."""
    import pyarrow as pa

    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if hasattr(data, "__arrow_c_stream__"):
        return data.__arrow_c_stream__()
    raise TypeError(
        "expected a pyarrow Table, RecordBatch or RecordBatchReader, or an object with __arrow_c_stream__, "
        f"got {type(data).__name__}"
    )


def _table(capsule: Any) -> Any:
    """A pyarrow Table from a stream capsule made in Rust."""
    import pyarrow as pa

    class _Stream:
        def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
            return capsule

    if hasattr(pa.RecordBatchReader, "from_stream"):
        return pa.RecordBatchReader.from_stream(_Stream()).read_all()
    return pa.RecordBatchReader._import_from_c_capsule(capsule).read_all()


def _transcripts(transcripts: Any) -> Any:
    """The corpus as the kernel takes it: a prepared `Corpus`, or JSON text
    (a str is taken as it is, any other value is dumped)."""
    from . import Corpus

    if isinstance(transcripts, Corpus):
        return transcripts._inner
    if isinstance(transcripts, str):
        return transcripts
    return _json.dumps(transcripts, ensure_ascii=False)


def verify_quotes(batch: Any, transcripts: Any, **config: Unpack[EvaluateConfig]) -> Any:
    """Check every quote of an Arrow table, as `evaluate` checks them.

    batch columns: quote, source (strings); optional id, speaker, answer
        (quotes with the same answer share the repeated-quote rule), time
        (seconds or "hh:mm:ss") and line ("45" or "45-47"), the cited place.
    transcripts: a `corpus_eval.Corpus` (parsed and prepared once: what a
        worker that checks many batches holds), or the corpus (a list of
        chunks, or its JSON text), parsed for this call.
    config: evaluate's settings (match, fuzzy_threshold, speaker_pattern,
        interviewer_labels).

    Returns a pyarrow Table, one row per input row in order: id (when
    given), verdict, found, similarity, span_start, span_end (characters),
    span_speaker, attribution, other_source and pieces (JSON text, null
    when absent), differences and meaning (`;`-joined), and, when the
    batch has a time or line column, location (JSON text).
    """
    capsule = _native.verify_quotes_arrow(
        _stream(batch), _transcripts(transcripts), _dumps(config, "config")
    )
    return _table(capsule)


def score_answers(batch: Any, **config: Unpack[EvaluateConfig]) -> Any:
    """Score every answer of an Arrow table by its question type and metric.

    batch columns: answer, type, metric (strings; a metric is its JSON text,
        e.g. json.dumps({"potato": 1}), or a plain word such as "yes");
        optional id.
    config: evaluate's settings (wordnet).

    Returns a pyarrow Table, one row per input row in order: id (when
    given), score (null when the metric cannot be used), question_type (the
    canonical name) and warning (why an answer is unscored).
    """
    capsule = _native.score_answers_arrow(_stream(batch), _dumps(config, "config"))
    return _table(capsule)


def summarize(pairs: Any, answers: Any, quotes: Any, **config: Unpack[EvaluateConfig]) -> Dict[str, Any]:
    """`evaluate`'s summary.json from its per-item tables, in any row order:
    the same means, counts, attribution and verdict counts, warnings,
    signature and (the same seed) the same bootstrap intervals.

    pairs columns: pair_index (position in the question file), id, type,
        metric (as for score_answers), and answers and quotes: how many
        the pair has in the question file (optional; item_tables writes
        them). With them, answer or quote rows lost or doubled (a lost
        partition, a retried task written twice) raise ValueError naming
        the pairs.
    answers columns: pair_index, answer_index, source, score.
    quotes columns: pair_index, answer_index, quote_index, source, verdict,
        found, attribution (as verify_quotes returns them).
    config: evaluate's settings (match, fuzzy_threshold, seed, speakers).
    """
    out = _native.summarize_arrow(_stream(pairs), _stream(answers), _stream(quotes), _dumps(config, "config"))
    return _json.loads(out)


def summary_parts(pairs: Any, answers: Any, quotes: Any, **config: Unpack[EvaluateConfig]) -> str:
    """A partition's contribution to `evaluate`'s summary.json (JSON text):
    value counts of every group's scores, verdict and attribution counts,
    item counts and warnings. The tables hold some of the pairs, each with
    all its answers and quotes (columns as for `summarize`; a lost or
    doubled row raises ValueError naming the pairs). Parts add up:
    `combine` of the parts of any split of the pairs equals `summarize` of
    them all, so a distributed run's driver holds parts, never rows."""
    return _native.summary_parts_arrow(_stream(pairs), _stream(answers), _stream(quotes),
                                       _dumps(config, "config"))


def combine(parts: Any, **config: Unpack[EvaluateConfig]) -> Dict[str, Any]:
    """summary.json from partitions' `summary_parts`, in any order: equal
    to `summarize` of all their rows (and to `corpus-eval evaluate`'s
    summary.json). Parts made with other settings than `config` raise
    ValueError."""
    out = _native.combine_parts([str(p) for p in parts], _dumps(config, "config"))
    return _json.loads(out)


def other_sources(batch: Any, corpus: Any) -> Any:
    """For each quote of an Arrow table (columns quote, source), the first
    transcript of `corpus` (a `corpus_eval.Corpus`) in corpus order, other
    than the one the quote cites, that holds it exactly or normalized: the
    search `evaluate` makes for the quotes not found in their own
    transcript. The cited transcripts need not be in `corpus`, so a corpus
    split into partitions is searched one partition at a time.

    Returns a pyarrow Table with one column, other_source (JSON text as
    `verify_quotes` writes it; null when no transcript holds the quote)."""
    from . import Corpus

    if not isinstance(corpus, Corpus):
        raise ValueError("other_sources takes a corpus_eval.Corpus")
    return _table(_native.other_sources_arrow(_stream(batch), corpus._inner))


def item_tables(questions: Any, name: str = "<questions>") -> Any:
    """A question document as the three item tables the kernels and
    `summarize` take: (pairs, answers, quotes) as pyarrow Tables. The
    document is read and checked by the core's question loader (the CLI's),
    so a bad document raises `ValueError` naming `name`, the record and the
    field.

    questions: the document's JSON text, or the document ({"qa_pairs": [...]}
        or a list of pairs).
    name: the file the text came from, for error messages.

    pairs: pair_index, id, type, metric (JSON text), answers and quotes
    (the pair's counts, for summarize's completeness check); answers: pair_index,
    answer_index, answer, source, type, metric; quotes: pair_index,
    answer_index, quote_index, quote, source, speaker, answer (the answer's
    key "PAIR_INDEX/ANSWER_INDEX", for the repeated-quote rule).
    """
    text = questions if isinstance(questions, str) else _json.dumps(questions, ensure_ascii=False)
    pairs, answers, quotes = _native.item_tables_arrow(text, str(name))
    return _table(pairs), _table(answers), _table(quotes)


def PAIRS_SCHEMA() -> Any:  # noqa: N802 - a schema, named as a constant
    """The schema of the pairs table."""
    import pyarrow as pa

    return pa.schema([("pair_index", pa.int64()), ("id", pa.string()), ("type", pa.string()),
                      ("metric", pa.string()), ("answers", pa.int64()), ("quotes", pa.int64())])


def ANSWERS_SCHEMA() -> Any:  # noqa: N802
    """The schema of the answers table."""
    import pyarrow as pa

    return pa.schema([("pair_index", pa.int64()), ("answer_index", pa.int64()), ("answer", pa.string()),
                      ("source", pa.string()), ("type", pa.string()), ("metric", pa.string())])


def QUOTES_SCHEMA() -> Any:  # noqa: N802
    """The schema of the quotes table."""
    import pyarrow as pa

    return pa.schema([("pair_index", pa.int64()), ("answer_index", pa.int64()), ("quote_index", pa.int64()),
                      ("quote", pa.string()), ("source", pa.string()), ("speaker", pa.string()),
                      ("answer", pa.string())])
