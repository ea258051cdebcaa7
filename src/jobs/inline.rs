//! The jobs over inputs held in memory (JSON text instead of files), for
//! callers that are not the command line (the Python package). Each takes
//! the job's `Config` and returns what the command writes into its run
//! folder for the same input. Inputs are named in error messages by the
//! labels given (`questions`, `rows`, ...) where the command names a file.
//!
//! ```
//! use corpus_eval::jobs::{evaluate, inline};
//! use corpus_eval::lexicon::Lexicon;
//! let lex = Lexicon::embedded().unwrap();
//! let q = r#"[{"question": {"text": "Crop?", "type": "ListOne", "metric": {"leek": 1}},
//!             "answers": [{"answer": "Leeks.", "source": "a",
//!                          "verbatims": [{"quote": "we grow leeks", "source": "a"}]}]}]"#;
//! let t = r#"[{"page_content": "Ann: we grow leeks.", "metadata": {"FILE": "a"}}]"#;
//! let (results, summary) = inline::evaluate(&evaluate::Config::default(), q, t, &lex).unwrap();
//! assert_eq!(results[0]["answers"][0]["score"], 1.0);
//! assert_eq!(summary.existence.mean, 1.0);
//! ```

use super::{JobConfig, JobError};
use crate::corpus::{parse_questions, parse_transcripts, Quote, TranscriptSet};
use crate::evaluate::Summary;
use crate::lexicon::Lexicon;
use serde_json::{Map, Value};
use std::path::Path;

/// `evaluate`: results.json (the questions with their results) and
/// summary.json. The shard, when the configuration names one, is applied.
pub fn evaluate(
    config: &super::evaluate::Config,
    questions: &str,
    transcripts: &str,
    lexicon: &Lexicon,
) -> Result<(Value, Summary), JobError> {
    config.validate()?;
    let mut q = parse_questions(Path::new("questions"), questions)?;
    if let Some(shard) = config.shard {
        super::evaluate::keep_shard(&mut q, shard)?;
    }
    let t = parse_transcripts(Path::new("transcripts"), transcripts)?;
    let out = super::evaluate::run(config, &q, &t, lexicon)?;
    Ok((out.results, out.summary))
}

