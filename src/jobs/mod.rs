//! Jobs: each command as a typed configuration over plain data.
//!
//! A job's `Config` is plain data (serde, `deny_unknown_fields`, defaults
//! equal to the command line's) whose fields are its settings, each one
//! flag. A run-folder job's `Config` also has a `version`: it can come from
//! a TOML or JSON file ([`read_config`]), be printed as TOML ([`to_toml`]),
//! is recorded whole in the run's manifest, and is what `corpus-eval rerun`
//! executes again. The small commands' configurations (score, embed,
//! transcript, merge, rerun) come from their flags alone. The command line
//! only turns flags into a `Config`.
//!
//! Every job over plain data (the README's example, compiled here):
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use corpus_eval::{corpus, jobs, lexicon::Lexicon};
//! use std::path::Path;
//!
//! let lexicon = Lexicon::embedded()?;
//! // evaluate: score answers, verify quotes.
//! let loader = corpus::Loader::new();
//! let q = loader.questions(Path::new("evaluation/data_fixture.json"))?.data;
//! let t = loader.transcripts(Path::new("datasets/corpus.json"))?.data;
//! let eval = jobs::evaluate::run(&jobs::evaluate::Config::default(), &q, &t, &lexicon)?;
//! println!("{} {:?}", eval.summary.overall.mean, eval.summary.verdicts);
//! // hotpot: bytes of the two files (paths name them in errors).
//! let (p, g) = (std::fs::read("pred.json")?, std::fs::read("gold.json")?);
//! let h = jobs::hotpot::run(&Default::default(), Path::new("pred.json"), &p, Path::new("gold.json"), &g)?;
//! println!("{}", serde_json::Value::Object(h.averages_json()));
//! // compare: NAME=PATH systems (hotpot run folders or metrics files).
//! let cmp = jobs::compare::Config { systems: vec!["a=runs/A".into(), "b=runs/B".into()], ..Default::default() };
//! let c = jobs::compare::run(&cmp)?;
//! // grounding: rows of {id, query, response, context}.
//! let rows = corpus_eval::grounding::load_grounding_rows(Path::new("evaluation/grounding/sample.json"))?;
//! let gr = jobs::grounding::run(&Default::default(), &rows, &lexicon)?;
//! // text-eval: rows plus their semantic cosines (the TF-IDF fallback needs no model).
//! let rows = corpus_eval::texteval::load_text_rows(Path::new("evaluation/text-eval/sample.json"))?;
//! let sem = jobs::text_eval::fallback_pairs(&rows, "library example");
//! let te = jobs::text_eval::run(&Default::default(), &rows, &jobs::text_eval::Inputs::defaults(&lexicon), &sem)?;
//! // judge-answers: keyword needs no model; semantic methods load it into the Context.
//! let config = jobs::judge_answers::Config { method: corpus_eval::semantic::Method::Keyword, ..Default::default() };
//! let context = jobs::judge_answers::Context::load(&config, Path::new("evaluation/semantic/answers.jsonl"))?;
//! let scored = context.plan(&config)?.run(&|_, _| {})?;
//! println!("{:?}", scored.summary.overall.mean_score);
//! // rerun: a run folder reproduced, file by file.
//! let again = jobs::rerun::rerun(&jobs::rerun::Request { run_folder: "reports/RUN".into(), out: None, inputs: None })?;
//! println!("identical: {}", again.identical());
//! # let _ = (c, gr, te);
//! # Ok(())
//! # }
//! ```
//!
//! Jobs: [`evaluate`] (the main job), [`check_report`], [`hotpot`],
//! [`compare`], [`grounding`], [`text_eval`], [`agreement`], [`lexical`],
//! `judge_answers` (with `threshold`; features `semantic` and `net`),
//! `rag` (feature `net`; `rag ask` and the terminal texts of some jobs
//! also need `cli`); [`rerun`] replays a run folder, [`merge`] joins
//! shard run folders. The small commands are jobs too: [`score`] (score,
//! synonyms), `embed` (similarity, embed; feature `semantic`),
//! [`transcript`] and [`build_lexicon`].

