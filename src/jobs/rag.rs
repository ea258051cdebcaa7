//! The RAG API as typed jobs: `rag ask` (one question) and `rag run` (a
//! resumable, journaled batch with citation checks and scores).
//!
//! A batch's folder is its own journal: `run.json` (the settings, no
//! secret) and `responses.jsonl` (one line per outcome) are written first
//! and the folder stays live, so a killed run resumes. When every question
//! has an outcome, [`finish_run`] summarizes the journal. `rerun` calls
//! [`resummarize`]: the summary again from the journal, without the
//! network.
//!
//! ```
//! use corpus_eval::jobs::rag::Config;
//! use corpus_eval::jobs::JobConfig;
//!
//! let c = Config { k: 0, ..Config::default() };
//! assert!(c.validate().is_err(), "k lies in 1..=10000");
//! assert_eq!(Config::default().model, "openai:gpt-4o-mini");
//! ```

use super::{check_in, ConfigError, JobConfig, JobError};
use crate::citations::MatchLevel;
use crate::lexicon::Lexicon;
use crate::rag::batch::{run_batch, Prepared, Tally, Workers};
use crate::rag::client::{ClientConfig, RagClient, AUTH_ENV, URL_ENV};
use crate::rag::journal::{last_outcomes, Journal};
use crate::rag::questions::{parse_rag_questions, RagQuestion};
use crate::rag::summary::summarize_run;
use crate::rag::verify::CheckConfig;
use crate::rag::{parse_filter, request_body};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use crate::report::{write_json, RunFolder};
use crate::secrets::redact_url;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// Longest `timeout`, seconds.
pub const MAX_TIMEOUT_S: f64 = 3600.0;
/// Most `max_retries`.
pub const MAX_RETRIES: u32 = 100;
/// Longest `backoff_ms` (a retry never waits more than a minute anyway).
pub const MAX_BACKOFF_MS: u64 = 60_000;

/// The settings of `corpus-eval rag run` (and the API settings of `rag
/// ask`, tagged `api`); the defaults are the command line's. Each field is
/// a key of a `--config` file and a flag.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    #[shared]
    pub out: PathBuf,
    /// Requests in flight at once, 1 to 256.
    #[setting(default = 4)]
    pub concurrency: usize,
    /// Seed of the bootstrap confidence intervals.
    #[setting(default = 42)]
    pub seed: u64,
    /// The API endpoint (default: $EVALUATION_API_URL).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(tag = "api", value_name = "URL")]
    pub api_url: Option<String>,
    /// Documents to retrieve, 1 to 10000 (a question row may set its own).
    #[setting(default = 10, tag = "api")]
    pub k: u64,
    /// Metadata filter KEY=VALUE (PROJECT, YEAR, MONTH, NAME, COUNTRY,
    /// GEOGRAPHY, FILE, TYPE, RECORD LANG); repeatable; numbers stay
    /// numbers.
    #[setting(tag = "api", repeat, value_name = "KEY=VALUE")]
    pub filter: Vec<String>,
    /// The LangChain-style model name (e.g. openai:gpt-4o-mini, groq:...).
    #[setting(default = "openai:gpt-4o-mini".into(), tag = "api")]
    pub model: String,
    /// Per-request timeout in seconds, 0.001 to 3600.
    #[setting(default = 60.0, tag = "api")]
    pub timeout: f64,
    /// Retries after the first attempt, 0 to 100 (connection errors,
    /// timeouts, 429, 5xx, replies that break the contract).
    #[setting(default = 5, tag = "api")]
    pub max_retries: u32,
    /// First backoff in milliseconds, 0 to 60000 (doubled per retry,
    /// +-25% jitter; Retry-After wins when the server sends it).
    #[setting(default = 500, tag = "api")]
    pub backoff_ms: u64,
    #[shared(tag = "api")]
    pub match_level: MatchLevel,
    #[shared(tag = "api")]
    pub fuzzy_threshold: f64,
    #[shared(tag = "api")]
    pub fuzzy_search: Option<crate::citations::FuzzySearch>,
    /// It scores the answers.
    #[shared]
    pub wordnet: Option<PathBuf>,
    /// Here, the labels inside the passages.
    #[shared(tag = "api")]
    pub speaker_pattern: Option<String>,
    #[shared(tag = "api")]
    pub interviewer_labels: Option<Vec<String>>,
    #[shared(tag = "api")]
    pub fillers: Option<Vec<String>>,
    #[shared(tag = "api")]
    pub meaning_words: Option<PathBuf>,
    /// Here, the labels inside the passages.
    #[shared(tag = "api")]
    pub speaker_aliases: Option<PathBuf>,
    /// The records here are the questions.
    #[shared]
    pub shard: Option<crate::shard::Shard>,
    #[shared]
    pub fail_under: std::collections::BTreeMap<String, f64>,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "rag run";
    const GATES: &'static [crate::gates::Metric] = crate::gates::RAG;
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)?;
        check_in(
            "--concurrency",
            self.concurrency as f64,
            1.0,
            crate::rag::batch::MAX_CONCURRENCY as f64,
        )?;
        check_in("--timeout", self.timeout, 0.001, MAX_TIMEOUT_S)?;
        check_in(
            "--max-retries",
            self.max_retries.into(),
            0.0,
            MAX_RETRIES.into(),
        )?;
        check_in(
            "--backoff-ms",
            self.backoff_ms as f64,
            0.0,
            MAX_BACKOFF_MS as f64,
        )?;
        check_in(
            "--k",
            self.k as f64,
            1.0,
            crate::rag::questions::MAX_K as f64,
        )?;
        check_in("--fuzzy-threshold", self.fuzzy_threshold, 0.0, 1.0)?;
        self.check()?;
        self.filters().map(|_| ())
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
        super::unset_notes!(self;
            api_url => "$EVALUATION_API_URL",
            wordnet => "the embedded WordNet 3.0 lexicon",
            speaker_aliases => "no aliases",
            meaning_words => "the English lists",
            shard => "every question: no shard")
    }
}

