"""corpus-eval from Python: the Rust core over plain Python data.

Every function takes dicts, lists and strings, releases the GIL while the
Rust core works (other Python threads run meanwhile), and returns plain data
equal to what the `corpus-eval` command line writes for the same input.
Keyword arguments are the fields of the command's configuration (its
`--config` keys, e.g. `match`, `fuzzy_threshold`, `seed`); an unknown one
raises TypeError, a bad value or bad input ValueError with the message the
command line prints for it. `corpus_eval.arrow` holds the same kernels over
Arrow tables, for data engines (Ray Data, Spark).
"""

from __future__ import annotations

import io as _io
import json as _json
import os as _os
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._configs import (
        AgreementConfig,
        CheckReportConfig,
        EvaluateConfig,
        GroundingConfig,
        HotpotConfig,
        LexicalConfig,
        TextEvalConfig,
    )

from . import _native

__all__ = [
    "TRANSCRIPT_FORMATS",
    "VERDICTS",
    "ATTRIBUTIONS",
    "DIFFERENCES",
    "MEANINGS",
    "Corpus",
    "Evaluation",
    "Result",
    "QuoteChecks",
    "evaluate",
    "verify_quotes",
    "check_report",
    "score_answer",
    "hotpot",
    "text_eval",
    "grounding",
    "lexical",
    "agreement",
    "similarity",
    "embed",
    "export_qdpx",
    "span_agreement",
    "SpanAgreement",
]


#: The transcript files the readers take, by extension (`".vtt"`: `"WebVTT
#: captions"`), from the readers' one table (the CLI's `corpus-eval
#: transcript --help` lists the same).
TRANSCRIPT_FORMATS: Dict[str, str] = {
    f".{ext}": name for name, extensions in _native.transcript_formats() for ext in extensions
}


def _class_list(kind: str) -> Dict[str, str]:
    return {name: about for k, name, about, _ in _native.classes() if k == kind}


#: The quote verdicts, in output order, each with what it means (from the
#: one class list the reports and the CLI use).
VERDICTS: Dict[str, str] = _class_list("verdict")
#: The attribution classes, in output order, with what each means.
ATTRIBUTIONS: Dict[str, str] = _class_list("attribution")
#: The `differences` classes (what a match set aside), in output order.
DIFFERENCES: Dict[str, str] = _class_list("difference")
#: The `meaning` classes (what a quote changes in what was said).
MEANINGS: Dict[str, str] = _class_list("meaning")


