//! `corpus-eval check-report` as a typed job: the quotes of a written
//! report (Markdown, plain text or `.docx`) found, attributed and checked
//! against transcripts ([`crate::check_report`]); a run folder with
//! `results.json`, `quotes.csv`, `summary.json` and `report.html`.

use super::{check_unit, ConfigError, JobConfig, JobError};
use crate::check_report::cite::SourceMap;
use crate::check_report::{self as checking, CheckedQuote, Summary};
use crate::citations::attribution::Attribution;
use crate::citations::MatchLevel;
use crate::corpus::TranscriptSet;
use crate::report::manifest::{InputFile, Manifest};
use crate::views::check_report_files::{items_csv, quotes_csv, results_json};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The settings of `corpus-eval check-report` (the defaults are the
/// command line's; matching and speaker settings as `evaluate`'s). Each
/// field is a key of a `--config` file and a flag.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    #[shared]
    pub out: PathBuf,
    /// What the report's labels (`P3`, `Gwen`) stand for: a CSV file of
    /// `label,source,speaker` rows (`speaker` optional).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "MAP.csv")]
    pub sources: Option<PathBuf>,
    /// Quotes with fewer words are not checked (scare quotes).
    #[setting(default = DEFAULT_MIN_WORDS, value_name = "N")]
    pub min_words: usize,
    #[shared]
    pub match_level: MatchLevel,
    #[shared]
    pub fuzzy_threshold: f64,
    #[shared]
    pub fuzzy_search: Option<crate::citations::FuzzySearch>,
    /// Do not write report.html.
    pub no_html: bool,
    #[shared]
    pub speaker_pattern: Option<String>,
    #[shared]
    pub interviewer_labels: Option<Vec<String>>,
    #[shared]
    pub fillers: Option<Vec<String>>,
    #[shared]
    pub meaning_words: Option<PathBuf>,
    #[shared]
    pub time_tolerance: f64,
    #[shared]
    pub paraphrase: bool,
    #[shared]
    pub paraphrase_threshold: f64,
    #[shared]
    pub model_dir: Option<PathBuf>,
    #[shared]
    pub speaker_aliases: Option<PathBuf>,
    #[shared]
    pub speaker_map: Option<String>,
    #[shared]
    pub allow_external_sources: bool,
    /// Quality gate: exit 3, once the run folder is written, when a quote
    /// falls in one of these attribution classes (comma-separated:
    /// cross_turn, uncertain_speaker, interviewer, wrong_speaker,
    /// wrong_location, ok, other_source, altered, stitched, paraphrase,
    /// fabricated), or, with `meaning`,
    /// when its match changes what was said.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[setting(check = "class_name", unique, value_name = "CLASS,...")]
    pub fail_on: Vec<FailOn>,
}

/// What `--fail-on` names: an attribution class, or `meaning` (a quote
/// whose match changes what was said).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FailOn {
    /// Quotes of this attribution class.
    Class(Attribution),
    /// Quotes with a change of meaning.
    Meaning(MeaningGate),
}

/// The name `meaning` of [`FailOn::Meaning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MeaningGate {
    /// `meaning`.
    #[serde(rename = "meaning")]
    Meaning,
}

impl FailOn {
    /// The name in a configuration and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Class(a) => a.as_str(),
            FailOn::Meaning(_) => "meaning",
        }
    }

    /// The classes a quote falls in for the gate.
    fn of(q: &CheckedQuote) -> impl Iterator<Item = FailOn> {
        let class = q.result.attributed.attribution.map(FailOn::Class);
        let meaning = (!q.result.check.meaning_changes().is_empty())
            .then_some(FailOn::Meaning(MeaningGate::Meaning));
        class.into_iter().chain(meaning)
    }
}

/// The default `--min-words`.
pub const DEFAULT_MIN_WORDS: usize = 4;
/// The largest `--min-words`.
pub const MAX_MIN_WORDS: usize = 1000;