impl Config {
    /// The filters as a JSON object (numbers stay numbers).
    pub fn filters(&self) -> Result<Map<String, Value>, ConfigError> {
        let mut m = Map::new();
        for f in &self.filter {
            let (k, v) = parse_filter(f).map_err(|e| match e {
                crate::rag::RagError::Filter { arg, message } => ConfigError::Invalid {
                    field: format!("--filter {arg:?}:"),
                    message,
                },
                other => ConfigError::Invalid {
                    field: "--filter".into(),
                    message: other.to_string(),
                },
            })?;
            m.insert(k, v);
        }
        Ok(m)
    }

    /// How citations are checked (the speaker pattern and labels checked,
    /// the aliases file read); an invalid setting is an error, never the
    /// defaults in its place.
    pub fn check(&self) -> Result<CheckConfig, ConfigError> {
        Ok(CheckConfig {
            level: self.match_level,
            fuzzy_threshold: self.fuzzy_threshold,
            speakers: super::speakers::speaker_config(
                &self.speaker_pattern,
                &self.interviewer_labels,
                &Default::default(),
                self.speaker_aliases.as_deref(),
            )?,
            normalize: super::evaluate::normalize_options(&self.fillers),
            fuzzy_search: self.fuzzy_search.unwrap_or_default(),
            meaning: super::evaluate::meaning_words(self.meaning_words.as_deref())?,
        })
    }

    /// The request body of one question (its own k, filter and model win
    /// over these and over `filter`, the parsed [`Config::filters`]).
    pub fn request(&self, q: &RagQuestion, filter: &Map<String, Value>) -> Prepared {
        Prepared {
            id: q.id.clone(),
            question: q.question.clone(),
            body: request_body(
                &q.question,
                q.k.unwrap_or(self.k),
                q.filter.as_ref().unwrap_or(filter),
                q.model.as_deref().unwrap_or(&self.model),
            ),
            scoring: q.qtype.clone().zip(q.metric.clone()),
        }
    }
}

/// The client, with the URL from the configuration, the environment or
/// (on resume) the run's, and the auth string from the environment.
pub fn client(config: &Config, fallback_url: Option<&str>) -> Result<RagClient, JobError> {
    config.validate()?;
    let url = config
        .api_url
        .clone()
        .or_else(|| std::env::var(URL_ENV).ok().filter(|u| !u.trim().is_empty()))
        .or_else(|| fallback_url.map(str::to_string))
        .ok_or_else(|| JobError::Input(format!("no API URL: pass --api-url or set ${URL_ENV}")))?;
    let auth = std::env::var(AUTH_ENV).ok().filter(|a| !a.is_empty());
    if auth.is_none() {
        errln!("warning: ${AUTH_ENV} is not set; requests carry no auth");
    }
    let client_config = ClientConfig {
        url,
        timeout: Duration::try_from_secs_f64(config.timeout).map_err(|_| {
            JobError::Input(format!("--timeout {} is out of range", config.timeout))
        })?,
        max_retries: config.max_retries,
        backoff_base: Duration::from_millis(config.backoff_ms),
        max_wait: Duration::from_secs(60),
    };
    Ok(RagClient::new(client_config, auth)?)
}

/// What a run folder's run.json records (no secret: the URL without
/// credentials), typed both ways: a resume reads it back as this type, and
/// a missing or malformed field is an error naming the file and the field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSettings {
    /// The question file (absolute).
    pub questions: String,
    /// Its SHA-256 when the run started.
    pub questions_sha256: String,
    /// The API URL, credentials and query values redacted.
    pub api_url: String,
    /// True when the stored URL differs from the one used (it cannot be
    /// used as is).
    pub api_url_redacted: bool,
    /// Passages asked for.
    pub k: u64,
    /// The model asked for.
    pub model: String,
    /// The retrieval filter.
    pub filter: Vec<String>,
    /// The request timeout, in seconds.
    pub timeout_s: f64,
    /// Retries per request.
    pub max_retries: u32,
    /// The first retry's backoff.
    pub backoff_ms: u64,
    /// Requests at once.
    pub concurrency: usize,
    /// The weakest verdict that counts as found.
    #[serde(rename = "match")]
    pub match_level: MatchLevel,
    /// The fuzzy threshold.
    pub fuzzy_threshold: f64,
    /// The speaker pattern, when set.
    pub speaker_pattern: Option<String>,
    /// The interviewer labels, when set.
    pub interviewer_labels: Option<Vec<String>>,
    /// The bootstrap seed.
    pub seed: u64,
    /// The shard, when the run is one.
    pub shard: Option<crate::shard::Shard>,
}