def _non_finite(value: Any, path: str = "") -> Optional[tuple]:
    """The path (`[3].score`, `.fuzzy_threshold`) and value of the first
    NaN or infinity inside `value`, or None."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return path, value
    if isinstance(value, dict):
        for k, v in value.items():
            found = _non_finite(v, f"{path}.{k}")
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _non_finite(v, f"{path}[{i}]")
            if found:
                return found
    return None


def _dumps(value: Any, what: str = "input") -> str:
    """`value` as JSON; NaN or infinity (which JSON cannot hold) raise
    ValueError naming where they stand and the value."""
    try:
        return _json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        found = _non_finite(value)
        if found is None:
            raise
        path, bad = found
        raise ValueError(f"{what}{path}: {bad!r} is not a finite number (JSON has no NaN or infinity)") from None


def _document(value: Any, what: str = "input") -> str:
    """A JSON document: a str is taken as its text already (a file's
    contents), anything else is dumped."""
    return value if isinstance(value, str) else _dumps(value, what)


def _path_of(transcripts: Any) -> Optional[str]:
    """The path `transcripts` names (a folder, a transcript file of any
    format, a .qdpx project): an os.PathLike, or a str that is not JSON
    text. None for JSON documents. A path that names nothing on disk is a
    FileNotFoundError (a mistyped path is never read as a document)."""
    if isinstance(transcripts, _os.PathLike):
        path = _os.fspath(transcripts)
    elif isinstance(transcripts, str) and transcripts.lstrip()[:1] not in ("[", "{"):
        path = transcripts
    else:
        return None
    if not _os.path.exists(path):
        raise FileNotFoundError(f"transcripts: no such file or folder: {path!r}")
    return path


_REPORT_EXTENSIONS = (".md", ".markdown", ".txt", ".text", ".docx")


def _looks_like_path(text: str) -> bool:
    """Whether a report given as a str is meant as a path: one line that
    ends in a report's extension or starts like a path (`/`, `./`, `../`,
    `~`)."""
    line = text.strip()
    return (
        "\n" not in line
        and line != ""
        and (line.lower().endswith(_REPORT_EXTENSIONS) or line.startswith(("/", "./", "../", "~")))
    )


def _frame(csv_text: str) -> Any:
    """A run folder table (CSV text) as a pandas DataFrame."""
    import pandas as pd

    return pd.read_csv(_io.StringIO(csv_text), keep_default_na=False, na_values=[""])


_ITEMS_FRAME: Any = None


def _items_table(csv_text: str, mapping: Dict[str, Any]) -> Any:
    """items.csv as a pandas DataFrame that, called, is still the dict's
    `items()`: `result.items` is the table, `result.items()` the dict's
    (key, value) pairs, so code that treats the result as a dict keeps
    working. Without pandas, only the dict's `items()`."""
    global _ITEMS_FRAME
    try:
        import pandas as pd
    except ImportError:
        return lambda: dict.items(mapping)
    if _ITEMS_FRAME is None:

        class ItemsFrame(pd.DataFrame):
            """A per-item table that, called, gives its result's dict items."""

            _metadata = ["_mapping"]

            @property
            def _constructor(self) -> Any:
                return pd.DataFrame

            def __call__(self) -> Any:
                return dict.items(self._mapping)

        _ITEMS_FRAME = ItemsFrame
    frame = _ITEMS_FRAME(_frame(csv_text))
    frame._mapping = mapping
    return frame


class Result(dict):
    """What `hotpot`, `text_eval`, `grounding`, `lexical` and `agreement`
    return: the job's JSON outputs as a dict, with the run folder's
    per-item table (items.csv) as a pandas DataFrame: `.items` (called,
    `.items()` is still the dict's items)."""

    def __init__(self, out: Dict[str, Any]) -> None:
        items_csv = out.pop("items_csv", "")
        super().__init__(out)
        self._items_csv = items_csv

    @property
    def items(self) -> Any:  # type: ignore[override]
        """items.csv as a DataFrame (callable as `dict.items`)."""
        return _items_table(self._items_csv, self)


class Evaluation(dict):
    """What `evaluate` returns: {"results": <results.json>, "summary":
    <summary.json>}, with the run folder's tables as pandas DataFrames:
    `.quotes` (quotes.csv: one row per quote, times included) and `.items`
    (items.csv: one row per scored answer)."""

    def __init__(self, out: Dict[str, Any]) -> None:
        super().__init__(results=out["results"], summary=out["summary"])
        self._quotes_csv = out["quotes_csv"]
        self._items_csv = out["items_csv"]

    @property
    def quotes(self) -> Any:
        """quotes.csv as a DataFrame."""
        return _frame(self._quotes_csv)

    @property
    def items(self) -> Any:  # type: ignore[override]
        """items.csv as a DataFrame (callable as `dict.items`)."""
        return _items_table(self._items_csv, self)


class QuoteChecks(list):
    """What `verify_quotes` returns: one dict per quote, and `.quotes`,
    the same as a pandas DataFrame (one row per quote; `span` and `time`
    flattened to `span_start`, `span_end`, `time_start`, `time_end`)."""

    @property
    def quotes(self) -> Any:
        import pandas as pd

        rows = []
        for q in self:
            row = dict(q)
            span = row.pop("span", None) or {}
            time = row.pop("time", None) or {}
            row["span_start"], row["span_end"] = span.get("start"), span.get("end")
            row["time_start"], row["time_end"] = time.get("start"), time.get("end")
            rows.append(row)
        return pd.DataFrame(rows)