pub mod agreement;
pub mod build_lexicon;
pub mod check_report;
pub mod compare;
#[cfg(feature = "semantic")]
pub mod embed;
pub mod evaluate;
pub mod export_qdpx;
pub mod grounding;
pub mod hotpot;
pub mod inline;
#[cfg(all(feature = "net", feature = "semantic"))]
pub mod judge_answers;
pub mod lexical;
pub mod merge;
pub(crate) mod paraphrase;
#[cfg(feature = "net")]
pub mod rag;
pub(crate) mod registry;
mod replay;
pub mod rerun;
pub mod score;
pub mod settings;
mod shards;
pub mod span_agreement;
pub(crate) mod speakers;
pub mod text_eval;
pub mod transcript;

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Errors of a job's configuration (exit 2 at the command line).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A config file that cannot be read or parsed, or that holds an
    /// unknown key or a value of the wrong type.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong (with line:column where the parser gives one).
        message: String,
    },
    /// A key the configuration does not have (told apart from the other
    /// errors of a configuration by its keys, not by the message: the
    /// Python functions raise `TypeError` for it, as for an unknown
    /// keyword).
    #[error("{path}: {message}")]
    UnknownKey {
        /// The file (`config` for keywords).
        path: PathBuf,
        /// The first key the configuration does not have.
        key: String,
        /// The parser's message (it names the key and the ones expected).
        message: String,
    },
    /// A setting outside its range.
    #[error("{field} {message}")]
    Invalid {
        /// The setting, named as its flag (e.g. `--fuzzy-threshold`).
        field: String,
        /// What is wrong.
        message: String,
    },
}