impl RunSettings {
    /// Reads a run folder's run.json; a missing or malformed field is an
    /// error naming the file and the field.
    pub fn read(path: &Path) -> Result<RunSettings, JobError> {
        let text = super::read_text(path)?;
        let mut de = serde_json::Deserializer::from_str(&text);
        serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let field = e.path().to_string();
            let inner = e.into_inner();
            if inner.is_syntax() || inner.is_eof() {
                JobError::from(crate::corpus::json_error(path, &inner))
            } else {
                JobError::Input(format!(
                    "{}: run.json: field `{field}`: {inner}",
                    path.display()
                ))
            }
        })
    }

    /// As JSON (what the manifest records).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// What a run folder's run.json records for a run starting now.
pub fn run_settings(config: &Config, questions: &Path, digest: &str, url: &str) -> RunSettings {
    RunSettings {
        questions: questions.display().to_string(),
        questions_sha256: digest.to_string(),
        api_url: redact_url(url),
        api_url_redacted: redact_url(url) != url,
        k: config.k,
        model: config.model.clone(),
        filter: config.filter.clone(),
        timeout_s: config.timeout,
        max_retries: config.max_retries,
        backoff_ms: config.backoff_ms,
        concurrency: config.concurrency,
        match_level: config.match_level,
        fuzzy_threshold: config.fuzzy_threshold,
        speaker_pattern: config.speaker_pattern.clone(),
        interviewer_labels: config.interviewer_labels.clone(),
        seed: config.seed,
        shard: config.shard,
    }
}

/// What a resume reads back from run.json.
#[derive(Debug, Clone)]
pub struct Resumed {
    /// The run folder.
    pub folder: PathBuf,
    /// The question file.
    pub questions: PathBuf,
    /// Its SHA-256 when the run started.
    pub digest: String,
    /// The stored API URL, unless it was stored without credentials.
    pub url: Option<String>,
    /// run.json itself (the manifest's settings).
    pub settings: RunSettings,
    /// Settings given now that the run's own settings override.
    pub ignored: Vec<&'static str>,
}

/// Reads a run folder's run.json back into the configuration: what shapes
/// a request or a verdict (k, model, filter, match, fuzzy threshold, speaker
/// settings, seed)
/// comes from run.json, so the run's answers stay comparable; the URL,
/// timeout, retries and concurrency given now win. `given` is the
/// configuration from the flags, to say which of them are ignored.
pub fn resume(dir: &Path, config: &mut Config, questions_given: bool) -> Result<Resumed, JobError> {
    let path = dir.join("run.json");
    if !path.exists() {
        return Err(JobError::Input(format!(
            "{}: not a rag run folder (no run.json)",
            dir.display()
        )));
    }
    let s = RunSettings::read(&path)?;
    let (questions, digest, k, model, filter) = (
        PathBuf::from(&s.questions),
        s.questions_sha256.clone(),
        s.k,
        s.model.clone(),
        s.filter.clone(),
    );
    let defaults = Config::default();
    let mut ignored = Vec::new();
    if config.k != defaults.k && config.k != k {
        ignored.push("--k");
    }
    if config.model != defaults.model && config.model != model {
        ignored.push("--model");
    }
    if !config.filter.is_empty() && config.filter != filter {
        ignored.push("--filter");
    }
    if questions_given {
        ignored.push("QUESTIONS");
    }
    config.k = k;
    config.model = model;
    config.filter = filter;
    config.match_level = s.match_level;
    config.fuzzy_threshold = s.fuzzy_threshold;
    config.seed = s.seed;
    config.speaker_pattern = s.speaker_pattern.clone();
    config.interviewer_labels = s.interviewer_labels.clone();
    config.shard = s.shard;
    // A URL stored without its credentials or query cannot be used as is.
    let url = (!s.api_url_redacted).then(|| s.api_url.clone());
    Ok(Resumed {
        folder: dir.to_path_buf(),
        questions,
        digest,
        url,
        settings: s,
        ignored,
    })
}

/// A batch ready to ask: the folder (created, or resumed), the journal and
/// the questions still without a valid reply.
pub struct Batch {
    /// The run folder (absolute).
    pub folder: PathBuf,
    /// The question file.
    pub questions_path: PathBuf,
    /// Its bytes (as text).
    pub questions_text: String,
    /// Every question of the file.
    pub questions: Vec<RagQuestion>,
    /// run.json's settings.
    pub run_json: Value,
    /// The journal, open for appending.
    pub journal: Journal,
    /// Questions to ask in this session.
    pub todo: Vec<Prepared>,
    /// Bytes cut from a torn last journal line.
    pub torn_bytes: u64,
    /// True when the run was resumed.
    pub resumed: bool,
    /// The client.
    pub client: Arc<RagClient>,
    /// WordNet (answer scoring).
    pub lexicon: Arc<Lexicon>,
}