class Corpus:
    """A transcript corpus parsed once, its transcripts prepared for quote
    lookups (turns, normalized text, word index) on first use and kept: pass
    it to `verify_quotes` (or `corpus_eval.arrow.verify_quotes`) to check
    many batches of quotes without parsing and preparing the corpus again
    (what a data engine's worker does). Memory grows with the transcripts
    used.

    transcripts: the corpus, as for `evaluate` (or its JSON text), or the
        path (str or os.PathLike) of a folder of transcript files, one
        transcript file (any of `TRANSCRIPT_FORMATS`) or a REFI-QDA .qdpx
        project.
    config: the speaker settings (speaker_pattern, interviewer_labels;
        speaker_map, e.g. "SPEAKER_00=Interviewer,SPEAKER_01=Tomas", names
        diarized speakers) that split transcripts into turns; other
        evaluate settings are accepted.
    """

    def __init__(self, transcripts: Any, **config: Unpack[EvaluateConfig]) -> None:
        if not isinstance(transcripts, (str, bytes, _os.PathLike, list, dict)):
            raise TypeError(
                "transcripts: a path (str or os.PathLike), JSON text, or a list or dict of chunks,"
                f" not {type(transcripts).__name__}"
            )
        path = _path_of(transcripts)
        # What `check_report` reads again (it resolves labels through the
        # transcripts' speakers).
        self._source = path if path is not None else _document(transcripts, "transcripts")
        if path is not None:
            self._inner = _native.Corpus(path, _dumps(config, "config"), True)
        else:
            self._inner = _native.Corpus(_document(transcripts, "transcripts"), _dumps(config, "config"))

    def __len__(self) -> int:
        return len(self._inner)

    def files(self) -> List[str]:
        """The transcripts' names (FILE), in corpus order."""
        return self._inner.files()


def _corpus(transcripts: Any, config: Optional[Mapping[str, Any]] = None) -> Any:
    """What the native checks take: a prepared corpus (a path's is
    prepared here), or JSON text."""
    if isinstance(transcripts, Corpus):
        return transcripts._inner
    if _path_of(transcripts) is not None:
        return Corpus(transcripts, **(config or {}))._inner
    return _document(transcripts)


def evaluate(questions: Any, transcripts: Any, **config: Unpack[EvaluateConfig]) -> "Evaluation":
    """Score every answer by its question type and verify every quote in the
    transcript it cites (the CLI's `corpus-eval evaluate QUESTIONS
    TRANSCRIPTS`).

    questions: the question document ({"qa_pairs": [...]} or a list of
        {"id"?, "question": {"text", "type", "metric"}, "answers": [{"answer",
        "source", "verbatims": [{"quote", "source", "speaker"?}]}]}), or its
        JSON text (a str).
    transcripts: the corpus ([{"page_content", "metadata": {"FILE"}}] or
        {"documents": [...]}), or its JSON text; the chunks of one FILE are
        joined with "\\n". Or the path (str or os.PathLike) of a folder of
        transcript files, one transcript file (any of
        `TRANSCRIPT_FORMATS`) or a REFI-QDA .qdpx project; every found
        quote then has its `time`.
    config (the CLI's flags): match ("exact" | "normalized" | "fuzzy", the
        weakest verdict that counts as found; default normalized),
        fuzzy_threshold (0..1, default 0.9), seed (of the 95% bootstrap
        intervals, default 42), speaker_pattern (a regex whose first group
        is the speaker label), interviewer_labels (list), wordnet (a WordNet
        dict folder instead of the embedded lexicon), shard ("I/N": only the
        pairs whose id hashes to shard I of N), speaker_map (names of
        diarized speakers). `out` is refused (TypeError): nothing is written,
        the results are returned.

    Returns an `Evaluation`: {"results": <results.json>, "summary":
    <summary.json>} (the document with `score` on every answer, `verdict`,
    `found`, `similarity`, `span`, `time`, `span_speaker` and `attribution`
    on every quote, `id` and `existence_score` on every pair; and the means
    with their intervals), with `.quotes` and `.items`, the run folder's
    quotes.csv and items.csv as pandas DataFrames.
    """
    if "out" in config:
        raise TypeError("evaluate() writes nothing, so it takes no 'out': it returns the results (the CLI's `corpus-eval evaluate --out` writes a run folder)")
    path = _path_of(transcripts)
    text = path if path is not None else _document(transcripts, "transcripts")
    out = _native.evaluate_tables_json(_document(questions, "questions"), text, _dumps(config, "config"), path is not None)
    return Evaluation(_json.loads(out))


