"""corpus-eval from Python: the Rust core over plain Python data.

Every function takes dicts, lists and strings, releases the GIL while the
Rust core works, and returns plain data equal to what the `corpus-eval`
command line writes for the same input. Keyword arguments are the fields of
the command's configuration (its `--config` keys); an unknown one raises
TypeError, bad input raises ValueError with the CLI's message.
"""

from __future__ import annotations

import json as _json
from typing import Any

from . import _native

__all__ = ["evaluate", "score_answer", "hotpot", "similarity", "embed"]


def evaluate(questions: Any, transcripts: Any, **config: Any) -> dict:
    """Score answers by question type and verify every quote (the CLI's
    `corpus-eval evaluate`).

    questions: the question document ({"qa_pairs": [...]} or a list of pairs);
    transcripts: the transcript chunks ([{"page_content", "metadata": {"FILE"}}]);
    config: evaluate's settings (match, fuzzy_threshold, seed, ...).
    Returns {"results": <results.json>, "summary": <summary.json>}.
    """
    out = _native.evaluate_json(_json.dumps(questions), _json.dumps(transcripts), _json.dumps(config))
    return _json.loads(out)


def score_answer(answer: str, type: str, metric: Any) -> float | None:
    """One answer's score in [0, 1] under a question type and its metric (a
    JSON value, or "yes"/"no"), or None when it cannot be scored (the CLI's
    `corpus-eval score`)."""
    return _native.score_answer(answer, type, _json.dumps(metric))


def hotpot(predictions: Any, gold: Any, **config: Any) -> dict:
    """HotpotQA metrics (the CLI's `corpus-eval hotpot`): simple-format
    arrays or official {"answer", "sp"} predictions with the HotpotQA gold.
    config: hotpot's settings (format="auto"|"simple"|"official", name).
    Returns {"metrics": <metrics.json>, "per_example": <per_example.json>}."""
    out = _native.hotpot_json(_json.dumps(predictions), _json.dumps(gold), _json.dumps(config))
    return _json.loads(out)


def similarity(a: str, b: str) -> float:
    """Cosine similarity of two texts' all-MiniLM-L6-v2 embeddings (the CLI's
    `corpus-eval similarity`); the model is found as the CLI finds it."""
    return _native.similarity(a, b)


def embed(texts: Any) -> Any:
    """The texts' sentence embeddings as a numpy float32 array of shape
    (len(texts), 384), L2-normalized (the CLI's `corpus-eval embed`)."""
    import numpy as np

    rows, dims, data = _native.embed_bytes([str(t) for t in texts])
    return np.frombuffer(data, dtype="<f4").reshape(rows, dims)