/// Opens a batch: checks everything first (the question file, its digest
/// against a resumed run's, the client), then creates the folder, which
/// becomes visible only once run.json and the (empty) journal are durable
/// inside it, so a visible folder is always resumable.
pub fn open_batch(
    config: &Config,
    questions: &Path,
    resumed: Option<Resumed>,
    started: SystemTime,
) -> Result<Batch, JobError> {
    config.validate()?;
    let q_bytes = super::read_input(questions)?;
    let q_digest = crate::text::hash::sha256_hex(&q_bytes);
    if let Some(r) = &resumed {
        if q_digest != r.digest {
            return Err(JobError::Input(format!(
                "{}: the question file changed since the run started (sha256 {} -> {}); start a new run",
                questions.display(),
                r.digest.get(..12).unwrap_or(&r.digest),
                q_digest.get(..12).unwrap_or(&q_digest)
            )));
        }
    }
    let q_text = super::utf8(questions, q_bytes)?;
    let mut all = parse_rag_questions(questions, &q_text)?;
    if all.is_empty() {
        return Err(JobError::Input(format!(
            "{}: no questions",
            questions.display()
        )));
    }
    if let Some(shard) = config.shard {
        all.retain(|q| shard.contains(&q.id));
    }
    let stored_url = resumed.as_ref().and_then(|r| r.url.clone());
    let client = Arc::new(client(config, stored_url.as_deref())?);
    let lexicon = Arc::new(super::load_lexicon(config.wordnet.as_deref())?);
    let is_resumed = resumed.is_some();
    let (folder, run_json) = match resumed {
        Some(r) => (r.folder, r.settings.to_value()),
        None => {
            let abs = std::fs::canonicalize(questions).unwrap_or(questions.to_path_buf());
            let settings = run_settings(config, &abs, &q_digest, &client.config().url);
            let staged = RunFolder::create(&config.out, started)?;
            let io = |e: std::io::Error| crate::report::ReportError::Io {
                path: staged.file("responses.jsonl"),
                source: e,
            };
            let made = std::fs::File::create(staged.file("responses.jsonl"))
                .and_then(|f| f.sync_all())
                .map_err(io)
                .and_then(|()| write_json(&staged.file("run.json"), &settings));
            match made {
                Ok(()) => (staged.finish()?, settings.to_value()),
                Err(e) => {
                    staged.abandon();
                    return Err(e.into());
                }
            }
        }
    };
    // Messages name the folder absolutely, so the resume hint works from anywhere.
    let folder = std::fs::canonicalize(&folder).unwrap_or(folder);
    let journal_path = folder.join("responses.jsonl");
    let (journal, answered) =
        Journal::open(&journal_path).map_err(|source| crate::report::ReportError::Io {
            path: journal_path.clone(),
            source,
        })?;
    let filter = config.filters()?;
    let todo: Vec<Prepared> = all
        .iter()
        .filter(|q| answered.last_ok.get(&q.id) != Some(&true))
        .map(|q| config.request(q, &filter))
        .collect();
    Ok(Batch {
        folder,
        questions_path: questions.to_path_buf(),
        questions_text: q_text,
        questions: all,
        run_json,
        journal,
        todo,
        torn_bytes: answered.torn_bytes,
        resumed: is_resumed,
        client,
        lexicon,
    })
}

impl Batch {
    /// Asks the questions still to ask, journaling each outcome; stops
    /// cleanly when `stop` is set. `progress(done, failed)` after each.
    pub fn ask(
        &mut self,
        config: &Config,
        stop: &AtomicBool,
        progress: impl FnMut(usize, usize),
    ) -> Result<(Tally, f64), JobError> {
        let workers = Workers {
            client: Arc::clone(&self.client),
            concurrency: config.concurrency,
            check: config.check()?,
            lexicon: Arc::clone(&self.lexicon),
        };
        let todo = std::mem::take(&mut self.todo);
        let t0 = Instant::now();
        let tally =
            run_batch(&workers, todo, &mut self.journal, stop, progress).map_err(|source| {
                crate::report::ReportError::Io {
                    path: self.journal.path().to_path_buf(),
                    source,
                }
            })?;
        Ok((tally, t0.elapsed().as_secs_f64()))
    }
}

#[cfg(feature = "cli")]
/// One question asked (`rag ask`): the reply checked, as `--json` prints
/// it and as text, secrets redacted in both.
#[derive(Debug)]
pub struct Answer {
    /// The request, the response, attempts, time, each citation's check
    /// and the existence score.
    pub json: Value,
    /// The answer, each citation's verdict and the existence score.
    pub text: String,
}