/// Errors of a job. [`JobError::is_input`] decides the exit code: 2 for
/// the user's input or settings, 1 for everything else.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// The configuration is out of range.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// An input file is malformed.
    #[error(transparent)]
    Corpus(#[from] crate::corpus::CorpusError),
    /// The inputs do not fit together (e.g. two files of different lengths).
    #[error("{0}")]
    Input(String),
    /// WordNet could not be loaded.
    #[error(transparent)]
    Lexicon(#[from] crate::lexicon::LexiconError),
    /// An output could not be written.
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    /// The embedding model failed (or is missing).
    #[cfg(feature = "semantic")]
    #[error(transparent)]
    Semantic(#[from] crate::semantic::SemanticError),
    /// The RAG API's settings or client.
    #[cfg(feature = "net")]
    #[error(transparent)]
    Rag(#[from] crate::rag::RagError),
    /// The LLM judge failed (or is misconfigured).
    #[cfg(all(feature = "net", feature = "semantic"))]
    #[error(transparent)]
    Judge(#[from] crate::judge::JudgeError),
}

impl From<crate::agreement::table::TableError> for JobError {
    fn from(e: crate::agreement::table::TableError) -> JobError {
        match e {
            crate::agreement::table::TableError::Corpus(c) => JobError::Corpus(c),
            crate::agreement::table::TableError::Input(m) => JobError::Input(m),
        }
    }
}

impl JobError {
    /// True when the user's input or settings are at fault (exit 2), false
    /// for runtime failures (exit 1).
    pub fn is_input(&self) -> bool {
        match self {
            JobError::Config(_) | JobError::Input(_) | JobError::Lexicon(_) => true,
            JobError::Corpus(e) => corpus_input(e),
            JobError::Report(e) => report_input(e),
            #[cfg(feature = "semantic")]
            JobError::Semantic(e) => e.is_missing_model(),
            #[cfg(feature = "net")]
            JobError::Rag(e) => e.is_input(),
            #[cfg(all(feature = "net", feature = "semantic"))]
            JobError::Judge(e) => e.is_input(),
        }
    }
}

/// A transcript whose text failed to decode in memory is a runtime
/// failure, not the input's fault; every other corpus error is.
fn corpus_input(e: &crate::corpus::CorpusError) -> bool {
    !matches!(e, crate::corpus::CorpusError::Damaged { .. })
}

/// An output path that is no regular file or no folder is the user's.
fn report_input(e: &crate::report::ReportError) -> bool {
    matches!(
        e,
        crate::report::ReportError::NotRegular { .. }
            | crate::report::ReportError::NotAFolder { .. }
    )
}

/// Whether `e` (one error of a chain) is the user's input or settings at
/// fault (exit 2): a [`JobError`] as [`JobError::is_input`] says, or one
/// of the errors it wraps, met unwrapped.
pub fn is_input_error(e: &(dyn std::error::Error + 'static)) -> bool {
    #[cfg(feature = "semantic")]
    if let Some(e) = e.downcast_ref::<crate::semantic::SemanticError>() {
        return e.is_missing_model();
    }
    #[cfg(all(feature = "net", feature = "semantic"))]
    if let Some(e) = e.downcast_ref::<crate::judge::JudgeError>() {
        return e.is_input();
    }
    e.downcast_ref::<JobError>().is_some_and(JobError::is_input)
        || e.is::<ConfigError>()
        || e.is::<crate::lexicon::LexiconError>()
        || e.downcast_ref().is_some_and(corpus_input)
        || e.downcast_ref().is_some_and(report_input)
}

/// Reads an input file whole (a regular file within the bounds of
/// `corpus::input`); a failure names the file.
pub fn read_input(path: &Path) -> Result<Vec<u8>, JobError> {
    Ok(crate::corpus::input::read_bytes(path)?)
}

/// An input file's bytes as UTF-8 text; a failure names the file and the
/// first bad byte.
pub fn read_text(path: &Path) -> Result<String, JobError> {
    utf8(path, read_input(path)?)
}

/// Bytes read from `path` as UTF-8 text; a failure names the file and the
/// first bad byte.
pub fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, JobError> {
    String::from_utf8(bytes).map_err(|e| not_utf8(path, e.utf8_error()))
}

/// The error of an input that is not UTF-8: the file and the first bad
/// byte.
fn not_utf8(path: &Path, e: std::str::Utf8Error) -> JobError {
    JobError::Input(format!(
        "{}: not valid UTF-8 (byte {})",
        path.display(),
        e.valid_up_to()
    ))
}

pub use crate::corpus::InputBytes;

impl InputBytes {
    /// The bytes as UTF-8 text; a failure names the file and the first
    /// bad byte (as [`utf8`] does).
    pub fn text(&self, path: &Path) -> Result<&str, JobError> {
        std::str::from_utf8(self).map_err(|e| not_utf8(path, e))
    }
}

/// Maps a large input file into memory (no copy; the page cache serves it),
/// or reads a small one. A failure names the file (exit 2).
pub fn map_input(path: &Path) -> Result<InputBytes, JobError> {
    Ok(crate::corpus::input_bytes(path, true)?)
}

/// The embedded lexicon, or the one a WordNet dict folder holds.
pub fn load_lexicon(wordnet: Option<&Path>) -> Result<crate::lexicon::Lexicon, JobError> {
    Ok(match wordnet {
        Some(dir) => crate::lexicon::Lexicon::from_wordnet_dir(dir)?,
        None => crate::lexicon::Lexicon::embedded()?,
    })
}

/// A job's configuration.
pub trait JobConfig: Serialize + DeserializeOwned + Default + Clone {
    /// The command that runs it (e.g. `"evaluate"`).
    const COMMAND: &'static str;
    /// The configuration format's version (the `version` field).
    const VERSION: u32;
    /// The metrics its `--fail-under` gates may name (none when the
    /// command has no gates).
    const GATES: &'static [crate::gates::Metric] = &[];
    /// Checks every setting's range.
    fn validate(&self) -> Result<(), ConfigError>;

    /// The checks `--print-config` makes: a printed configuration may
    /// leave out what only a run needs (`agreement`'s id column, `compare`'s
    /// systems); every check unless a job says otherwise.
    fn validate_printable(&self) -> Result<(), ConfigError> {
        self.validate()
    }

    /// The configuration as `--print-config` shows it: settings whose
    /// default has a value (e.g. the speaker pattern) filled in, so that a
    /// saved configuration reproduces the run even if a default changes.
    fn resolved_for_print(&self) -> Self {
        self.clone()
    }

    /// The optional settings left unset, each with what unset means
    /// (printed as comments by `--print-config`, so that a saved
    /// configuration names every key).
    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
}

/// The unset ones among a configuration's optional settings, each with
/// what unset means: `unset_notes!(self; wordnet => "the embedded lexicon")`.
macro_rules! unset_notes {
    ($c:expr; $($field:ident => $note:expr),* $(,)?) => {{
        let mut notes: Vec<(&'static str, &'static str)> = Vec::new();
        $(if $c.$field.is_none() { notes.push((stringify!($field), $note)); })*
        notes
    }};
}
pub(crate) use unset_notes;

/// What `--print-config` prints for a configuration: TOML with every URL's
/// credentials, query values and fragment redacted (a printed or saved
/// configuration never holds a secret), each unset optional setting as a
/// comment; and whether anything was redacted.
pub fn printable_toml<C: JobConfig>(config: &C) -> (String, bool) {
    let shown = to_value(&config.resolved_for_print());
    let mut value = shown.clone();
    crate::secrets::scrub_urls_value(&mut value);
    let redacted = value != shown;
    let mut text = toml::to_string(&value).unwrap_or_default();
    let unset = config.unset();
    if !unset.is_empty() {
        // Before the first table (`[fail_under]`): a key uncommented there
        // belongs to the configuration, not to the table.
        let mut notes = String::from("# Not set (uncomment to set):\n");
        for (key, meaning) in unset {
            notes.push_str(&format!("# {key} = ...  ({meaning})\n"));
        }
        let at = text
            .match_indices('\n')
            .map(|(i, _)| i + 1)
            .find(|&i| text[i..].starts_with('['))
            .map(|i| i - usize::from(text[..i].ends_with("\n\n")))
            .unwrap_or(text.len());
        if at == text.len() && !text.ends_with('\n') && !text.is_empty() {
            text.push('\n');
        }
        let at = at.min(text.len());
        text.insert_str(at, &notes);
    }
    (text, redacted)
}

/// Reads a job's configuration from a `.toml` or `.json` file: keys are the
/// `Config` fields (the long flags' names with `_`), missing keys keep
/// their defaults, an unknown key is an error naming it and the file.
pub fn read_config<C: JobConfig>(path: &Path) -> Result<C, ConfigError> {
    let fail = |message: String| ConfigError::File {
        path: path.to_path_buf(),
        message: crate::corpus::bound_message(&message).into_owned(),
    };
    let text = read_config_text(path).map_err(fail)?;
    let text = crate::corpus::strict_json::strip_bom(&text);
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let (config, keys): (C, Vec<String>) = match ext.as_deref() {
        Some("toml") => {
            let config = toml::from_str(text).map_err(|e| fail(one_line(&e.to_string())))?;
            let keys = toml::from_str::<toml::Table>(text)
                .map(|t| t.keys().cloned().collect())
                .unwrap_or_default();
            (config, keys)
        }
        Some("json") => {
            let value = crate::corpus::strict_json::parse_str(text)
                .map_err(|e| fail(format!("{}:{}: {e}", e.line(), e.column())))?;
            let keys = value
                .as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default();
            (
                serde_json::from_value(value).map_err(|e| fail(e.to_string()))?,
                keys,
            )
        }
        _ => return Err(fail("a config file ends in .toml or .json".into())),
    };
    check_version(&config).map_err(fail)?;
    // TOML's `nan` and `inf` would come back as JSON nulls once flags are
    // laid over the file (`settings::overlay`): refused here, by key.
    if let serde_json::Value::Object(object) = to_value(&config) {
        if let Some(key) = object.iter().find(|(_, v)| holds_null(v)).map(|(k, _)| k) {
            return Err(fail(format!("key `{key}`: not a finite number")));
        }
    }
    // A value of the file's out of range is the file's error, named by
    // its key (a flag cannot be blamed for it).
    if let Err(ConfigError::Invalid { field, message }) = config.validate() {
        let key = field.trim_start_matches('-').replace('-', "_");
        if keys.contains(&key) {
            return Err(fail(format!("key `{key}` ({field}): {message}")));
        }
    }
    Ok(config)
}

/// Whether a serialized setting holds a null: a configuration skips its
/// unset optional settings, so a null is a number JSON cannot hold (NaN,
/// an infinity).
fn holds_null(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Null => true,
        serde_json::Value::Array(items) => items.iter().any(holds_null),
        serde_json::Value::Object(map) => map.values().any(holds_null),
        _ => false,
    }
}

/// Largest configuration file read, in bytes: a file over 1 MiB is not a
/// configuration (and is refused before it is read).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A configuration file's text: at most [`MAX_CONFIG_BYTES`], UTF-8.
fn read_config_text(path: &Path) -> Result<String, String> {
    use std::io::Read as _;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!(
            "over {} bytes: not a configuration file",
            MAX_CONFIG_BYTES
        ));
    }
    String::from_utf8(bytes)
        .map_err(|e| format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()))
}

/// A configuration's `version` must be this tool's.
fn check_version<C: JobConfig>(config: &C) -> Result<(), String> {
    let version = serde_json::to_value(config)
        .ok()
        .and_then(|v| v.get("version").and_then(serde_json::Value::as_u64));
    match version {
        Some(v) if v != u64::from(C::VERSION) => Err(format!(
            "version {v} is not this tool's {} config version {}",
            C::COMMAND,
            C::VERSION
        )),
        _ => Ok(()),
    }
}

/// A configuration from a JSON value (named `path` in errors): unknown
/// keys and wrong types refused, the version checked, every range
/// validated.
pub fn config_of_value<C: JobConfig>(
    path: &Path,
    value: serde_json::Value,
) -> Result<C, ConfigError> {
    let fail = |message: String| ConfigError::File {
        path: path.to_path_buf(),
        message,
    };
    let unknown = match &value {
        serde_json::Value::Object(map) => {
            let known = field_names::<C>();
            map.keys().find(|k| !known.contains(&k.as_str())).cloned()
        }
        _ => None,
    };
    let config: C = serde_json::from_value(value).map_err(|e| match &unknown {
        Some(key) => ConfigError::UnknownKey {
            path: path.to_path_buf(),
            key: key.clone(),
            message: e.to_string(),
        },
        None => fail(e.to_string()),
    })?;
    check_version(&config).map_err(fail)?;
    config.validate()?;
    Ok(config)
}

/// The keys a configuration takes, as serde knows them (the names
/// `deny_unknown_fields` accepts): read from the struct's own
/// deserializer, which hands its field names to the deserializer it is
/// given.
pub(crate) fn field_names<C: DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{Error as _, Visitor};
    type Failed = serde::de::value::Error;
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> serde::Deserializer<'de> for Probe<'_> {
        type Error = Failed;
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Failed> {
            *self.0 = fields;
            Err(Failed::custom("fields read"))
        }
        fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Failed> {
            Err(Failed::custom("not a struct"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = C::deserialize(Probe(&mut fields));
    fields
}

/// A configuration as TOML (what `--print-config` prints).
pub fn to_toml<C: Serialize>(config: &C) -> String {
    toml::to_string(config).unwrap_or_default()
}

/// A configuration as JSON (what the manifest records).
pub fn to_value<C: Serialize>(config: &C) -> serde_json::Value {
    serde_json::to_value(config).unwrap_or(serde_json::Value::Null)
}

/// A multi-line parser message (location, excerpt, caret, reason) as one
/// line: the location and the reason.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('|') && !l.contains(" | "))
        .collect();
    match lines.as_slice() {
        [] => String::new(),
        [only] => (*only).to_string(),
        [first, .., last] => format!("{first}: {last}"),
    }
}

/// A number in `[lo, hi]` (finite), or an error naming the setting.
pub(crate) fn check_in(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ConfigError::Invalid {
            field: field.into(),
            message: format!(
                "must lie in [{lo}, {hi}], got {}",
                crate::corpus::number_preview(v)
            ),
        })
    }
}

/// The embedding forward passes a configuration may name (`engine`).
pub const ENGINES: [&str; 2] = ["fused", "candle-bert"];

/// Checks an `engine` setting: one of [`ENGINES`].
pub(crate) fn check_engine(field: &str, engine: &str) -> Result<(), ConfigError> {
    if ENGINES.contains(&engine) {
        Ok(())
    } else {
        Err(ConfigError::Invalid {
            field: field.into(),
            message: format!("must be fused or candle-bert, got {engine:?}"),
        })
    }
}

/// The forward pass an `engine` setting names (checked with
/// [`check_engine`]).
#[cfg(feature = "semantic")]
pub(crate) fn engine_of(
    field: &str,
    engine: &str,
) -> Result<crate::semantic::EngineKind, ConfigError> {
    check_engine(field, engine)?;
    Ok(if engine == "candle-bert" {
        crate::semantic::EngineKind::CandleBert
    } else {
        crate::semantic::EngineKind::Fused
    })
}

/// Checks the `--fail-under` gates of a `C` run: each metric one that
/// `C::COMMAND` writes ([`JobConfig::GATES`]), each bound in its metric's
/// range; the error says which gate and why.
pub(crate) fn check_gates<C: JobConfig>(
    fail_under: &std::collections::BTreeMap<String, f64>,
) -> Result<(), String> {
    crate::gates::check(C::COMMAND, C::GATES, &crate::gates::from_table(fail_under))
}

/// [`check_gates`] as a configuration error of `--fail-under`.
pub(crate) fn check_fail_under<C: JobConfig>(
    fail_under: &std::collections::BTreeMap<String, f64>,
) -> Result<(), ConfigError> {
    check_gates::<C>(fail_under).map_err(|message| ConfigError::Invalid {
        field: "--fail-under".into(),
        message,
    })
}

/// Checks before a run that its JUnit report can be written to `path`:
/// its folder exists and the path is not a folder.
pub fn check_junit(path: &Path) -> Result<(), JobError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(JobError::Input(format!(
            "--junit {}: the folder {} does not exist",
            path.display(),
            dir.display()
        )));
    }
    crate::report::check_writable(path).map_err(|e| match e {
        // A destination that is no regular file keeps its own error.
        e @ crate::report::ReportError::NotRegular { .. } => JobError::from(e),
        e => JobError::Input(format!("--junit: {e}")),
    })
}