def verify_quotes(quotes: Sequence[Dict[str, Any]], transcripts: Any, **config: Unpack[EvaluateConfig]) -> "QuoteChecks":
    """Check quotes against transcripts as `evaluate` checks an answer's
    quotes, without a question file.

    quotes: a list of {"quote", "source", "speaker"?, "answer"?, "id"?}:
        the quoted text, the FILE it cites, the speaker it names, and the
        answer it belongs to (quotes of one answer that repeat a text take
        successive occurrences, as in `evaluate`).
    transcripts: the corpus, as for `evaluate`, or a `Corpus` (prepared once
        for many calls).
    config: evaluate's settings (match, fuzzy_threshold, speaker_pattern,
        interviewer_labels).

    Returns one dict per quote, in order: "id" (when given), then the fields
    `evaluate` writes on a quote in results.json: verdict (exact,
    normalized, fuzzy, not_found, unknown_source), found, similarity, span
    ({"start", "end"} in characters, or None), span_speaker, attribution,
    and other_source or pieces when the quote has them.
    """
    out = _native.verify_quotes_json(_dumps(list(quotes), "quotes"), _corpus(transcripts, config), _dumps(config, "config"))
    return QuoteChecks(_json.loads(out))


def check_report(report: Any, corpus: Any, sources: Any = None, **config: Unpack[CheckReportConfig]) -> "QuoteChecks":
    """Find the quotes of a written report, resolve whom each is attributed
    to, and check each against the transcripts (the CLI's `corpus-eval
    check-report REPORT TRANSCRIPTS`).

    report: the path (str or os.PathLike) of a Markdown, text or .docx
        report, or the report's text. A str of one line that ends in a
        report's extension (.md, .markdown, .txt, .text, .docx) or starts
        like a path (/, ./, ../, ~) is a path, and a FileNotFoundError when
        it names no file; any other str that names no file is the text.
    corpus: the transcripts, as for `evaluate`: a path (folder, transcript
        file, .qdpx project), the JSON chunks or their text, or a `Corpus`
        made from a path or JSON.
    sources: the path of a CSV map of `label,source,speaker` rows (what
        the report's labels stand for), or None.
    config (the CLI's flags): min_words (default 4), match, fuzzy_threshold,
        fuzzy_search, speaker_pattern, interviewer_labels, fillers,
        speaker_aliases, speaker_map.

    Returns one dict per quote, in report order: quote_id, text, line,
    column, block, cue, cited ({"label", "source", "speaker"} or None),
    source, verdict, found, similarity, span, time, span_speaker,
    attribution, differences, and other_source or pieces where they apply;
    `.quotes` gives them as a pandas DataFrame.
    """
    if isinstance(report, _os.PathLike) or (isinstance(report, str) and "\n" not in report and _os.path.isfile(report)):
        report_text, report_is_path = _os.fspath(report), True
        if not _os.path.isfile(report_text):
            raise FileNotFoundError(f"report: no such file: {report_text!r}")
    elif isinstance(report, str) and _looks_like_path(report):
        raise FileNotFoundError(f"report: no such file: {_os.path.expanduser(report.strip())!r}")
    elif isinstance(report, str):
        report_text, report_is_path = report, False
    else:
        raise TypeError(f"report: a path or the report's text, not {type(report).__name__}")
    if isinstance(corpus, Corpus):
        corpus = corpus._source
    path = _path_of(corpus)
    transcripts = path if path is not None else _document(corpus, "transcripts")
    if sources is not None:
        sources = _os.fspath(sources)
    out = _native.check_report_json(
        report_text, report_is_path, transcripts, path is not None, sources, _dumps(config, "config")
    )
    return QuoteChecks(_json.loads(out))