#[cfg(feature = "cli")]
/// Asks `question` with the API settings of `config` and checks the
/// reply's citations; no valid reply after every attempt is an error.
pub fn ask(config: &Config, question: &str) -> Result<Answer, JobError> {
    config.validate()?;
    let client = client(config, None)?;
    let body = request_body(question, config.k, &config.filters()?, &config.model);
    let outcome = client.ask(&body);
    let Some(reply) = &outcome.reply else {
        return Err(crate::rag::RagError::NoReply {
            message: outcome.error.clone().unwrap_or_else(|| "no reply".into()),
            attempts: outcome.attempts,
        }
        .into());
    };
    let (checks, existence) = crate::rag::verify::check_citations(reply, &config.check()?);
    // Checked on the reply as received; shown with the secrets redacted.
    let redactor = client.redactor();
    let mut citations = serde_json::to_value(&checks).unwrap_or(Value::Null);
    redactor.redact_value(&mut citations);
    let answer = redactor.redact(&reply.answer);
    let text =
        crate::views::text::rag_checks(&answer, &checks, existence, config.match_level, redactor);
    Ok(Answer {
        json: json!({"request": body, "response": outcome.response, "attempts": outcome.attempts,
                     "elapsed_ms": outcome.elapsed_ms, "citations": citations, "existence_score": existence}),
        text,
    })
}

/// How a `rag run` session ended.
#[derive(Debug)]
pub enum Ended {
    /// The stop flag ended it: every outcome so far is journaled; the
    /// message says how many were asked and how to resume.
    Interrupted(String),
    /// Every question to ask was asked and the run folder finished.
    Finished(Finished),
}

/// A finished `rag run` session.
#[derive(Debug)]
pub struct Finished {
    /// The run folder (absolute).
    pub folder: PathBuf,
    /// summary.json.
    pub summary: Value,
    /// Questions without a valid reply.
    pub failed: u64,
    /// This session's figures: asked, seconds, requests per second, when
    /// it finished.
    pub session: String,
}

#[cfg(feature = "cli")]
impl Finished {
    /// What `rag run` prints: the counts, existence and score with their
    /// intervals, then this session's figures.
    pub fn text(&self) -> String {
        let s = &self.summary;
        format!(
            "{} questions: {} answered, {} failed; existence {}; score {}\n{}",
            s["questions"],
            s["answered"],
            self.failed,
            crate::views::text::mean_with_ci(&s["existence"]),
            crate::views::text::mean_with_ci(&s["score"]),
            self.session
        )
    }
}

/// One `rag run` session: the questions of `questions`, or (with
/// `resume`) of the run folder's run.json, those without a valid reply
/// asked and journaled, then the run folder summarized. Notes (a torn
/// journal line cut, a resumed run, settings a resume ignores) go to
/// stderr; progress is reported as the stage `asking`; `stop` ends the
/// session cleanly between requests.
pub fn session(
    mut config: Config,
    questions: Option<&Path>,
    resume: Option<&Path>,
    stop: &AtomicBool,
    started: SystemTime,
) -> Result<Ended, JobError> {
    let (questions, resumed) = match resume {
        Some(dir) => {
            let r = self::resume(dir, &mut config, questions.is_some())?;
            if !r.ignored.is_empty() {
                errln!(
                    "warning: resuming keeps the run's settings from {}; ignored: {}",
                    dir.join("run.json").display(),
                    r.ignored.join(", ")
                );
            }
            (r.questions.clone(), Some(r))
        }
        None => match questions {
            Some(q) => (q.to_path_buf(), None),
            None => {
                return Err(JobError::Input(
                    "rag run needs QUESTIONS (or --resume RUN_DIR)".into(),
                ))
            }
        },
    };
    let mut batch = open_batch(&config, &questions, resumed, started)?;
    if batch.torn_bytes > 0 {
        errln!(
            "note: cut a torn last line ({} bytes) from responses.jsonl",
            batch.torn_bytes
        );
    }
    let (folder, n_todo) = (batch.folder.clone(), batch.todo.len());
    if batch.resumed {
        let skipped = batch.questions.len() - n_todo;
        errln!(
            "resuming {}: {skipped} answered, {n_todo} to ask",
            folder.display()
        );
    }
    crate::progress::start("asking", n_todo as u64);
    let (mut shown, mut shown_failed) = (0, 0);
    let (tally, secs) = batch.ask(&config, stop, |done, failed| {
        crate::progress::advance(done.saturating_sub(shown) as u64);
        shown = done;
        // The note changes only when another request failed.
        if failed != shown_failed {
            crate::progress::note(&format!("asking, {failed} failed"));
            shown_failed = failed;
        }
    })?;
    crate::progress::finish();
    if tally.interrupted {
        return Ok(Ended::Interrupted(format!(
            "interrupted: {} of {n_todo} asked in this session ({} failed); every outcome so far is in {}\nresume with: corpus-eval rag run --resume {}",
            tally.done,
            tally.failed,
            batch.journal.path().display(),
            folder.display()
        )));
    }
    let settings = session_settings(&config, &batch, &tally, secs);
    let summary = finish_run(&config, &batch, settings, started)?;
    Ok(Ended::Finished(Finished {
        folder,
        failed: summary["failed"].as_u64().unwrap_or(0),
        summary,
        session: format!(
            "this session: {} asked in {secs:.2} s ({:.0} req/s), finished {}",
            tally.done,
            tally.done as f64 / secs.max(1e-9),
            crate::report::rfc3339(SystemTime::now())
        ),
    }))
}

