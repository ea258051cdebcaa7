//! The command line: clap definitions, dispatch and exit codes. No scoring
//! logic lives here; each subcommand file turns its arguments into library
//! calls.

/// `println!` that returns a write failure instead of panicking. A closed
/// pipe (`| head`) is not a failure: the rest of the output is dropped and
/// the command ends with its own exit code (0, or 1 for a failed run). Any
/// other failure (a full disk) is exit 1 with the message. Use inside a
/// function that returns `anyhow::Result`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        $crate::cli::stdout_result(writeln!(
            std::io::stdout().lock(),
            "{}",
            $crate::text::printable(&text)
        ))?
    }};
}

mod agreement;
mod build_lexicon;
mod check_report;
mod compare;
mod evaluate;
mod export_qdpx;
pub mod flags;
mod grounding;
mod hotpot;
mod judge_answers;
mod lexical;
mod merge;
pub(crate) mod progress;
mod rag;
mod rerun;
mod score;
mod similarity;
mod text_eval;
mod transcript;

use crate::jobs::settings::Settings;
use crate::jobs::JobConfig;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: a runtime failure (e.g. an output could not be written).
pub const EXIT_RUNTIME: u8 = 1;
/// Exit code: a usage or input error.
pub const EXIT_INPUT: u8 = 2;

/// An error caused by the user's input or arguments (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// A write to standard output: a closed pipe is dropped silently (the
/// reader has what it wanted), any other error is a [`StdoutError`].
pub fn stdout_result(r: std::io::Result<()>) -> Result<(), StdoutError> {
    match r {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(StdoutError(e)),
        _ => Ok(()),
    }
}

/// Writing to standard output failed (a closed pipe or a full disk).
#[derive(Debug, thiserror::Error)]
#[error("writing to standard output: {0}")]
pub struct StdoutError(pub std::io::Error);

/// corpus-eval: score LLM and RAG answers over transcript corpora and verify
/// that every quoted citation stands in its source.
#[derive(Debug, Parser)]
#[command(name = "corpus-eval", version, about, long_about = None)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// `--config FILE`, `--print-config` and the flags of the settings `P`
/// picks of a typed job's configuration `C` ([`crate::jobs`]).
#[derive(Debug, Clone, clap::Args)]
pub struct ConfigArgs<C: JobConfig + Settings, P: flags::Pick = flags::Every> {
    /// Settings from a TOML or JSON file (keys: the long flags with `_`);
    /// flags given here override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the resolved configuration as TOML and exit.
    #[arg(long)]
    pub print_config: bool,
    /// The settings' flags (the fields of the configuration).
    #[command(flatten)]
    pub flags: flags::Flags<C, P>,
}

impl<C: JobConfig + Settings, P: flags::Pick> ConfigArgs<C, P> {
    /// The configuration file's settings (or the defaults) with the flags
    /// given laid over them, unchecked.
    pub fn merged(&self) -> anyhow::Result<C> {
        let base = match &self.config {
            Some(path) => crate::jobs::read_config(path)?,
            None => C::default(),
        };
        self.flags.over(base)
    }

    /// The configuration ([`Self::merged`]), checked; None once
    /// `--print-config` printed it.
    pub fn config(&self) -> anyhow::Result<Option<C>> {
        self.ready(self.merged()?)
    }

    /// The configuration ([`Self::merged`]) resolved once by `resolve`
    /// (which checks it; the job then takes the resolved value and reads
    /// no file the configuration names again); None once `--print-config`
    /// printed it.
    pub fn resolved<R>(
        &self,
        resolve: impl FnOnce(&C) -> Result<R, crate::jobs::ConfigError>,
    ) -> anyhow::Result<Option<(C, R)>> {
        let c = self.merged()?;
        if self.print_config {
            c.validate_printable()?;
            self.printed(&c)?;
            return Ok(None);
        }
        let r = resolve(&c)?;
        Ok(Some((c, r)))
    }

    /// `c` with every setting's range checked (with `--print-config`, the
    /// checks of a printed configuration); None once `--print-config`
    /// printed it.
    pub fn ready(&self, c: C) -> anyhow::Result<Option<C>> {
        match self.print_config {
            true => c.validate_printable()?,
            false => c.validate()?,
        }
        Ok((!self.printed(&c)?).then_some(c))
    }

    /// With `--print-config`, prints `config` as TOML (URL credentials
    /// redacted, unset settings as comments) and returns true.
    fn printed(&self, config: &C) -> anyhow::Result<bool> {
        if self.print_config {
            let (text, redacted) = crate::jobs::printable_toml(config);
            if redacted {
                errln!(
                    "note: credentials, query values and fragments of URLs are shown as {}: a saved configuration holds no secret; give the URL with its secrets by its flag or environment variable ($EVALUATION_API_URL, $CORPUS_EVAL_JUDGE_URL), and keys by $EVALUATION_API_AUTH or $CORPUS_EVAL_JUDGE_KEY",
                    crate::secrets::REDACTED
                );
            }
            outln!("{}", text.trim_end());
        }
        Ok(self.print_config)
    }
}