impl JobConfig for Config {
    const COMMAND: &'static str = "check-report";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        self.resolve().map(|_| ())
    }

    fn resolved_for_print(&self) -> Self {
        let mut c = self.clone();
        crate::citations::turns::fill_speaker_defaults(
            &mut c.speaker_pattern,
            &mut c.interviewer_labels,
        );
        c.fillers
            .get_or_insert_with(super::evaluate::default_fillers);
        c.fuzzy_search.get_or_insert_with(Default::default);
        c
    }

    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        super::unset_notes!(self; sources => "no map: labels resolve to transcript ids and speakers", speaker_aliases => "no aliases", speaker_map => "diarized labels as they are", meaning_words => "the English lists", model_dir => "found as the docs say")
    }
}

impl Config {
    /// Checks the configuration and resolves its quote matching once
    /// ([`super::evaluate::Config::resolve`]: the speaker map and the
    /// aliases file read here, not again).
    pub fn resolve(&self) -> Result<super::evaluate::Resolved, ConfigError> {
        if !(1..=MAX_MIN_WORDS).contains(&self.min_words) {
            return Err(ConfigError::Invalid {
                field: "--min-words".into(),
                message: format!("{} is out of range (1..={MAX_MIN_WORDS})", self.min_words),
            });
        }
        check_unit("--fuzzy-threshold", self.fuzzy_threshold)?;
        check_unit("--paraphrase-threshold", self.paraphrase_threshold)?;
        self.matching().resolve()
    }

    /// The matching and speaker settings as an `evaluate` configuration
    /// (the same engine checks the quotes).
    pub fn matching(&self) -> super::evaluate::Config {
        super::evaluate::Config {
            match_level: self.match_level,
            fuzzy_threshold: self.fuzzy_threshold,
            fuzzy_search: self.fuzzy_search,
            speaker_pattern: self.speaker_pattern.clone(),
            interviewer_labels: self.interviewer_labels.clone(),
            fillers: self.fillers.clone(),
            meaning_words: self.meaning_words.clone(),
            time_tolerance: self.time_tolerance,
            speaker_aliases: self.speaker_aliases.clone(),
            speaker_map: self.speaker_map.clone(),
            allow_external_sources: self.allow_external_sources,
            ..Default::default()
        }
    }
}

/// What the job produces.
#[derive(Debug, Clone)]
pub struct Output {
    /// Every quote, checked, in report order.
    pub quotes: Vec<CheckedQuote>,
    /// The counts and the signature.
    pub summary: Summary,
    /// The report's text as read (a `.docx` report's paragraphs, one per
    /// line).
    pub text: String,
}

/// A report as read: its text and how its quotes are found.
#[derive(Debug, Clone)]
pub struct Report {
    /// The text (a `.docx` file's paragraphs one per line, a soft line
    /// break inside a paragraph as a space).
    pub text: String,
    /// Markdown rules (`.md`, `.markdown`, or text given directly).
    pub markdown: bool,
    /// One paragraph per line (`.docx`).
    pub line_paragraphs: bool,
    /// Lines (0-based) that are block quotes as a whole: a `.docx`
    /// report's paragraphs in Word's `Quote` or `Intense Quote` style.
    pub quote_lines: Vec<usize>,
}

impl Report {
    /// Report text given directly (read as Markdown).
    pub fn markdown(text: &str) -> Report {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text).to_string();
        Report {
            // A lone `\r` ends a line too (lines and columns count it).
            text: crate::text::lone_cr_to_lf(text),
            markdown: true,
            line_paragraphs: false,
            quote_lines: Vec::new(),
        }
    }
}

/// Reads a report: a `.docx` file's paragraphs, a Markdown file (`.md`,
/// `.markdown`), any other file as plain UTF-8 text (a byte-order mark
/// dropped).
pub fn read_report(path: &Path) -> Result<Report, JobError> {
    Ok(read_report_recorded(path)?.0)
}