/// The transcripts of a call: corpus-eval's JSON chunks as text, or the
/// path of a folder, a transcript file of any format or a `.qdpx` project
/// (see `crate::corpus::formats`).
#[derive(Debug, Clone, Copy)]
pub enum TranscriptsInput<'a> {
    /// JSON chunks, as text.
    Json(&'a str),
    /// A folder, file or project.
    Path(&'a Path),
}

/// The transcripts of `input`, read with the configuration's speaker map.
fn transcripts_of(
    resolved: &super::evaluate::Resolved,
    input: TranscriptsInput<'_>,
) -> Result<TranscriptSet, JobError> {
    match input {
        TranscriptsInput::Json(text) => Ok(parse_transcripts(Path::new("transcripts"), text)?),
        TranscriptsInput::Path(path) => {
            Ok(super::evaluate::load_transcripts(path, resolved, false)?.0)
        }
    }
}

/// The report of [`check_report`]: its text, or the path of a Markdown,
/// text or `.docx` file.
#[derive(Debug, Clone, Copy)]
pub enum ReportInput<'a> {
    /// The report's text.
    Text(&'a str),
    /// A report file.
    Path(&'a Path),
}

/// `check-report`: the records of results.json's `quotes` (each quote of
/// the report, found, attributed and checked), with a source map file when
/// given.
pub fn check_report(
    config: &super::check_report::Config,
    report: ReportInput<'_>,
    transcripts: TranscriptsInput<'_>,
    sources: Option<&Path>,
) -> Result<Vec<Value>, JobError> {
    let matching = config.resolve()?;
    let text = match report {
        ReportInput::Text(t) => super::check_report::Report::markdown(t),
        ReportInput::Path(p) => super::check_report::read_report(p)?,
    };
    let set = transcripts_of(&matching, transcripts)?;
    let (map, digest) = match sources {
        Some(path) => {
            let (map, info) = super::check_report::read_sources(path, &set)?;
            (map, Some(info.sha256))
        }
        None => Default::default(),
    };
    let out = super::check_report::run_resolved(
        config,
        &matching,
        &text,
        &set,
        (&map, digest.as_deref()),
        None,
    )?;
    Ok(out
        .quotes
        .iter()
        .map(crate::views::check_report_files::quote_record)
        .collect())
}

/// What [`evaluate_tables`] returns: results.json, summary.json and the
/// run folder's per-quote and per-item tables.
#[derive(Debug, Clone)]
pub struct EvaluateTables {
    /// results.json.
    pub results: Value,
    /// summary.json.
    pub summary: Summary,
    /// quotes.csv.
    pub quotes_csv: String,
    /// items.csv.
    pub items_csv: String,
}

/// [`evaluate`] over transcripts given as JSON text or a path, with the
/// run folder's `quotes.csv` and `items.csv` (for DataFrames).
pub fn evaluate_tables(
    config: &super::evaluate::Config,
    questions: &str,
    transcripts: TranscriptsInput<'_>,
    lexicon: &Lexicon,
) -> Result<EvaluateTables, JobError> {
    let resolved = config.resolve()?;
    let mut q = parse_questions(Path::new("questions"), questions)?;
    if let Some(shard) = config.shard {
        super::evaluate::keep_shard(&mut q, shard)?;
    }
    let t = transcripts_of(&resolved, transcripts)?;
    let out = super::evaluate::run_resolved(&resolved, &q, &t, lexicon)?;
    Ok(EvaluateTables {
        quotes_csv: crate::views::evaluate_tables::quotes_csv(&q, &out.evaluation),
        items_csv: crate::views::evaluate_tables::items_csv(&out.evaluation),
        results: out.results,
        summary: out.summary,
    })
}

/// A quote to check on its own: the quote, the FILE it names, the speaker
/// it claims and the answer it belongs to (quotes of one answer share the
/// repeated-quote rule), each optional but the quote.
#[derive(Debug, Clone, Default)]
pub struct QuoteInput {
    /// The quoted text.
    pub quote: String,
    /// The transcript it names.
    pub source: Option<String>,
    /// The speaker it claims.
    pub speaker: Option<String>,
    /// The answer it belongs to.
    pub answer: Option<String>,
    /// Where it says it stands (a time or lines).
    pub place: Option<crate::text::anchors::CitedPlace>,
}

/// Quotes checked against transcripts as `evaluate` checks them: per
/// quote, the fields it gets in results.json (`verdict`, `found`,
/// `similarity`, `span`, `span_speaker`, `attribution`, `differences`,
/// and `other_source` or `pieces` when it has them).
pub fn verify_quotes(
    config: &super::evaluate::Config,
    quotes: &[QuoteInput],
    transcripts: &TranscriptSet,
) -> Result<Vec<Map<String, Value>>, JobError> {
    let resolved = config.resolve()?;
    let (typed, groups) = typed_quotes(quotes);
    let mut results = crate::evaluate::check_quotes(&typed, &groups, transcripts, &resolved.eval)?;
    paraphrases(config, &resolved, quotes, transcripts, &mut results)?;
    Ok(results
        .iter()
        .map(crate::views::results::quote_fields)
        .collect())
}

/// The paraphrase tier over checked quotes, when the configuration asks.
fn paraphrases(
    config: &super::evaluate::Config,
    resolved: &super::evaluate::Resolved,
    quotes: &[QuoteInput],
    transcripts: &TranscriptSet,
    results: &mut [crate::evaluate::QuoteResult],
) -> Result<(), JobError> {
    let Some(p) = super::evaluate::paraphraser(config)? else {
        return Ok(());
    };
    let mut pairs: Vec<(&str, &mut crate::evaluate::QuoteResult)> = quotes
        .iter()
        .map(|q| q.quote.as_str())
        .zip(results.iter_mut())
        .collect();
    p.apply(&mut pairs, transcripts, &resolved.eval.speakers)?;
    Ok(())
}

/// The quotes as the checks take them, with their answers (groups).
fn typed_quotes(quotes: &[QuoteInput]) -> (Vec<Quote>, Vec<Option<&str>>) {
    let typed = quotes
        .iter()
        .map(|q| Quote {
            quote: q.quote.clone(),
            source: q.source.clone(),
            speaker: q.speaker.clone(),
            place: q.place,
        })
        .collect();
    (typed, quotes.iter().map(|q| q.answer.as_deref()).collect())
}

/// A corpus given as JSON text, parsed once and prepared for many calls
/// of [`verify_quotes_prepared`] (its transcripts split into turns by the
/// configuration's speaker settings).
pub fn prepare_transcripts(
    config: &super::evaluate::Config,
    transcripts: &str,
) -> Result<crate::evaluate::PreparedTranscripts, JobError> {
    prepare_transcripts_input(config, TranscriptsInput::Json(transcripts))
}

/// [`prepare_transcripts`] over JSON text or a path.
pub fn prepare_transcripts_input(
    config: &super::evaluate::Config,
    transcripts: TranscriptsInput<'_>,
) -> Result<crate::evaluate::PreparedTranscripts, JobError> {
    let resolved = config.resolve()?;
    let t = transcripts_of(&resolved, transcripts)?;
    let eval = resolved.eval;
    Ok(crate::evaluate::PreparedTranscripts::new(
        t,
        eval.speakers,
        eval.normalize,
        eval.fuzzy_search,
    )
    .with_meaning_words(eval.meaning))
}

/// [`verify_quotes`] against a prepared corpus (the same fields).
pub fn verify_quotes_prepared(
    config: &super::evaluate::Config,
    quotes: &[QuoteInput],
    prepared: &crate::evaluate::PreparedTranscripts,
) -> Result<Vec<Map<String, Value>>, JobError> {
    let resolved = config.resolve()?;
    let (typed, groups) = typed_quotes(quotes);
    let mut results =
        crate::evaluate::check_quotes_prepared(&typed, &groups, prepared, &resolved.eval)?;
    paraphrases(
        config,
        &resolved,
        quotes,
        prepared.transcripts(),
        &mut results,
    )?;
    Ok(results
        .iter()
        .map(crate::views::results::quote_fields)
        .collect())
}

/// `text-eval` over rows given as JSON text: the results (results.json)
/// and summary.json. The semantic columns use the embedding model when it
/// is found (as the command finds it), else the TF-IDF fallback, as the
/// command does.
pub fn text_eval(
    config: &super::text_eval::Config,
    rows: &str,
    lexicon: &Lexicon,
) -> Result<super::text_eval::Output, JobError> {
    config.validate()?;
    let rows = crate::texteval::input::parse_text_rows(Path::new("rows"), rows)?;
    if rows.is_empty() {
        return Err(JobError::Input("rows: no rows".into()));
    }
    let (weights, thresholds, patterns) = super::text_eval::read_files(config)?;
    let keep: Option<Vec<bool>> = config
        .shard
        .map(|shard| rows.iter().map(|r| shard.contains(&r.id)).collect());
    let sem = super::text_eval::semantics_kept(config, &rows, keep.as_deref())?;
    let inputs = super::text_eval::Inputs {
        lexicon,
        weights,
        thresholds,
        patterns,
    };
    super::text_eval::run_kept(config, &rows, keep.as_deref(), &inputs, &sem)
}

/// `grounding` over rows given as JSON text: the results (grounding.json)
/// and summary.json.
pub fn grounding(
    config: &super::grounding::Config,
    rows: &str,
    lexicon: &Lexicon,
) -> Result<super::grounding::Output, JobError> {
    config.validate()?;
    let mut rows = crate::grounding::input::parse_grounding_rows(Path::new("rows"), rows)?;
    if let Some(shard) = config.shard {
        rows.retain(|r| shard.contains(&r.id));
    }
    super::grounding::run(config, &rows, lexicon)
}

/// `lexical` over items given as JSON text: the output (its summary is
/// what `--json` prints, its items what `--per-item` writes).
pub fn lexical(
    config: &super::lexical::Config,
    items: &str,
) -> Result<super::lexical::Output, JobError> {
    let items = super::lexical::parse_items(config, Path::new("items"), items)?;
    super::lexical::score(config, &items)
}

/// `agreement` over one ratings table given as JSON text (an array of
/// row objects or JSON Lines): every coefficient (agreement.json).
pub fn agreement(
    config: &super::agreement::Config,
    table: &str,
) -> Result<crate::agreement::coefficients::Agreement, JobError> {
    Ok(agreement_tables(config, table)?.0)
}

/// [`agreement`] with the run folder's items.csv (one row per item, a
/// column per rater).
pub fn agreement_tables(
    config: &super::agreement::Config,
    table: &str,
) -> Result<(crate::agreement::coefficients::Agreement, String), JobError> {
    config.validate()?;
    let spec = crate::agreement::table::Spec {
        files: &[],
        id: &config.id,
        raters: config.raters.as_deref(),
        level: config.level,
    };
    let ratings = crate::agreement::table::load_json_text(Path::new("table"), table, &spec)?;
    Ok((
        crate::agreement::coefficients::agreement(&ratings, &config.settings()),
        super::agreement::items_csv(&ratings),
    ))
}

/// The configuration of a job from JSON text (an object of its fields),
/// checked as `--config` files are: unknown keys, wrong types, the format
/// version and every range.
pub fn config<C: JobConfig>(json: &str) -> Result<C, super::ConfigError> {
    let value: Value = serde_json::from_str(json).map_err(|e| super::ConfigError::File {
        path: "config".into(),
        message: e.to_string(),
    })?;
    super::config_of_value::<C>(Path::new("config"), value)
}