/// What every run-folder command with quality gates takes besides its
/// inputs: its settings, `--junit`, `--no-progress` and `--json`.
#[derive(Debug, clap::Args)]
pub struct JobArgs<C: JobConfig + Settings> {
    /// `--config FILE`, `--print-config` and the settings' flags.
    #[command(flatten)]
    pub settings: ConfigArgs<C>,
    /// `--junit`.
    #[command(flatten)]
    pub gates: GateArgs,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: progress::ProgressArgs,
    /// Print the summary as one JSON object on stdout (with `run_folder`,
    /// the run folder's path, when one is written), nothing else there.
    #[arg(long)]
    pub json: bool,
}

impl<C: JobConfig + Settings> JobArgs<C> {
    /// The checked configuration; None once `--print-config` printed it.
    pub fn config(&self) -> anyhow::Result<Option<C>> {
        self.gates.check()?;
        self.settings.config()
    }

    /// The configuration resolved once ([`ConfigArgs::resolved`]); None
    /// once `--print-config` printed it.
    pub fn resolved<R>(
        &self,
        resolve: impl FnOnce(&C) -> Result<R, crate::jobs::ConfigError>,
    ) -> anyhow::Result<Option<(C, R)>> {
        self.gates.check()?;
        self.settings.resolved(resolve)
    }

    /// A finished run on stdout: with `--json` its summary (and
    /// `run_folder`), else `text` and the run folder.
    pub fn print(
        &self,
        folder: Option<&std::path::Path>,
        summary: &impl serde::Serialize,
        text: impl FnOnce() -> String,
    ) -> anyhow::Result<()> {
        print_run(self.json, folder, summary, text)
    }

    /// [`Self::print`], then the quality gates of `gates` (the
    /// configuration's `fail_under`) against `summary` give the exit code.
    pub fn finish(
        &self,
        gates: &std::collections::BTreeMap<String, f64>,
        folder: Option<&std::path::Path>,
        summary: &impl serde::Serialize,
        text: impl FnOnce() -> String,
    ) -> anyhow::Result<u8> {
        self.print(folder, summary, text)?;
        self.gates.finish::<C>(gates, summary)
    }
}

/// `--junit`, on every command whose configuration has quality gates
/// (`fail_under`, a setting).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct GateArgs {
    /// Write the quality gates as a JUnit XML report (one test case per
    /// gate) to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

impl GateArgs {
    /// Checks before the run that the JUnit report can be written.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        Ok(self
            .junit
            .as_deref()
            .map_or(Ok(()), crate::jobs::check_junit)?)
    }

    /// After the run: the quality gates of `table` against `summary` (as
    /// `--json` prints it), failures on stderr, the JUnit report written;
    /// [`crate::gates::EXIT_GATE`] when one failed, else 0.
    pub(crate) fn finish<C: JobConfig>(
        &self,
        table: &std::collections::BTreeMap<String, f64>,
        summary: &impl serde::Serialize,
    ) -> anyhow::Result<u8> {
        let junit = self.junit.as_deref();
        Ok(crate::jobs::conclude_gates::<C>(table, summary, junit)?)
    }
}