def score_answer(answer: str, type: str, metric: Any) -> Optional[float]:
    """One answer's score in [0, 1] under a question type (Yes/No, Yes/No
    with Rationale, ListOne, ListMany, PickOne, PickMany) and its metric (a
    JSON value, or "yes"/"no"), or None when it cannot be scored (the CLI's
    `corpus-eval score`)."""
    return _native.score_answer(answer, type, _dumps(metric, "metric"))


def hotpot(predictions: Any, gold: Any, **config: Unpack[HotpotConfig]) -> "Result":
    """HotpotQA answer, citation and supporting-fact metrics (the CLI's
    `corpus-eval hotpot PREDICTIONS GOLD`): simple-format arrays, or
    official {"answer", "sp"} predictions with the HotpotQA gold.

    config: format ("auto" | "simple" | "official"), name (the system's
    name in metrics.json; default "predictions", where the CLI uses the
    predictions file's name), shard.

    Returns {"metrics": <metrics.json>, "per_example": <per_example.json>},
    with `.items`, items.csv (one row per example) as a DataFrame.
    """
    out = _native.hotpot_json(_dumps(predictions, "predictions"), _dumps(gold, "gold"), _dumps(config, "config"))
    return Result(_json.loads(out))


def text_eval(rows: Sequence[Dict[str, Any]], **config: Unpack[TextEvalConfig]) -> "Result":
    """The text evaluator (the CLI's `corpus-eval text-eval INPUT`):
    accuracy, relevance, safety and quality per question category.

    rows: a list of {"id", "category" (Factual, Explanatory, Instruction,
        Creative, Sensitive), "question", "reference", "response"}.
    config: profile ("reference" | "standard"), no_embeddings (TF-IDF
        cosines instead of sentence embeddings), require_model, model_dir,
        engine, weights, thresholds, patterns (files), wordnet, shard.

    Returns {"results": <results.json>, "summary": <summary.json>}, with
    `.items`, items.csv (one row per row scored) as a DataFrame.
    """
    out = _native.text_eval_json(_dumps(list(rows), "rows"), _dumps(config, "config"))
    return Result(_json.loads(out))


def grounding(rows: Sequence[Dict[str, Any]], **config: Unpack[GroundingConfig]) -> "Result":
    """Grounding metrics of RAG responses (the CLI's `corpus-eval grounding
    INPUT`): relevance, completeness and hallucination of each response
    against its retrieved context.

    rows: a list of {"id", "query", "response", "context" (a text or a list
        of texts)}.
    config: wordnet, shard.

    Returns {"results": <grounding.json>, "summary": <summary.json>}, with
    `.items`, items.csv (one row per response) as a DataFrame.
    """
    out = _native.grounding_json(_dumps(list(rows), "rows"), _dumps(config, "config"))
    return Result(_json.loads(out))


def lexical(items: Sequence[Dict[str, Any]], **config: Unpack[LexicalConfig]) -> "Result":
    """ROUGE, BLEU, chrF and SQuAD EM/F1 equal to rouge-score, sacrebleu and
    the official SQuAD scripts (the CLI's `corpus-eval lexical INPUT`).

    items: a list of {"prediction", "reference" or "references", "id"?}.
    config: metrics (list: rouge1, rouge2, rougeL, rougeLsum, bleu, chrf,
        squad; default all), stemmer, split_summaries, bleu_tokenize,
        bleu_smooth, bleu_smooth_value, squad_version, prediction_field,
        reference_field, resamples and seed (bootstrap intervals).

    Returns {"summary": <what --json prints>, "items": <what --per-item
    writes, one dict per item>}, with `.items`, items.csv as a DataFrame.
    """
    out = _native.lexical_json(_dumps(list(items), "items"), _dumps(config, "config"))
    return Result(_json.loads(out))