/// The checks of a finished run (`cases`: each check's name and, when it
/// failed, why): each failure on stderr after `prefix`, the JUnit report
/// of `command` written to `junit`; the exit code:
/// [`crate::gates::EXIT_GATE`] when one failed, else 0.
pub fn conclude(
    command: &str,
    prefix: &str,
    cases: &[(String, Option<String>)],
    junit: Option<&Path>,
) -> Result<u8, JobError> {
    for failure in cases.iter().filter_map(|(_, f)| f.as_ref()) {
        errln!("{prefix}: {failure}");
    }
    if let Some(path) = junit {
        let xml = crate::gates::junit_xml(command, cases);
        crate::report::write_atomic(path, xml.as_bytes())?;
    }
    Ok(match cases.iter().any(|(_, f)| f.is_some()) {
        true => crate::gates::EXIT_GATE,
        false => 0,
    })
}

/// The quality gates of a `C` run (its `fail_under` table) against its
/// `summary` (as `--json` prints it), [`conclude`]d.
pub fn conclude_gates<C: JobConfig>(
    table: &std::collections::BTreeMap<String, f64>,
    summary: &impl Serialize,
    junit: Option<&Path>,
) -> Result<u8, JobError> {
    let gates = crate::gates::from_table(table);
    if gates.is_empty() && junit.is_none() {
        return Ok(0);
    }
    let summary = to_value(summary);
    let outcomes = crate::gates::results(C::GATES, &gates, &summary);
    let cases = crate::gates::cases(&outcomes);
    conclude(C::COMMAND, "quality gate failed", &cases, junit)
}