/// [`read_report`], with the file's manifest record (digest and size of
/// the bytes read; a `.docx` archive's part is then read from the file).
pub fn read_report_recorded(path: &Path) -> Result<(Report, InputFile), JobError> {
    let bytes = super::read_input(path)?;
    let info = InputFile::new(path, &bytes);
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if ext.as_deref() == Some("docx") {
        let paragraphs = crate::corpus::formats::docx::paragraphs_quoted(path)?;
        let report = Report {
            text: paragraphs
                .iter()
                .map(|(p, _)| p.replace(['\n', '\r'], " "))
                .collect::<Vec<_>>()
                .join("\n"),
            markdown: false,
            line_paragraphs: true,
            // Word's quotation styles are block quotes, as `>` lines are.
            quote_lines: paragraphs
                .iter()
                .enumerate()
                .filter(|(_, (_, quoted))| *quoted)
                .map(|(k, _)| k)
                .collect(),
        };
        return Ok((report, info));
    }
    let text = super::utf8(path, bytes)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_string();
    let report = Report {
        // A lone `\r` ends a line too (lines and columns count it).
        text: crate::text::lone_cr_to_lf(text),
        markdown: matches!(ext.as_deref(), Some("md" | "markdown")),
        line_paragraphs: false,
        quote_lines: Vec::new(),
    };
    Ok((report, info))
}

/// Reads a `--sources` map (checked against the transcripts) and its
/// manifest record, from one read of the file.
pub fn read_sources(
    path: &Path,
    transcripts: &TranscriptSet,
) -> Result<(SourceMap, InputFile), JobError> {
    let bytes = super::read_input(path)?;
    let info = InputFile::new(path, &bytes);
    let text = super::utf8(path, bytes)?;
    Ok((SourceMap::parse(path, &text, transcripts)?, info))
}

/// Checks a report against parsed transcripts.
pub fn run(
    config: &Config,
    report: &Report,
    transcripts: &TranscriptSet,
    map: &SourceMap,
    map_digest: Option<&str>,
) -> Result<Output, JobError> {
    run_resolved(
        config,
        &config.resolve()?,
        report,
        transcripts,
        (map, map_digest),
        None,
    )
}

/// The paraphrase tier of a configuration with `paraphrase` on.
fn paraphraser_of(config: &Config) -> Result<Option<super::paraphrase::Paraphraser>, JobError> {
    super::paraphrase::Paraphraser::load(
        config.paraphrase,
        config.model_dir.as_deref(),
        config.paraphrase_threshold,
    )
}

/// [`run`] with the quote matching already resolved (and the paraphrase
/// model loaded, when given; else loaded here when the configuration asks).
pub(crate) fn run_resolved(
    config: &Config,
    matching: &super::evaluate::Resolved,
    report: &Report,
    transcripts: &TranscriptSet,
    (map, map_digest): (&SourceMap, Option<&str>),
    paraphraser: Option<&super::paraphrase::Paraphraser>,
) -> Result<Output, JobError> {
    let eval = &matching.eval;
    let loaded;
    let paraphraser = match paraphraser {
        Some(p) => Some(p),
        None => {
            loaded = paraphraser_of(config)?;
            loaded.as_ref()
        }
    };
    let options = crate::check_report::quotes::Options {
        min_words: config.min_words,
        markdown: report.markdown,
        line_paragraphs: report.line_paragraphs,
        quote_lines: report.quote_lines.clone(),
    };
    let mut quotes = checking::check(&report.text, transcripts, map, eval, &options)?;
    let mut signature =
        checking::signature(eval, config.min_words, map_digest.map(|d| (map.len(), d)));
    if let Some(p) = &paraphraser {
        let mut pairs: Vec<(&str, &mut crate::evaluate::QuoteResult)> = quotes
            .iter_mut()
            .map(|q| (q.text.as_str(), &mut q.result))
            .collect();
        p.apply(&mut pairs, transcripts, &eval.speakers)?;
        signature = format!("{signature}|{}", p.signature());
    }
    let mut summary = checking::summarize(&quotes, signature);
    // What the transcripts' readers doubt (a label they did not accept).
    summary.warnings.extend(transcripts.doubts.iter().cloned());
    Ok(Output {
        quotes,
        summary,
        text: report.text.clone(),
    })
}

/// Runs the job on its input files and writes its run folder; returns the
/// folder and the output (`rerun` calls this too).
pub fn execute(
    config: &Config,
    report_path: &Path,
    transcripts_path: &Path,
) -> Result<(PathBuf, Output), JobError> {
    execute_resolved(config, &config.resolve()?, report_path, transcripts_path)
}