def agreement(table: Sequence[Dict[str, Any]], **config: Unpack[AgreementConfig]) -> "Result":
    """Agreement between raters (the CLI's `corpus-eval agreement FILE
    --id COL`): Cohen's kappa, Fleiss' kappa, Krippendorff's alpha, Gwet's
    AC1/AC2 and more, with bootstrap intervals.

    table: a list of rows, {id column: ..., rater: rating, ...} (None is a
        missing rating).
    config: id (the id column; required), raters (list, default every other
        column), level ("nominal" | "ordinal" | "interval" | "ratio"),
        resamples, seed.

    Returns agreement.json: every coefficient with its interval, counts,
    the confusion matrix (two raters), the disagreements and the signature;
    `.items` is items.csv (one row per item, a column per rater) as a
    DataFrame.
    """
    out = _native.agreement_json(_dumps(list(table), "table"), _dumps(config, "config"))
    return Result(_json.loads(out))


def similarity(a: str, b: str) -> float:
    """Cosine similarity of two texts' all-MiniLM-L6-v2 embeddings (the CLI's
    `corpus-eval similarity`); the model is found as the CLI finds it
    (CORPUS_EVAL_MODEL_DIR, models/all-MiniLM-L6-v2, the Hugging Face
    cache) and loaded once per process."""
    return _native.similarity(a, b)


def embed(texts: Sequence[str]) -> Any:
    """The texts' sentence embeddings as a numpy float32 array of shape
    (len(texts), 384), L2-normalized (the CLI's `corpus-eval embed`)."""
    import numpy as np

    rows, dims, data = _native.embed_bytes([str(t) for t in texts])
    return np.frombuffer(data, dtype="<f4").reshape(rows, dims).copy()


class SpanAgreement(dict):
    """What `span_agreement` returns: agreement.json as a dict (the coders,
    uα, |uα and cuα over every code, each code's figures), with the codes
    as a pandas DataFrame: `.codes` (codes.csv: one row per code)."""

    def __init__(self, out: Dict[str, Any]) -> None:
        codes_csv = out.pop("codes_csv", "")
        super().__init__(out)
        self._codes_csv = codes_csv

    @property
    def codes(self) -> Any:
        """codes.csv as a DataFrame: code, unitized_alpha,
        coding_unitized_alpha, coverage, precision, recall, f1, units and
        characters of each coder and of both."""
        return _frame(self._codes_csv)


def span_agreement(files: Sequence[Any], **config: Unpack[AgreementConfig]) -> SpanAgreement:
    """Two coders' codings compared as spans (the CLI's `corpus-eval
    agreement --spans FILE...`): one REFI-QDA project (two of its users),
    two projects (a user of each, on the sources both hold), or an evaluate
    or check-report run folder and a project (a user's codings of one code
    against the run's located quotes).

    config: coders (list: user names or GUIDs), codes (list of code names),
        min_overlap (matched units, default 0.5), resamples and seed (the
        bootstrap over sources), out (a folder: a run folder is written
        there, as the CLI's --out writes it).

    Returns agreement.json as a dict, with `.codes` as a DataFrame.
    """
    out = _native.span_agreement_json(
        [_os.fspath(f) for f in files], _dumps({**config, "spans": True}, "config")
    )
    return SpanAgreement(_json.loads(out))


def export_qdpx(run: Any, out: Any, inputs: Any = None) -> Dict[str, Any]:
    """An evaluate or check-report run folder's located quotes written as a
    REFI-QDA project (the CLI's `corpus-eval export-qdpx RUN OUT.qdpx`; a
    run on one `.qdpx` gives that project with the tool's codings added);
    returns what it wrote: `out`, `sources`, `selections`, `unlocated`."""
    written = _native.export_qdpx_json(
        _os.fspath(run), _os.fspath(out), None if inputs is None else _os.fspath(inputs)
    )
    result: Dict[str, Any] = _json.loads(written)
    return result