/// The subcommands.
// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score a question corpus and verify its quotes; writes a run folder.
    Evaluate(evaluate::EvaluateArgs),
    /// Find the quotes of a written report (Markdown, text, .docx), resolve who each is attributed to, and check them against the transcripts; writes a run folder.
    CheckReport(check_report::CheckReportArgs),
    /// HotpotQA answer, citation and supporting-fact metrics; writes a run folder and an HTML report.
    Hotpot(hotpot::HotpotArgs),
    /// Compare systems side by side, with paired bootstrap tests of every difference.
    Compare(compare::CompareArgs),
    /// Print one answer's score (a number, or null when it cannot be scored).
    Score(score::ScoreArgs),
    /// Print the enrichment of a word: WordNet synonyms and number forms.
    Synonyms(score::SynonymsArgs),
    /// Build the compact lexicon from a WordNet dict folder.
    BuildLexicon(build_lexicon::BuildLexiconArgs),
    /// Print the cosine similarity of two texts (sentence embeddings).
    Similarity(similarity::SimilarityArgs),
    /// Write sentence embeddings (JSONL) for a list of texts.
    Embed(similarity::EmbedArgs),
    /// Score answers against ground truths: keyword, semantic_fixed, semantic_dynamic, llm_judge or hybrid.
    JudgeAnswers(judge_answers::JudgeAnswersArgs),
    /// Search the similarity threshold (0.50..0.90 step 0.05) against labels or the proxy.
    Threshold(judge_answers::ThresholdArgs),
    /// Text evaluator: accuracy, relevance, safety and quality per question category; writes a run folder.
    TextEval(text_eval::TextEvalArgs),
    /// Grounding metrics of RAG responses: relevance, completeness, hallucination (anchors vs context).
    Grounding(grounding::GroundingArgs),
    /// The RAG API: ask one question, or run a resumable batch with citation checks and scores.
    Rag(rag::RagArgs),
    /// Agreement between raters (Cohen, Fleiss, Krippendorff, Gwet) with bootstrap intervals.
    Agreement(agreement::AgreementArgs),
    /// ROUGE, BLEU, chrF and SQuAD EM/F1 equal to rouge-score, sacrebleu and the official scripts.
    Lexical(lexical::LexicalArgs),
    /// Execute a finished run again from its manifest and compare every output with the original.
    Rerun(rerun::RerunArgs),
    /// Write an evaluate or check-report run's located quotes into a REFI-QDA project (.qdpx) for NVivo, ATLAS.ti, MAXQDA or QualCoder.
    ExportQdpx(export_qdpx::ExportQdpxArgs),
    /// Print a transcript file as corpus-eval reads it (its plain text, or --json: turns with speakers and times).
    Transcript(transcript::TranscriptArgs),
    /// Join the run folders of `--shard I/N` runs (evaluate, hotpot, grounding, text-eval, judge-answers, rag run) into one run folder.
    Merge(merge::MergeArgs),
}

/// Runs the parsed command line; returns the process exit code as a number
/// (for [`crate::sys::exit`]).
pub fn run_code(cli: Cli) -> u8 {
    // Secrets from the environment and URL credentials from the command
    // line are known before anything can be printed or stored.
    crate::secrets::register_from_env_and_args(
        &std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>(),
    );
    let result = match cli.command {
        Command::Evaluate(a) => evaluate::run(a),
        Command::Transcript(a) => transcript::run(a),
        Command::CheckReport(a) => check_report::run(a),
        Command::Hotpot(a) => hotpot::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Score(a) => score::run_score(a),
        Command::Synonyms(a) => score::run_synonyms(a),
        Command::BuildLexicon(a) => build_lexicon::run(a),
        Command::Similarity(a) => similarity::run_similarity(a),
        Command::Embed(a) => similarity::run_embed(a),
        Command::JudgeAnswers(a) => judge_answers::run(a),
        Command::Threshold(a) => judge_answers::run_threshold(a),
        Command::TextEval(a) => text_eval::run(a),
        Command::Grounding(a) => grounding::run(a),
        Command::Rag(a) => rag::run(a),
        Command::Rerun(a) => rerun::run(a),
        Command::ExportQdpx(a) => export_qdpx::run(a),
        Command::Agreement(a) => agreement::run(a),
        Command::Lexical(a) => lexical::run(a),
        Command::Merge(a) => merge::run(a),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            let shown = |e: &dyn std::fmt::Display| {
                let text = crate::secrets::scrub(&e.to_string());
                crate::corpus::bound_message(&text).into_owned()
            };
            errln!("error: {}", shown(&err));
            for cause in err.chain().skip(1) {
                errln!("  caused by: {}", shown(&cause));
            }
            let input = |c: &(dyn std::error::Error + 'static)| {
                c.is::<InputError>() || crate::jobs::is_input_error(c)
            };
            match err.chain().any(input) {
                true => EXIT_INPUT,
                false => EXIT_RUNTIME,
            }
        }
    }
}

/// A finished run on stdout: with `json` its summary (and `run_folder`),
/// else `text` and the run folder.
pub(crate) fn print_run(
    json: bool,
    folder: Option<&std::path::Path>,
    summary: &impl serde::Serialize,
    text: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    if json {
        return print_json(summary, folder);
    }
    outln!("{}", text());
    if let Some(path) = folder {
        outln!("run folder: {}", path.display());
    }
    Ok(())
}

/// Prints `value` as the one JSON object on stdout. With a run folder the
/// object gains `run_folder` (its path) and stderr says `run folder: PATH`,
/// so every command that writes a run folder names it the same way.
pub(crate) fn print_json(
    value: &impl serde::Serialize,
    folder: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let mut v = serde_json::to_value(value)?;
    if let (Some(path), Some(object)) = (folder, v.as_object_mut()) {
        let shown = path.display().to_string();
        errln!("run folder: {shown}");
        object.insert("run_folder".into(), serde_json::Value::String(shown));
    }
    outln!("{v}");
    Ok(())
}
