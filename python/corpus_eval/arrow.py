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
from typing import Any, Dict

from . import _native

__all__ = ["verify_quotes", "score_answers", "summarize"]


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


def _transcripts_text(transcripts: Any) -> str:
    """The corpus as JSON text: a str is taken as it is (already JSON), any
    other value is dumped."""
    if isinstance(transcripts, str):
        return transcripts
    return _json.dumps(transcripts, ensure_ascii=False)


def verify_quotes(batch: Any, transcripts: Any, **config: Any) -> Any:
    """Check every quote of an Arrow table, as `evaluate` checks them.

    batch columns: quote, source (strings); optional id, speaker, answer
        (quotes with the same answer share the repeated-quote rule).
    transcripts: the corpus (a list of chunks, or its JSON text: pass the
        text when calling this for many batches, it is parsed per call).
    config: evaluate's settings (match, fuzzy_threshold, speaker_pattern,
        interviewer_labels).

    Returns a pyarrow Table, one row per input row in order: id (when
    given), verdict, found, similarity, span_start, span_end (characters),
    span_speaker, attribution, other_source and pieces (JSON text, null
    when absent).
    """
    capsule = _native.verify_quotes_arrow(
        _stream(batch), _transcripts_text(transcripts), _json.dumps(config)
    )
    return _table(capsule)


def score_answers(batch: Any, **config: Any) -> Any:
    """Score every answer of an Arrow table by its question type and metric.

    batch columns: answer, type, metric (strings; a metric is its JSON text,
        e.g. json.dumps({"potato": 1}), or a plain word such as "yes");
        optional id.
    config: evaluate's settings (wordnet).

    Returns a pyarrow Table, one row per input row in order: id (when
    given), score (null when the metric cannot be used), question_type (the
    canonical name) and warning (why an answer is unscored).
    """
    capsule = _native.score_answers_arrow(_stream(batch), _json.dumps(config))
    return _table(capsule)


def summarize(pairs: Any, answers: Any, quotes: Any, **config: Any) -> Dict[str, Any]:
    """`evaluate`'s summary.json from its per-item tables, in any row order:
    the same means, counts, attribution and verdict counts, warnings,
    signature and (the same seed) the same bootstrap intervals.

    pairs columns: pair_index (position in the question file), id, type,
        metric (as for score_answers).
    answers columns: pair_index, answer_index, source, score.
    quotes columns: pair_index, answer_index, quote_index, source, verdict,
        found, attribution (as verify_quotes returns them).
    config: evaluate's settings (match, fuzzy_threshold, seed, speakers).
    """
    out = _native.summarize_arrow(_stream(pairs), _stream(answers), _stream(quotes), _json.dumps(config))
    return _json.loads(out)
