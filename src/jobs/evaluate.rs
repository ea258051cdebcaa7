//! The main job as a typed job: score every answer by its question type and
//! verify every quote against its transcript.
//!
//! ```
//! use corpus_eval::corpus::Loader;
//! use corpus_eval::jobs::evaluate::{run, Config};
//! use corpus_eval::lexicon::Lexicon;
//! use std::path::Path;
//!
//! let questions = Loader::new().questions_text(Path::new("q.json"), r#"{"qa_pairs": [
//!   {"id": "q1", "question": {"text": "Main crop?", "type": "ListOne", "metric": {"potato": 1}},
//!    "answers": [{"answer": "Potatoes, mostly.", "source": "a.csv",
//!                 "verbatims": [{"quote": "we grow potatoes", "source": "a.csv"}]}]}]}"#).unwrap();
//! let transcripts = Loader::new().transcripts_text(Path::new("t.json"),
//!   r#"[{"page_content": "Farmer: we grow potatoes here.", "metadata": {"FILE": "a.csv"}}]"#).unwrap();
//! let out = run(&Config::default(), &questions, &transcripts, &Lexicon::embedded().unwrap()).unwrap();
//! assert_eq!(out.summary.overall.mean, 1.0);
//! assert_eq!(out.summary.existence.mean, 1.0);
//! assert_eq!(out.results["qa_pairs"][0]["answers"][0]["verbatims"][0]["verdict"], "exact");
//! ```

use super::speakers::speakers;
use super::{check_unit, ConfigError, JobConfig, JobError};
use crate::citations::turns::SpeakerConfig;
use crate::citations::MatchLevel;
use crate::corpus::formats::SpeakerMap;
use crate::corpus::{Loader, QuestionSet, TranscriptSet};
use crate::evaluate::{evaluate, evaluate_owned, summarize_evaluation, EvalConfig, Summary};
use crate::lexicon::Lexicon;
use crate::report::csv::CsvStream;
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use crate::views::evaluate_tables::{item_rows, quote_rows};
pub use crate::views::evaluate_tables::{ITEM_COLUMNS, QUOTE_COLUMNS};
use crate::views::results::{annotate, pairs_array, write_document, Annotated, Fill, Rows, Whole};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The settings of `corpus-eval evaluate` (the defaults are the command
/// line's). Each field is a key of a `--config` file and, with `-` for
/// `_`, a flag; its doc comment is the flag's help.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    #[shared]
    pub out: PathBuf,
    #[shared]
    pub match_level: MatchLevel,
    #[shared]
    pub fuzzy_threshold: f64,
    #[shared]
    pub fuzzy_search: Option<crate::citations::FuzzySearch>,
    /// Do not draw the PNG charts.
    pub no_plots: bool,
    /// Do not write the HTML audit report (report.html).
    pub no_html: bool,
    #[shared]
    pub wordnet: Option<PathBuf>,
    /// Seed of the bootstrap confidence intervals.
    #[setting(default = 42)]
    pub seed: u64,
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
    #[shared]
    pub shard: Option<crate::shard::Shard>,
    #[shared]
    pub fail_under: std::collections::BTreeMap<String, f64>,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "evaluate";
    const GATES: &'static [crate::gates::Metric] = crate::gates::EVALUATE;
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
        c.fillers.get_or_insert_with(default_fillers);
        c.fuzzy_search.get_or_insert_with(Default::default);
        c
    }

    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        super::unset_notes!(self; wordnet => "the embedded WordNet 3.0 lexicon", speaker_aliases => "no aliases", speaker_map => "diarized labels as they are", meaning_words => "the English lists", model_dir => "found as the docs say", shard => "every pair: no shard")
    }
}

/// A configuration resolved once: checked, and what it names read and
/// derived (the speaker map, the aliases file, the speaker settings, the
/// library's evaluation settings). The job and the commands built on it
/// (check-report, merge, the Python functions) take this, so that nothing
/// below re-reads a file the configuration names.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The configuration as given.
    pub config: Config,
    /// The names of diarized speakers (`--speaker-map`; empty when unset).
    pub speaker_map: SpeakerMap,
    /// The library's evaluation settings: the speakers with the map and
    /// the aliases applied, the normalizer, the search.
    pub eval: EvalConfig,
}