/// Checks a fraction setting (finite, in [0, 1]).
pub(crate) fn check_unit(field: &str, v: f64) -> Result<(), ConfigError> {
    check_in(field, v, 0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::{config_of_value, field_names, ConfigError};
    use std::path::Path;

    #[test]
    fn an_unknown_key_is_told_apart_by_the_keys_not_the_message() {
        let fields = field_names::<super::evaluate::Config>();
        for key in [
            "out",
            "match",
            "fuzzy_threshold",
            "speaker_map",
            "fail_under",
        ] {
            assert!(fields.contains(&key), "{key} in {fields:?}");
        }
        let path = Path::new("config");
        let unknown = serde_json::json!({"seed": 1, "bogus": true});
        match config_of_value::<super::evaluate::Config>(path, unknown) {
            Err(ConfigError::UnknownKey { key, message, .. }) => {
                assert_eq!(key, "bogus");
                assert!(message.contains("bogus"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // A known key of the wrong type is another error.
        let wrong = serde_json::json!({"seed": "forty-two"});
        assert!(matches!(
            config_of_value::<super::evaluate::Config>(path, wrong),
            Err(ConfigError::File { .. })
        ));
        // Every job's configuration gives its keys.
        assert!(field_names::<super::check_report::Config>().contains(&"min_words"));
        assert!(field_names::<super::hotpot::Config>().contains(&"format"));
    }

    #[test]
    fn a_config_files_nan_or_inf_is_refused_by_key() {
        let dir = std::env::temp_dir().join(format!("ce-config-nan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (text, key) in [
            (
                "bleu_smooth = \"floor\"\nbleu_smooth_value = nan\n",
                "bleu_smooth_value",
            ),
            ("[fail_under]\nbleu = inf\n", "fail_under"),
        ] {
            let path = dir.join("c.toml");
            std::fs::write(&path, text).unwrap();
            let e = read_config::<lexical::Config>(&path)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("key `{key}`: not a finite number")),
                "{text}: {e}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    use super::*;

    #[test]
    fn a_mapped_input_reads_as_the_same_text_and_errors_as_a_read_one() {
        let dir = std::env::temp_dir().join(format!("ce-input-bytes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let unit = "abc é€😀 ";
        let good = unit.repeat(200_000);
        let path = dir.join("good.json");
        std::fs::write(&path, &good).unwrap();
        let mapped = map_input(&path).unwrap();
        assert!(matches!(mapped, InputBytes::Mapped(_)));
        assert_eq!(mapped.text(&path).unwrap(), good);
        // A bad byte, first or last, or a char cut at the end: the error
        // names the file and the first bad byte, mapped or read.
        let mut cut = good.clone().into_bytes();
        cut.extend_from_slice(&"😀".as_bytes()[..2]);
        let mut first = good.clone().into_bytes();
        first[0] = 0xFF;
        let mut last = good.clone().into_bytes();
        let n = last.len();
        last[n - 1] = 0xFF;
        for (bytes, at) in [(first, 0), (last, n - 1), (cut, n)] {
            let bad = dir.join("bad.json");
            std::fs::write(&bad, &bytes).unwrap();
            let read = InputBytes::Read(bytes).text(&bad).unwrap_err().to_string();
            let mapped = map_input(&bad).unwrap().text(&bad).unwrap_err().to_string();
            assert_eq!(read, mapped);
            assert!(
                read.contains("bad.json") && read.ends_with(&format!("(byte {at})")),
                "{read}"
            );
        }
        drop(mapped);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