/// [`execute`] with the quote matching already resolved
/// ([`Config::resolve`]): the files it names are not read again.
pub fn execute_resolved(
    config: &Config,
    matching: &super::evaluate::Resolved,
    report_path: &Path,
    transcripts_path: &Path,
) -> Result<(PathBuf, Output), JobError> {
    let started = SystemTime::now();
    // The model first: a missing one is exit 2 before any input is read.
    let paraphraser = paraphraser_of(config)?;
    let (text, report_info) = read_report_recorded(report_path)?;
    let (transcripts, t_info) =
        super::evaluate::load_transcripts(transcripts_path, matching, false)?;
    let mut inputs = BTreeMap::from([
        ("report".to_string(), report_info),
        ("transcripts".to_string(), t_info),
    ]);
    let map = match &config.sources {
        Some(path) => {
            let (map, info) = read_sources(path, &transcripts)?;
            let digest = info.sha256.clone();
            inputs.insert("sources".to_string(), info);
            Some((map, digest))
        }
        None => None,
    };
    let empty = SourceMap::default();
    let (map_ref, digest) = match &map {
        Some((m, d)) => (m, Some(d.as_str())),
        None => (&empty, None),
    };
    let output = run_resolved(
        config,
        matching,
        &text,
        &transcripts,
        (map_ref, digest),
        paraphraser.as_ref(),
    )?;
    for w in &output.summary.warnings {
        errln!("warning: {w}");
    }
    if let Some(note) = super::evaluate::interviewer_note(&config.interviewer_labels) {
        errln!("{note}");
    }
    let manifest = Manifest::new(
        "check-report",
        inputs,
        json!({
            "match": config.match_level,
            "fuzzy_threshold": config.fuzzy_threshold,
            "min_words": config.min_words,
            "quote_normalizer": matching.eval.normalize.signature(),
            "html": !config.no_html,
            "out": config.out.display().to_string(),
            "span_unit": "unicode scalar values (chars) into the transcript joined with \\n",
            "line_column_unit": "1-based lines and characters of the report (a .docx report: one line per paragraph)",
        }),
        output.summary.signature.clone(),
        started,
    )
    .with_config(super::to_value(config));
    let mut writer = crate::report::run::RunWriter::create(&config.out, started, manifest)?;
    writer.write_json(
        "results.json",
        &results_json(&output.quotes, &output.summary.signature),
    )?;
    writer.write("quotes.csv", &quotes_csv(&output.quotes))?;
    writer.write_json("summary.json", &output.summary)?;
    writer.write("items.csv", &items_csv(&output.quotes))?;
    if !config.no_html {
        let page = crate::views::check_report::render(
            &output.text,
            &output.quotes,
            &output.summary,
            &transcripts,
            &matching.eval.speakers,
        )
        .map_err(|e| JobError::Input(e.to_string()))?;
        writer.write("report.html", page.as_bytes())?;
    }
    Ok((writer.finish()?, output))
}

/// The quality gate's failures: each quote of `report` that falls in a
/// `--fail-on` class, in report order, as a check case (its place and
/// why it failed: `REPORT: line L, column C: CLASS: "text"`).
pub fn gate_failures(
    config: &Config,
    report: &Path,
    quotes: &[CheckedQuote],
) -> Vec<(String, Option<String>)> {
    quotes
        .iter()
        .filter_map(|q| {
            let class = FailOn::of(q).find(|c| config.fail_on.contains(c))?;
            Some({
                let place = format!("{}:{}:{}", report.display(), q.line, q.column);
                let why = format!(
                    "{}: line {}, column {}: {}: {}",
                    report.display(),
                    q.line,
                    q.column,
                    class.as_str(),
                    crate::corpus::preview(&q.text)
                );
                (place, Some(why))
            })
        })
        .collect()
}

/// Checks one `--fail-on` item: an attribution class name or `meaning`;
/// an unknown one is refused naming every class.
pub fn class_name(name: &str) -> Result<(), String> {
    if name == "meaning" || Attribution::ALL.iter().any(|a| a.as_str() == name) {
        return Ok(());
    }
    Err(format!(
        "unknown attribution class {}; classes: {}, or meaning",
        crate::corpus::preview(name),
        Attribution::ALL.map(Attribution::as_str).join(", ")
    ))
}