impl Config {
    /// Checks the configuration and reads what it names, once: the gates'
    /// bounds, the threshold, the speaker pattern and labels, the speaker
    /// map and the aliases file (an error names the flag and the file).
    pub fn resolve(&self) -> Result<Resolved, ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)?;
        check_unit("--fuzzy-threshold", self.fuzzy_threshold)?;
        check_tolerance(self.time_tolerance)?;
        check_unit("--paraphrase-threshold", self.paraphrase_threshold)?;
        let speaker_map = super::speakers::speaker_map(self.speaker_map.as_deref())?;
        let speakers = super::speakers::speaker_config(
            &self.speaker_pattern,
            &self.interviewer_labels,
            &speaker_map,
            self.speaker_aliases.as_deref(),
        )?;
        Ok(Resolved {
            config: self.clone(),
            speaker_map,
            eval: EvalConfig {
                match_level: self.match_level,
                fuzzy_threshold: self.fuzzy_threshold,
                seed: self.seed,
                speakers,
                normalize: normalize_options(&self.fillers),
                fuzzy_search: self.fuzzy_search.unwrap_or_default(),
                meaning: meaning_words(self.meaning_words.as_deref())?,
                time_tolerance: self.time_tolerance,
                ..EvalConfig::default()
            },
        })
    }

    /// The speaker settings: the pattern and labels given (or the
    /// defaults), the speaker map and the aliases ([`Config::resolve`]).
    pub fn speakers(&self) -> Result<SpeakerConfig, ConfigError> {
        Ok(self.resolve()?.eval.speakers)
    }

    /// The library's evaluation settings for this configuration
    /// ([`Config::resolve`]); an invalid setting is an error, never the
    /// defaults in its place.
    pub fn eval_config(&self) -> Result<EvalConfig, ConfigError> {
        Ok(self.resolve()?.eval)
    }
}

/// The note a run gives when interviewer labels were given: which labels
/// count as the interviewer's (the defaults and the given, or the given
/// alone after `none`).
pub fn interviewer_note(labels: &Option<Vec<String>>) -> Option<String> {
    let given = labels.as_ref()?;
    let all = speakers(&None, labels).ok()?;
    Some(format!(
        "note: interviewer turns are those labelled {} (given: {})",
        all.interviewer_labels().join(", "),
        given.join(", ")
    ))
}