/// The summary of a run from its journal's last outcome per question, and
/// its signature. A question without any journal line counts as failed.
///
/// ```
/// use corpus_eval::jobs::rag::{summarize, Config};
/// use corpus_eval::lexicon::Lexicon;
/// use corpus_eval::rag::RagQuestion;
///
/// let q = |id: &str| RagQuestion {
///     id: id.into(),
///     question: "Who ran the garden?".into(),
///     k: None,
///     filter: None,
///     model: None,
///     qtype: None,
///     metric: None,
/// };
/// let dir = tempfile::tempdir().unwrap();
/// let journal = dir.path().join("responses.jsonl");
/// // q1 answered (one of two citations found), q2 never answered.
/// std::fs::write(&journal, r#"{"id":"q1","error":null,"attempts":1,"existence_score":0.5,"score":null,"citations":[{"verdict":"exact","found":true},{"verdict":"not_found","found":false}]}
/// "#).unwrap();
/// let lexicon = Lexicon::embedded().unwrap();
/// let (summary, signature) = summarize(&journal, &[q("q1"), q("q2")], &Config::default(), &lexicon).unwrap();
/// assert_eq!(summary["questions"], 2);
/// assert_eq!(summary["answered"], 1);
/// assert_eq!(summary["failed"], 1);
/// assert_eq!(summary["existence"]["mean"], 0.5);
/// assert!(signature.starts_with("rag:v1|") && signature.contains("seed=42"));
/// ```
pub fn summarize(
    journal: &Path,
    questions: &[RagQuestion],
    config: &Config,
    lexicon: &Lexicon,
) -> Result<(Value, String), JobError> {
    let mut outcomes = last_outcomes(journal).map_err(|source| crate::report::ReportError::Io {
        path: journal.to_path_buf(),
        source,
    })?;
    let have: HashSet<String> = outcomes
        .iter()
        .filter_map(|o| o["id"].as_str().map(str::to_string))
        .collect();
    for q in questions.iter().filter(|q| !have.contains(&q.id)) {
        outcomes.push(json!({"id": q.id, "error": "no outcome", "attempts": 0, "existence_score": null, "score": null, "citations": []}));
    }
    let known: HashSet<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    outcomes.retain(|o| o["id"].as_str().is_some_and(|id| known.contains(id)));
    let types: BTreeMap<String, String> = questions
        .iter()
        .filter_map(|q| q.qtype.clone().map(|t| (q.id.clone(), t)))
        .collect();
    let mut summary = summarize_run(&outcomes, &types, config.seed);
    let check = config.check()?;
    let signature = crate::signature::Signature::new(format!(
        "rag:v1|corpus-eval:{}",
        env!("CARGO_PKG_VERSION")
    ))
    .part(crate::citations::signature(
        config.match_level,
        config.fuzzy_threshold,
        &check.normalize,
        config.fuzzy_search.unwrap_or_default(),
    ))
    .part(crate::scoring::signature(lexicon))
    .part(check.speakers.signature())
    .field("meaning", check.meaning.signature())
    .field(
        "ci",
        format!(
            "percentile-bootstrap-95,n={},seed={},draw:{}",
            crate::rag::summary::RESAMPLES,
            config.seed,
            crate::stats::SUMMARIZE_DRAW
        ),
    )
    .long();
    if let Value::Object(m) = &mut summary {
        m.insert("signature".into(), json!(signature));
    }
    Ok((summary, signature))
}

/// This session's facts for the manifest (clock times live only there).
pub fn session_settings(config: &Config, batch: &Batch, tally: &Tally, seconds: f64) -> Value {
    json!({
        "resumed": batch.resumed,
        "api_url": redact_url(&batch.client.config().url),
        "concurrency": config.concurrency,
        "timeout_s": config.timeout,
        "max_retries": config.max_retries,
        "backoff_ms": config.backoff_ms,
        "asked": tally.done,
        "failed": tally.failed,
        "seconds": seconds,
        "requests_per_second": tally.done as f64 / seconds.max(1e-9),
    })
}

/// Writes summary.json, the chart and the manifest into the live run
/// folder (run.json and the journal recorded with their sha256).
pub fn finish_run(
    config: &Config,
    batch: &Batch,
    session: Value,
    started: SystemTime,
) -> Result<Value, JobError> {
    let (folder, lexicon) = (&batch.folder, &*batch.lexicon);
    let (summary, signature) = summarize(
        &folder.join("responses.jsonl"),
        &batch.questions,
        config,
        lexicon,
    )?;
    let mut settings = batch.run_json.clone();
    if let Value::Object(m) = &mut settings {
        // This session's transport settings (they may differ from run.json's).
        m.insert("session".into(), session);
    }
    let manifest = Manifest::new(
        "rag run",
        BTreeMap::from([(
            "questions".to_string(),
            InputFile::new(&batch.questions_path, batch.questions_text.as_bytes()),
        )]),
        settings,
        signature.clone(),
        started,
    )
    .with_config(super::to_value(config))
    .with_lexicon(lexicon);
    let mut run = RunWriter::live(folder, manifest)?;
    run.record("run.json")?;
    run.record("responses.jsonl")?;
    write_summary(&mut run, &summary, &signature)?;
    let items = items_csv(&folder.join("responses.jsonl"), &batch.questions)?;
    run.write("items.csv", items.as_bytes())?;
    run.finish()?;
    Ok(summary)
}

