"""The keyword arguments of the package's functions: one TypedDict per job
configuration, its `--config` keys typed by their settings. Rendered from
the Rust configurations by the test suite (tests/python_types.rs; set
CORPUS_EVAL_BLESS=1 to write it anew): do not edit by hand."""

from typing import Any, Dict, List, Literal, TypedDict


class EvaluateConfig(TypedDict, total=False):
    """The settings of `corpus-eval evaluate` (its `--config` keys)."""

    version: Any
    out: str
    match: Literal["exact", "normalized", "fuzzy"]
    fuzzy_threshold: float
    fuzzy_search: Literal["lossless", "fast"]
    no_plots: bool
    no_html: bool
    wordnet: str
    seed: int
    speaker_pattern: str
    interviewer_labels: List[str]
    fillers: List[str]
    meaning_words: str
    time_tolerance: float
    paraphrase: bool
    paraphrase_threshold: float
    model_dir: str
    speaker_aliases: str
    speaker_map: str
    allow_external_sources: bool
    shard: str
    fail_under: Dict[str, float]


class CheckReportConfig(TypedDict, total=False):
    """The settings of `corpus-eval check-report` (its `--config` keys)."""

    version: Any
    out: str
    min_words: int
    match: Literal["exact", "normalized", "fuzzy"]
    fuzzy_threshold: float
    fuzzy_search: Literal["lossless", "fast"]
    no_html: bool
    speaker_pattern: str
    interviewer_labels: List[str]
    fillers: List[str]
    meaning_words: str
    time_tolerance: float
    paraphrase: bool
    paraphrase_threshold: float
    model_dir: str
    speaker_aliases: str
    speaker_map: str
    allow_external_sources: bool
    fail_on: List[str]


class HotpotConfig(TypedDict, total=False):
    """The settings of `corpus-eval hotpot` (its `--config` keys)."""

    version: Any
    out: str
    format: Literal["auto", "simple", "official"]
    name: str
    no_plots: bool
    shard: str
    fail_under: Dict[str, float]


class TextEvalConfig(TypedDict, total=False):
    """The settings of `corpus-eval text-eval` (its `--config` keys)."""

    version: Any
    out: str
    weights: str
    thresholds: str
    patterns: str
    profile: Literal["reference", "standard"]
    no_embeddings: bool
    require_model: bool
    model_dir: str
    engine: Literal["fused", "candle-bert"]
    wordnet: str
    shard: str
    fail_under: Dict[str, float]


class GroundingConfig(TypedDict, total=False):
    """The settings of `corpus-eval grounding` (its `--config` keys)."""

    version: Any
    out: str
    wordnet: str
    shard: str
    fail_under: Dict[str, float]


class LexicalConfig(TypedDict, total=False):
    """The settings of `corpus-eval lexical` (its `--config` keys)."""

    version: Any
    metrics: List[str]
    stemmer: bool
    split_summaries: bool
    bleu_tokenize: Literal["13a", "none", "intl", "char"]
    bleu_smooth: Literal["exp", "floor", "add-k", "none"]
    bleu_smooth_value: float
    squad_version: Literal["1.1", "2.0"]
    prediction_field: str
    reference_field: str
    resamples: int
    seed: int
    per_item: str
    out: str
    fail_under: Dict[str, float]


class AgreementConfig(TypedDict, total=False):
    """The settings of `corpus-eval agreement` (its `--config` keys)."""

    version: Any
    id: str
    raters: List[str]
    level: Literal["nominal", "ordinal", "interval", "ratio"]
    resamples: int
    seed: int
    out: str
    no_plots: bool
    spans: bool
    coders: List[str]
    codes: List[str]
    min_overlap: float
    allow_external_sources: bool
    fail_under: Dict[str, float]