/// The default filler words, as a setting's list.
pub fn default_fillers() -> Vec<String> {
    crate::text::aligned::DEFAULT_FILLERS
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The quote normalizer's options for a `fillers` setting: the default
/// fillers when unset, none for an empty list.
pub fn normalize_options(fillers: &Option<Vec<String>>) -> crate::text::aligned::NormalizeOptions {
    match fillers {
        None => Default::default(),
        Some(list) => crate::text::aligned::NormalizeOptions::with_fillers(list),
    }
}

/// Checks `--time-tolerance`: finite seconds from 0 to a day.
pub(crate) fn check_tolerance(seconds: f64) -> Result<(), ConfigError> {
    if seconds.is_finite() && (0.0..=86_400.0).contains(&seconds) {
        Ok(())
    } else {
        Err(ConfigError::Invalid {
            field: "--time-tolerance".into(),
            message: format!("{seconds} is out of range (0 to 86400 seconds)"),
        })
    }
}

/// The word lists of a `meaning_words` setting: the English ones when
/// unset; a file that cannot be read or used is an error naming the flag.
pub fn meaning_words(
    path: Option<&Path>,
) -> Result<std::sync::Arc<crate::citations::MeaningWords>, ConfigError> {
    match path {
        None => Ok(crate::citations::MeaningWords::english()),
        Some(p) => crate::citations::MeaningWords::from_file(p)
            .map(std::sync::Arc::new)
            .map_err(|e| ConfigError::Invalid {
                field: "--meaning-words".into(),
                message: e.to_string(),
            }),
    }
}

/// What the job produces: `results.json` and `summary.json`'s contents.
#[derive(Debug, Clone)]
pub struct Output {
    /// The input document with scores and quote verdicts added.
    pub results: serde_json::Value,
    /// Aggregates, intervals, counts, warnings and the signature.
    pub summary: Summary,
    /// Every pair's and quote's typed result.
    pub evaluation: crate::evaluate::Evaluation,
}

/// Runs the main job over parsed inputs.
pub fn run(
    config: &Config,
    questions: &QuestionSet,
    transcripts: &TranscriptSet,
    lexicon: &Lexicon,
) -> Result<Output, JobError> {
    run_resolved(&config.resolve()?, questions, transcripts, lexicon)
}

/// [`run`] with a configuration already resolved.
pub fn run_resolved(
    resolved: &Resolved,
    questions: &QuestionSet,
    transcripts: &TranscriptSet,
    lexicon: &Lexicon,
) -> Result<Output, JobError> {
    let paraphraser = paraphraser(&resolved.config)?;
    let mut eval = evaluate(questions, transcripts, lexicon, &resolved.eval)?;
    if let Some(p) = &paraphraser {
        paraphrase(p, questions, transcripts, &resolved.eval, &mut eval)?;
    }
    let mut summary = summarize_evaluation(&eval);
    summary.warnings.extend(transcripts.doubts.iter().cloned());
    let results = annotate(questions, &eval);
    Ok(Output {
        results,
        summary,
        evaluation: eval,
    })
}

// ---- The run folder ----

/// Runs the job on two input files and writes its run folder; returns the
/// folder and the summary (`rerun` calls this too).
pub fn execute(
    config: &Config,
    questions_path: &Path,
    transcripts_path: &Path,
) -> Result<(PathBuf, Summary), JobError> {
    execute_resolved(&config.resolve()?, questions_path, transcripts_path)
}

/// [`execute`] with a configuration already resolved: the files it names
/// are not read again.
pub fn execute_resolved(
    resolved: &Resolved,
    questions_path: &Path,
    transcripts_path: &Path,
) -> Result<(PathBuf, Summary), JobError> {
    let started = SystemTime::now();
    let config = &resolved.config;
    crate::sys::timings::phase("start");
    // The model first: a missing one is exit 2 before any input is read.
    let paraphraser = paraphraser(config)?;
    // The questions are read and parsed (while hashed, their bytes then
    // dropped) beside WordNet; then the transcripts, on their own: each
    // load's peak (a document, its tape, what is built from it) comes
    // alone. A questions error is reported first, then a transcripts one.
    let load_questions = || -> Result<_, JobError> {
        let loaded = Loader::new()
            .questions(questions_path)
            .map_err(|e| swapped_hint(e, questions_path, transcripts_path))?;
        let q_info = InputFile::digested(questions_path, loaded.sha256, loaded.bytes);
        let mut questions = loaded.data;
        if let Some(shard) = config.shard {
            keep_shard(&mut questions, shard)?;
        }
        crate::sys::timings::phase("questions");
        Ok((questions, q_info))
    };
    let load_lexicon = || {
        super::load_lexicon(config.wordnet.as_deref()).map(|l| {
            // Its manifest record (and digest) beside the load.
            let info = l.info();
            (l, info)
        })
    };
    let load_transcripts = || load_transcripts(transcripts_path, resolved, true);
    let (questions, lexicon) = rayon::join(load_questions, load_lexicon);
    let (questions, q_info) = questions?;
    // The questions file's text and tape are freed.
    crate::sys::memory::give_back();
    let (transcripts, t_info) = load_transcripts()?;
    let (lexicon, lexicon_info) = lexicon?;
    // The documents' tapes and the mapped transcripts file are freed.
    crate::sys::memory::give_back();
    crate::sys::timings::phase("transcripts and lexicon");
    // The run folder's results are written straight from the document and
    // the results (no annotated copy of the document, as `run` makes).
    // WordNet is dropped once the answers are scored.
    // The transcripts' lookup structures given back once freed: the
    // run's last steps start without them.
    let mut evaluation = evaluate_owned(
        &questions,
        &transcripts,
        lexicon,
        &resolved.eval,
        &crate::sys::memory::give_back,
    )?;
    if let Some(p) = &paraphraser {
        paraphrase(p, &questions, &transcripts, &resolved.eval, &mut evaluation)?;
        crate::sys::timings::phase("paraphrase");
    }
    let mut summary = summarize_evaluation(&evaluation);
    // What the transcripts' readers doubt (a label they did not accept).
    summary.warnings.extend(transcripts.doubts.iter().cloned());
    // The bootstrap's buffers are freed before the writing starts.
    crate::sys::memory::give_back();
    crate::sys::timings::phase("summary");
    for w in &summary.warnings {
        errln!("warning: {w}");
    }
    if let Some(note) = interviewer_note(&config.interviewer_labels) {
        errln!("{note}");
    }
    let manifest = manifest(resolved, (q_info, t_info), &summary, &lexicon_info, started);
    let mut writer = RunWriter::create(&config.out, started, manifest)?;
    write_run(
        &mut writer,
        config,
        (&summary, &evaluation),
        (&questions, &transcripts),
    )?;
    crate::sys::timings::phase("write");
    let done = writer.finish()?;
    crate::sys::timings::phase("finish");
    Ok((done, summary))
}

/// The paraphrase tier of a configuration with `paraphrase` on.
pub(crate) fn paraphraser(
    config: &Config,
) -> Result<Option<super::paraphrase::Paraphraser>, JobError> {
    super::paraphrase::Paraphraser::load(
        config.paraphrase,
        config.model_dir.as_deref(),
        config.paraphrase_threshold,
    )
}

/// Applies the paraphrase tier to an evaluation's quotes (each with its
/// text from `questions`) and names it in the signature.
fn paraphrase(
    p: &super::paraphrase::Paraphraser,
    questions: &QuestionSet,
    transcripts: &TranscriptSet,
    eval_config: &EvalConfig,
    evaluation: &mut crate::evaluate::Evaluation,
) -> Result<(), JobError> {
    let mut quotes: Vec<(&str, &mut crate::evaluate::QuoteResult)> = Vec::new();
    for (pair, done) in questions.pairs.iter().zip(evaluation.pairs.iter_mut()) {
        for (answer, a) in pair.answers.iter().zip(done.answers.iter_mut()) {
            for (q, r) in answer.quotes.iter().zip(a.quotes.iter_mut()) {
                quotes.push((q.quote.as_str(), r));
            }
        }
    }
    p.apply(&mut quotes, transcripts, &eval_config.speakers)?;
    evaluation.signature = format!("{}|{}", evaluation.signature, p.signature());
    Ok(())
}

/// A questions file that cannot be read as one, with a hint when it looks
/// like a transcript corpus (the arguments given the other way round:
/// `evaluate TRANSCRIPTS QUESTIONS`).
fn swapped_hint(e: crate::corpus::CorpusError, questions: &Path, transcripts: &Path) -> JobError {
    // Its first 64 KB only: a corpus given in the wrong place is not read
    // whole for a hint.
    let head = crate::corpus::input::open_regular(questions)
        .ok()
        .and_then(|(f, _)| {
            use std::io::Read as _;
            let mut head = Vec::new();
            f.take(64 << 10).read_to_end(&mut head).ok().map(|_| head)
        });
    let json = questions
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let looks_like_transcripts = (!json && crate::corpus::formats::is_transcript_source(questions))
        || head.is_some_and(|head| {
            let has = |k: &[u8]| memchr::memmem::find(&head, k).is_some();
            (has(b"\"page_content\"")
                || has(b"\"segments\"")
                || has(b"\"utterances\"")
                || has(b"\"monologues\""))
                && !has(b"\"qa_pairs\"")
        });
    if !looks_like_transcripts {
        return e.into();
    }
    JobError::Input(format!(
        "{e}\nhint: the first argument is the questions file and the second the transcripts; {} looks like a transcript corpus: were they given the other way round? (corpus-eval evaluate QUESTIONS TRANSCRIPTS, e.g. `corpus-eval evaluate {} {}`)",
        questions.display(),
        transcripts.display(),
        questions.display()
    ))
}

/// The transcripts input of a run and its manifest record: caption, text,
/// Word and REFI-QDA files, alone or in a folder
/// (`crate::corpus::formats`), or corpus-eval's JSON chunks (mapped, not
/// read: the page cache serves them; the map is dropped once they are
/// built). Each transcript is packed once built when `pack` is set.
pub fn load_transcripts(
    path: &Path,
    resolved: &Resolved,
    pack: bool,
) -> Result<(TranscriptSet, InputFile), JobError> {
    let loaded = Loader::new()
        .speakers(resolved.speaker_map.clone())
        .external_sources(resolved.config.allow_external_sources)
        .packed(pack)
        .mapped(true)
        .transcripts(path)?;
    for note in &loaded.notes {
        errln!("note: {}", crate::secrets::scrub(note));
    }
    let info = InputFile::digested(path, loaded.sha256, loaded.bytes).with_notes(&loaded.notes);
    Ok((loaded.data, info))
}

/// The manifest of an evaluate run (`execute` and `merge` write it).
pub fn manifest(
    resolved: &Resolved,
    inputs: (InputFile, InputFile),
    summary: &Summary,
    lexicon: &crate::lexicon::LexiconInfo,
    started: SystemTime,
) -> Manifest {
    let (config, eval_config) = (&resolved.config, &resolved.eval);
    let mut manifest = Manifest::new(
        "evaluate",
        BTreeMap::from([
            ("questions".to_string(), inputs.0),
            ("transcripts".to_string(), inputs.1),
        ]),
        json!({
            "match": eval_config.match_level,
            "fuzzy_threshold": eval_config.fuzzy_threshold,
            "seed": eval_config.seed,
            "bootstrap_resamples": eval_config.resamples,
            "confidence": 0.95,
            "plots": !config.no_plots,
            "html": !config.no_html,
            "out": config.out.display().to_string(),
            "pick_jaro_winkler_threshold": crate::scoring::PICK_JARO_WINKLER_THRESHOLD,
            "normalizer": crate::text::NORMALIZER_SIGNATURE,
            "quote_normalizer": eval_config.normalize.signature(),
            "span_unit": "unicode scalar values (chars) into the transcript joined with \\n",
        }),
        summary.signature.clone(),
        started,
    )
    .with_config(super::to_value(config));
    if let (Some(shard), serde_json::Value::Object(m)) = (config.shard, &mut manifest.settings) {
        m.insert("shard".into(), json!(shard));
    }
    // {"source", "sha256", "lemmas", "synsets"}.
    manifest.wordnet = Some(json!(lexicon));
    manifest
}

/// Keeps the pairs (and the document's pair objects) whose id falls in
/// `shard`, in file order.
pub fn keep_shard(questions: &mut QuestionSet, shard: crate::shard::Shard) -> Result<(), JobError> {
    questions.retain_pairs(|p| shard.contains(&p.id));
    Ok(())
}

/// Writes the outputs of an evaluation into a run folder (`execute` and
/// `merge` call this).
pub fn write_run(
    run: &mut RunWriter,
    config: &Config,
    (summary, evaluation): (&Summary, &crate::evaluate::Evaluation),
    inputs: (&QuestionSet, &TranscriptSet),
) -> Result<(), JobError> {
    let rows = Whole::new(inputs.0, evaluation);
    write_run_from(run, config, (summary, &rows), inputs)
}

/// [`write_run`] from any [`Rows`]: every file is written window by
/// window, so that its memory is a window's, not the run's.
pub(crate) fn write_run_from(
    run: &mut RunWriter,
    config: &Config,
    (summary, rows): (&Summary, &dyn Rows),
    inputs: (&QuestionSet, &TranscriptSet),
) -> Result<(), JobError> {
    let questions = inputs.0;
    // results.json, the summary and the tables are written at once, each
    // streamed to its file (none is held whole in memory), and recorded in
    // this order.
    let results = |w: &mut dyn std::io::Write| {
        let mut buf = Vec::with_capacity(1 << 18);
        let mut flush = |b: &mut Vec<u8>| {
            w.write_all(b)?;
            b.clear();
            Ok(())
        };
        let n = rows.count();
        write_document(questions, &mut buf, &mut flush, |out, depth, flush| {
            pairs_array(out, depth, n, |out| {
                rows.windows(Fill::RESULTS, &mut |window| {
                    Annotated::window(questions, window).write_pair_items(out, depth, flush)?;
                    flush(out)
                })
            })
        })?;
        w.write_all(b"\n")
    };
    let table = |columns: &'static [&'static str],
                 fill: Fill,
                 write: fn(
        crate::views::results::PairWindow<'_>,
        &mut CsvStream<&mut dyn std::io::Write>,
    ) -> std::io::Result<()>| {
        move |w: &mut dyn std::io::Write| {
            let mut out = CsvStream::new(w);
            out.record(columns)?;
            rows.windows(fill, &mut |window| write(window, &mut out))?;
            out.finish()
        }
    };
    run.write_streamed_all(vec![
        ("results.json", Box::new(results)),
        (
            "summary.json",
            Box::new(|w| crate::report::write_pretty_json(w, summary)),
        ),
        (
            "items.csv",
            Box::new(table(&ITEM_COLUMNS, Fill::RESULTS, item_rows)),
        ),
        // The quotes as cited come from the question file.
        (
            "quotes.csv",
            Box::new(table(&QUOTE_COLUMNS, Fill::QUESTIONS, quote_rows)),
        ),
    ])?;
    if config.shard.is_some() {
        run.write_streamed("pairs.jsonl", |w| {
            rows.windows(Fill::RESULTS, &mut |window| {
                for p in window.pairs {
                    serde_json::to_writer(&mut *w, p)?;
                    w.write_all(b"\n")?;
                }
                Ok(())
            })
        })?;
    }
    #[cfg(feature = "charts")]
    if !config.no_plots {
        use crate::views::charts::{render_bar_chart, BarChart};
        let footnote = format!(
            "values: mean [95% bootstrap CI] n · {}",
            crate::signature::shorten(&summary.signature)
        );
        run.render("transcript_scores.png", |path| {
            render_bar_chart(
                path,
                &BarChart {
                    title: "Mean answer score per transcript",
                    value_label: "mean answer score (0-1)",
                    category_label: "answer source",
                    footnote: &footnote,
                    bars: &bars(&summary.transcript_average_scores),
                },
            )
        })?;
        run.render("verbatim_scores.png", |path| {
            render_bar_chart(
                path,
                &BarChart {
                    title: "Share of quotes found per transcript",
                    value_label: "quotes found (0-1)",
                    category_label: "quote source",
                    footnote: &footnote,
                    bars: &bars(&summary.verbatim_average_scores),
                },
            )
        })?;
    }
    if !config.no_html {
        use crate::views::audit;
        let charts: Vec<(&str, Vec<u8>)> = [
            ("Mean answer score per transcript", "transcript_scores.png"),
            (
                "Share of quotes found per transcript",
                "verbatim_scores.png",
            ),
        ]
        .into_iter()
        .filter_map(|(alt, name)| std::fs::read(run.file(name)).ok().map(|b| (alt, b)))
        .collect();
        crate::sys::timings::phase("write tables");
        let view = run.manifest_mut().reproducible_view();
        let (head, tail) = audit::render_around(summary, &charts, &view);
        crate::sys::timings::phase("audit render");
        // The data is written between the page's halves, its quotes'
        // records made transcript by transcript through a scratch file.
        let scratch = run.file(".report-data.scratch");
        run.write_streamed("report.html", |w| {
            w.write_all(head.as_bytes())?;
            audit::write_data_rows(rows, inputs.1, w, &scratch)?;
            w.write_all(tail.as_bytes())
        })?;
        crate::sys::timings::phase("audit data and report.html");
    }
    Ok(())
}

#[cfg(feature = "charts")]
fn bars(groups: &BTreeMap<String, crate::stats::GroupStat>) -> Vec<crate::views::charts::Bar> {
    groups
        .iter()
        .filter(|(_, s)| s.n > 0)
        .map(|(k, s)| crate::views::charts::Bar {
            label: k.clone(),
            value: s.mean,
            n: s.n,
            ci: Some((s.ci_low, s.ci_high)),
        })
        .collect()
}