/// The columns of `items.csv`.
pub const ITEM_COLUMNS: [&str; 8] = [
    "id",
    "question_type",
    "failed",
    "score",
    "existence",
    "citations",
    "citations_found",
    "source",
];

/// `items.csv`: one row per question in input order, from the journal's
/// last outcome per question (a question without one is `failed`).
pub fn items_csv(journal: &Path, questions: &[RagQuestion]) -> Result<String, JobError> {
    use crate::report::csv::number;
    let outcomes = last_outcomes(journal).map_err(|source| crate::report::ReportError::Io {
        path: journal.to_path_buf(),
        source,
    })?;
    let by_id: HashMap<&str, &Value> = outcomes
        .iter()
        .filter_map(|o| o["id"].as_str().map(|id| (id, o)))
        .collect();
    let mut out = crate::report::csv::CsvBuffer::new();
    out.record(ITEM_COLUMNS);
    for q in questions {
        let o = by_id.get(q.id.as_str()).copied();
        let failed = o.is_none_or(|o| !o["error"].is_null());
        let citations = o.and_then(|o| o["citations"].as_array());
        out.field(&q.id);
        out.field(q.qtype.as_deref().unwrap_or(""));
        out.field(if failed { "true" } else { "false" });
        out.field(number(o.and_then(|o| o["score"].as_f64())));
        out.field(number(o.and_then(|o| o["existence_score"].as_f64())));
        out.field(citations.map_or(0, Vec::len).to_string());
        let found = citations.map_or(0, |c| c.iter().filter(|c| c["found"] == true).count());
        out.field(found.to_string());
        out.field(o.and_then(|o| o["source"].as_str()).unwrap_or(""));
        out.end_record();
    }
    Ok(out.into_string())
}

fn write_summary(run: &mut RunWriter, summary: &Value, signature: &str) -> Result<(), JobError> {
    run.write_json("summary.json", summary)?;
    #[cfg(feature = "charts")]
    if let Some(bars) = chart_bars(summary) {
        use crate::views::charts::{render_bar_chart, BarChart};
        run.render("rag_scores.png", |path| {
            render_bar_chart(
                path,
                &BarChart {
                    title: "RAG answers: citation existence and answer scores",
                    value_label: "mean (95% bootstrap interval)",
                    category_label: "question type · measure",
                    footnote: &crate::signature::shorten(signature),
                    bars: &bars,
                },
            )
        })?;
    }
    #[cfg(not(feature = "charts"))]
    let _ = signature;
    Ok(())
}

/// The chart's bars: mean existence and score per question type (or
/// overall when the file has no types); None when there is nothing to draw.
#[cfg(feature = "charts")]
fn chart_bars(summary: &Value) -> Option<Vec<crate::views::charts::Bar>> {
    let mut bars = Vec::new();
    let mut push = |label: String, g: &Value| {
        if let (Some(m), Some(n)) = (g["mean"].as_f64(), g["n"].as_u64()) {
            bars.push(crate::views::charts::Bar {
                label,
                value: m.clamp(0.0, 1.0),
                n: n as usize,
                ci: g["ci_low"].as_f64().zip(g["ci_high"].as_f64()),
            });
        }
    };
    push("all · existence".into(), &summary["existence"]);
    push("all · score".into(), &summary["score"]);
    if let Some(types) = summary["by_type"].as_object() {
        for (t, g) in types {
            push(format!("{t} · existence"), &g["existence"]);
            push(format!("{t} · score"), &g["score"]);
        }
    }
    (!bars.is_empty()).then_some(bars)
}

/// `merge` of the run folders of `rag run --shard I/N` runs (`shards[k]`
/// is shard k + 1 of `shards.len()`): each question's last outcome taken
/// from its shard's journal, in the question file's order, into a new run
/// folder under `config.out` (run.json, the joined responses.jsonl,
/// summary.json, the chart, items.csv), summarized again. A shard's
/// journal that holds a question of another shard, or an id the file does
/// not have, is an error.
pub fn write_merged(
    config: &Config,
    questions: &Path,
    shards: &[PathBuf],
    merged_from: Value,
    started: SystemTime,
) -> Result<PathBuf, JobError> {
    config.validate()?;
    let q_text = super::read_text(questions)?;
    let all = parse_rag_questions(questions, &q_text)?;
    let count = shards.len() as u32;
    let mut lines: HashMap<String, String> = HashMap::new();
    for (k, folder) in shards.iter().enumerate() {
        let journal = folder.join("responses.jsonl");
        let last = crate::rag::journal::last_lines(&journal).map_err(|source| {
            crate::report::ReportError::Io {
                path: journal.clone(),
                source,
            }
        })?;
        for (id, line) in last {
            let at = crate::shard::shard_of(&id, count);
            if at != k as u32 + 1 {
                return Err(JobError::Input(format!(
                    "{}: question {:?} belongs to shard {at}/{count}, not {}/{count}",
                    journal.display(),
                    crate::corpus::Preview(&id),
                    k + 1
                )));
            }
            lines.insert(id, line);
        }
    }
    let mut joined = String::new();
    for q in &all {
        if let Some(line) = lines.remove(&q.id) {
            joined.push_str(&line);
            joined.push('\n');
        }
    }
    if let Some(id) = lines.keys().next() {
        return Err(JobError::Input(format!(
            "the shards' journals hold question {:?}, which {} does not have",
            crate::corpus::Preview(id),
            questions.display()
        )));
    }
    let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
    let first_run: Value = match shards.first() {
        Some(f) => RunSettings::read(&f.join("run.json"))?.to_value(),
        None => Value::Null,
    };
    let mut run_json = first_run;
    if let Value::Object(m) = &mut run_json {
        m.insert("shard".into(), Value::Null);
    }
    let manifest = Manifest::new(
        "rag run",
        BTreeMap::from([(
            "questions".to_string(),
            InputFile::new(questions, q_text.as_bytes()),
        )]),
        json!({"merged_from": merged_from, "run": run_json}),
        String::new(),
        started,
    )
    .with_config(super::to_value(config))
    .with_lexicon(&lexicon);
    let mut run = RunWriter::create(&config.out, started, manifest)?;
    run.write_json("run.json", &run_json)?;
    run.write("responses.jsonl", joined.as_bytes())?;
    summarize_into(run, &all, config, &lexicon)
}

/// Summarizes the run folder's responses.jsonl (summary.json, the chart,
/// items.csv, the signature in the manifest) and finishes the folder.
fn summarize_into(
    mut run: RunWriter,
    all: &[RagQuestion],
    config: &Config,
    lexicon: &Lexicon,
) -> Result<PathBuf, JobError> {
    let (summary, signature) = summarize(&run.file("responses.jsonl"), all, config, lexicon)?;
    run.manifest_mut().signature = signature.clone();
    write_summary(&mut run, &summary, &signature)?;
    let items = items_csv(&run.file("responses.jsonl"), all)?;
    run.write("items.csv", items.as_bytes())?;
    Ok(run.finish()?)
}

/// `rerun` of a rag run: no request is sent. The original's run.json and
/// journal are copied into a new run folder under `parent` and summarized
/// again (summary.json and the chart), so the comparison shows whether the
/// scoring of the recorded replies reproduces.
pub fn resummarize(
    config: &Config,
    original: &Path,
    questions: &Path,
    parent: &Path,
) -> Result<PathBuf, JobError> {
    let started = SystemTime::now();
    config.validate()?;
    let q_text = super::read_text(questions)?;
    let all = parse_rag_questions(questions, &q_text)?;
    let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
    // Read typed: a missing or mistyped field is named, never defaulted.
    let run_json = RunSettings::read(&original.join("run.json"))?.to_value();
    let manifest = Manifest::new(
        "rag run",
        BTreeMap::from([(
            "questions".to_string(),
            InputFile::new(questions, q_text.as_bytes()),
        )]),
        json!({"rerun_of": original.display().to_string(), "from": "journal (no request sent)", "run": run_json}),
        String::new(),
        started,
    )
    .with_config(super::to_value(config))
    .with_lexicon(&lexicon);
    let mut run = RunWriter::create(parent, started, manifest)?;
    for name in ["run.json", "responses.jsonl"] {
        run.write(name, &super::read_input(&original.join(name))?)?;
    }
    summarize_into(run, &all, config, &lexicon)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_42_run_json_is_read_typed_and_names_a_bad_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        let config = Config {
            shard: Some(crate::shard::Shard { index: 2, count: 3 }),
            ..Config::default()
        };
        let settings = run_settings(
            &config,
            Path::new("/data/q.json"),
            "ab12",
            "https://user:pw@rag.example/ask?key=s3cret",
        );
        assert!(settings.api_url_redacted);
        assert!(!settings.api_url.contains("s3cret") && !settings.api_url.contains("pw"));
        write_json(&path, &settings).unwrap();
        assert_eq!(RunSettings::read(&path).unwrap(), settings);
        // Resumed: the settings that shape a request come back.
        let mut given = Config::default();
        let resumed = resume(dir.path(), &mut given, false).unwrap();
        assert_eq!(
            (given.shard, given.seed, resumed.url),
            (config.shard, config.seed, None)
        );
        // A missing field, a mistyped one, an unknown one: errors naming
        // the file and the field, never a default.
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        type Change = fn(&mut serde_json::Map<String, Value>);
        let cases: [(&str, Change); 3] = [
            ("seed", |m| drop(m.remove("seed"))),
            ("k", |m| drop(m.insert("k".into(), json!("five")))),
            ("extra", |m| drop(m.insert("extra".into(), json!(1)))),
        ];
        for (field, change) in cases {
            let mut bad = doc.clone();
            if let Value::Object(m) = &mut bad {
                change(m);
            }
            std::fs::write(&path, bad.to_string()).unwrap();
            let e = resume(dir.path(), &mut Config::default(), false)
                .unwrap_err()
                .to_string();
            assert!(e.contains("run.json") && e.contains(field), "{field}: {e}");
        }
    }
}
