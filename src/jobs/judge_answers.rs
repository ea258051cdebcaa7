//! Answers scored against ground truths (`judge-answers`) and the threshold
//! search (`threshold`) as typed jobs.
//!
//! The keyword method needs nothing but the items:
//!
//! ```
//! use corpus_eval::corpus::JudgedItem;
//! use corpus_eval::jobs::judge_answers::{Config, Context};
//! use corpus_eval::lexicon::Lexicon;
//! use corpus_eval::semantic::Method;
//!
//! let item = |id: &str, answer: &str| JudgedItem {
//!     id: id.into(),
//!     question: "Where is the Louvre?".into(),
//!     answer: answer.into(),
//!     ground_truth: "Paris".into(),
//!     label: None,
//!     system: "default".into(),
//! };
//! let config = Config { method: Method::Keyword, ..Config::default() };
//! let context = Context {
//!     items: vec![item("a", "It is in Paris."), item("b", "In Lyon.")],
//!     all: None,
//!     lexicon: Lexicon::embedded().unwrap(),
//!     embedder: None,
//!     judge: None,
//!     validation: None,
//! };
//! let out = context.plan(&config).unwrap().run(&|_, _| {}).unwrap();
//! assert_eq!(out.scores[0].score, Some(1.0));
//! assert_eq!(out.scores[1].score, Some(0.5));
//! assert_eq!(out.summary.overall.mean_score, Some(0.75));
//! ```

use super::embed::load_embedder;
use super::{check_in, engine_of, ConfigError, JobConfig, JobError};
use crate::corpus::judged::{load_judged_items, JudgedItem};
use crate::judge::cost::{self, CostEstimate};
use crate::judge::{prompt, Judge, JudgeClient, JudgeConfig, VerdictCache};
use crate::judge_answers::{
    finish, judge_plan, missing_anchors, prepare, similarities, ItemScore, JudgeAnswersConfig,
    JudgeAnswersSummary, Prepared,
};
use crate::lexicon::Lexicon;
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use crate::semantic::anchors::ANCHORS_SIGNATURE;
use crate::semantic::methods::optimize_name;
use crate::semantic::methods::{
    keyword_score, sample_indices, search_threshold, threshold_score, Method, Optimize,
    ThresholdSearch, DEFAULT_THRESHOLD, POSITIVE_ABOVE,
};
use crate::semantic::{Embedder, EmbeddingCache};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Whether the ground truth's anchors (numbers, names, dates) must be in
/// the answer for a semantic score of 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Anchors {
    /// Every anchor must be in the answer.
    On,
    /// Similarity alone (the design's plain behaviour).
    Off,
}

impl super::settings::Choices for Anchors {
    const NAMES: &'static [&'static str] = &["on", "off"];
}

/// Longest judge backoff, milliseconds.
pub const MAX_JUDGE_BACKOFF_MS: u64 = 120_000;
/// Most judge attempts per item.
pub const MAX_JUDGE_ATTEMPTS: u32 = 100;

/// The settings of `corpus-eval judge-answers` (the defaults are the
/// command line's). Each field is a key of a `--config` file and a flag.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    /// The method.
    #[setting(default = Method::SemanticFixed, choices)]
    pub method: Method,
    /// Similarity threshold of semantic_fixed and hybrid.
    #[setting(default = DEFAULT_THRESHOLD)]
    pub threshold: f64,
    /// semantic_dynamic: choose the threshold on this file's items.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "FILE")]
    pub validation: Option<PathBuf>,
    /// semantic_dynamic without --validation: the share of INPUT drawn
    /// (with --seed) to choose the threshold on.
    #[setting(default = 0.1)]
    pub validation_fraction: f64,
    /// Seed of the validation draw.
    #[setting(default = 42)]
    pub seed: u64,
    /// hybrid: the judge re-scores items whose similarity lies within BAND
    /// of the threshold.
    #[setting(default = 0.1)]
    pub band: f64,
    /// hybrid: the judge also re-scores every item of the N systems with
    /// the best semantic mean.
    #[setting(default = 0, value_name = "N")]
    pub judge_top: usize,
    /// Require the ground truth's anchors (numbers in any form,
    /// capitalized names, dates) in the answer for a semantic score of 1.
    #[setting(default = Anchors::On, choices)]
    pub anchors: Anchors,
    /// What threshold search maximizes.
    #[setting(default = Optimize::Accuracy, choices)]
    pub optimize: Optimize,
    /// Folder of the sentence-embedding model (default:
    /// $CORPUS_EVAL_MODEL_DIR, then models/all-MiniLM-L6-v2, then the
    /// Hugging Face cache).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// The forward pass: fused, or candle-transformers' BertModel.
    #[setting(default = "fused".into(), choices_in = "super::ENGINES")]
    pub engine: String,
    /// Its synonyms widen the anchors.
    #[shared]
    pub wordnet: Option<PathBuf>,
    /// OpenAI-compatible API base URL (".../v1") or chat-completions URL;
    /// default $CORPUS_EVAL_JUDGE_URL. The key comes from
    /// $CORPUS_EVAL_JUDGE_KEY or $OPENAI_API_KEY.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "URL")]
    pub judge_url: Option<String>,
    /// The judge model.
    #[setting(default = "gpt-3.5-turbo".into())]
    pub judge_model: String,
    /// Per-request timeout, seconds, 0.001 to 3600.
    #[setting(default = 30.0)]
    pub judge_timeout: f64,
    /// Attempts per item before it is recorded as failed, 1 to 100.
    #[setting(default = 3)]
    pub judge_attempts: u32,
    /// First retry wait, milliseconds, 0 to 120000 (doubled each retry,
    /// with jitter; Retry-After wins).
    #[setting(default = 500)]
    pub judge_backoff_ms: u64,
    /// Requests in flight, 1 to 256.
    #[setting(default = 4)]
    pub judge_concurrency: usize,
    /// Verdict cache (SQLite); default
    /// $XDG_CACHE_HOME/corpus-eval/judge.sqlite or
    /// ~/.cache/corpus-eval/judge.sqlite.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "PATH")]
    pub cache: Option<PathBuf>,
    /// Do not read or write the verdict cache.
    pub no_cache: bool,
    /// Refuse to start when the estimate exceeds this many USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Tokens per evaluation, for the estimate.
    #[setting(default = cost::DEFAULT_TOKENS_PER_EVAL)]
    pub tokens_per_eval: f64,
    /// USD per 1,000 tokens, for the estimate.
    #[setting(default = cost::DEFAULT_PRICE_PER_1K)]
    pub price_per_1k: f64,
    #[shared]
    pub out: PathBuf,
    /// Do not draw the score-distribution PNGs.
    pub no_plots: bool,
    /// Add the agreement of the pass/fail verdicts with the labels to the
    /// summary (Cohen's kappa, Krippendorff's alpha, Gwet's AC1, ...).
    pub agreement: bool,
    /// semantic_dynamic draws its validation items from the whole input;
    /// hybrid with --judge-top (which ranks systems over every item)
    /// cannot be sharded.
    #[shared]
    pub shard: Option<crate::shard::Shard>,
    #[shared]
    pub fail_under: std::collections::BTreeMap<String, f64>,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "judge-answers";
    const GATES: &'static [crate::gates::Metric] = crate::gates::JUDGE;
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)?;
        check_in("--threshold", self.threshold, 0.0, 1.0)?;
        check_in("--band", self.band, 0.0, 1.0)?;
        check_in("--validation-fraction", self.validation_fraction, 1e-9, 1.0)?;
        check_in("--judge-timeout", self.judge_timeout, 0.001, 3600.0)?;
        let count =
            |field: &str, v: u64, lo: u64, hi: u64| check_in(field, v as f64, lo as f64, hi as f64);
        count(
            "--judge-attempts",
            self.judge_attempts.into(),
            1,
            MAX_JUDGE_ATTEMPTS.into(),
        )?;
        count(
            "--judge-backoff-ms",
            self.judge_backoff_ms,
            0,
            MAX_JUDGE_BACKOFF_MS,
        )?;
        count(
            "--judge-concurrency",
            self.judge_concurrency as u64,
            1,
            crate::rag::batch::MAX_CONCURRENCY as u64,
        )?;
        if let Some(max) = self.max_cost {
            check_in("--max-cost", max, 0.0, 1e12)?;
        }
        check_in("--tokens-per-eval", self.tokens_per_eval, 0.0, 1e9)?;
        check_in("--price-per-1k", self.price_per_1k, 0.0, 1e6)?;
        engine_of("--engine", &self.engine)?;
        if self.shard.is_some() && self.method == Method::Hybrid && self.judge_top > 0 {
            return Err(ConfigError::Invalid {
                field: "--shard".into(),
                message: "does not apply to hybrid with --judge-top: the top systems are ranked over every item".into(),
            });
        }
        Ok(())
    }

    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        super::unset_notes!(self;
            validation => "drawn from the input (validation_fraction)",
            model_dir => "found as the docs say",
            wordnet => "the embedded WordNet 3.0 lexicon",
            judge_url => "$CORPUS_EVAL_JUDGE_URL",
            cache => "the user cache folder",
            max_cost => "no limit",
            shard => "every item: no shard")
    }
}

/// The settings of `corpus-eval threshold`. Each field is a key of a
/// `--config` file and a flag.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct ThresholdConfig {
    #[shared]
    pub version: u32,
    /// Require the ground truth's anchors (numbers in any form,
    /// capitalized names, dates) in the answer for a semantic score of 1.
    #[setting(default = Anchors::On, choices)]
    pub anchors: Anchors,
    /// What the search maximizes.
    #[setting(default = Optimize::Accuracy, choices)]
    pub optimize: Optimize,
    /// Folder of the sentence-embedding model (default:
    /// $CORPUS_EVAL_MODEL_DIR, then models/all-MiniLM-L6-v2, then the
    /// Hugging Face cache).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// The forward pass: fused, or candle-transformers' BertModel.
    #[setting(default = "fused".into(), choices_in = "super::ENGINES")]
    pub engine: String,
    /// Its synonyms widen the anchors.
    #[shared]
    pub wordnet: Option<PathBuf>,
    /// Also report the agreement of the verdicts at the chosen threshold
    /// with the labels (Cohen's kappa, Krippendorff's alpha, Gwet's AC1,
    /// ...).
    pub agreement: bool,
    /// Write a run folder under DIR (manifest.json, threshold.json,
    /// items.csv); none: no run folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub out: Option<PathBuf>,
}

impl JobConfig for ThresholdConfig {
    const COMMAND: &'static str = "threshold";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        engine_of("--engine", &self.engine).map(|_| ())
    }

    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        super::unset_notes!(self;
            model_dir => "found as the docs say",
            wordnet => "the embedded WordNet 3.0 lexicon",
            out => "no run folder")
    }
}

/// Judged items from a file; an empty file is an error.
pub fn load_items(path: &Path) -> Result<Vec<JudgedItem>, JobError> {
    let items = load_judged_items(path)?;
    if items.is_empty() {
        return Err(JobError::Input(format!("{}: no items", path.display())));
    }
    Ok(items)
}

/// The threshold search's result.
#[derive(Debug, Clone)]
pub struct ThresholdOutput {
    /// The grid and the best threshold.
    pub search: ThresholdSearch,
    /// Items searched over.
    pub n: usize,
    /// Items left out because they carry no label while others do.
    pub unlabelled: usize,
    /// With `agreement`: the verdicts at the chosen threshold against the
    /// labels.
    pub agreement: Option<crate::agreement::coefficients::Agreement>,
    /// Every item searched over, in input order, at the chosen threshold.
    pub items: Vec<ThresholdItem>,
}

/// One item of a threshold search, at the chosen threshold (a row of the
/// run folder's `items.csv`).
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdItem {
    /// The item's id.
    pub id: String,
    /// Its system.
    pub system: String,
    /// Cosine similarity of answer and ground truth.
    pub similarity: f64,
    /// Whether the ground truth's anchors hold in the answer (true with
    /// anchors off).
    pub anchors_ok: bool,
    /// The semantic score at the chosen threshold.
    pub score: f64,
    /// The human label, when given.
    pub label: Option<bool>,
}

/// Similarities and anchor checks of `items`, and the threshold search over
/// them (labelled items only when some carry labels).
pub fn search(
    items: &[JudgedItem],
    cache: &EmbeddingCache,
    lexicon: &Lexicon,
    anchors: bool,
    optimize: Optimize,
    agreement: bool,
) -> Result<ThresholdOutput, JobError> {
    let labelled: Vec<JudgedItem> = items
        .iter()
        .filter(|i| i.label.is_some())
        .cloned()
        .collect();
    let used = if labelled.is_empty() {
        items
    } else {
        &labelled[..]
    };
    let sims = similarities(used, cache)?;
    let ok: Vec<bool> = if anchors {
        missing_anchors(used, lexicon)
            .iter()
            .map(Vec::is_empty)
            .collect()
    } else {
        vec![true; used.len()]
    };
    let labels: Option<Vec<bool>> =
        (!labelled.is_empty()).then(|| used.iter().map(|i| i.label.unwrap_or(false)).collect());
    let search = search_threshold(&sims, &ok, labels.as_deref(), optimize);
    let scored: Vec<ThresholdItem> = used
        .iter()
        .zip(sims.iter().zip(&ok))
        .map(|(item, (&similarity, &anchors_ok))| ThresholdItem {
            id: item.id.clone(),
            system: item.system.clone(),
            similarity,
            anchors_ok,
            score: threshold_score(similarity, search.best, anchors_ok),
            label: item.label,
        })
        .collect();
    let agreement = match (agreement, &labels) {
        (false, _) => None,
        (true, None) => return Err(no_labels()),
        (true, Some(labels)) => {
            let verdicts: Vec<Option<bool>> = sims
                .iter()
                .zip(&ok)
                .map(|(&s, &a)| Some(threshold_score(s, search.best, a) > POSITIVE_ABOVE))
                .collect();
            let labels: Vec<Option<bool>> = labels.iter().map(|&l| Some(l)).collect();
            let ids = used.iter().map(|i| i.id.clone()).collect();
            Some(verdict_agreement(ids, "verdict", &verdicts, &labels)?)
        }
    };
    Ok(ThresholdOutput {
        search,
        n: used.len(),
        unlabelled: items.len() - used.len(),
        agreement,
        items: scored,
    })
}

fn no_labels() -> JobError {
    JobError::Input(
        "--agreement needs labelled items (a `label` field of 0/1 or true/false)".into(),
    )
}

/// The agreement of pass/fail verdicts with labels (bootstrap: the default
/// resamples, seed 42).
fn verdict_agreement(
    ids: Vec<String>,
    method: &str,
    verdicts: &[Option<bool>],
    labels: &[Option<bool>],
) -> Result<crate::agreement::coefficients::Agreement, JobError> {
    crate::agreement::verdicts_against_labels(
        ids,
        method,
        verdicts,
        labels,
        &crate::agreement::coefficients::Settings::default(),
    )
    .map_err(|e| JobError::Input(e.to_string()))
}

/// Runs `threshold` over items with a loaded model.
pub fn threshold(
    config: &ThresholdConfig,
    items: &[JudgedItem],
    embedder: &Embedder,
    lexicon: &Lexicon,
) -> Result<ThresholdOutput, JobError> {
    config.validate()?;
    let cache = EmbeddingCache::new(embedder);
    search(
        items,
        &cache,
        lexicon,
        config.anchors == Anchors::On,
        config.optimize,
        config.agreement,
    )
}

/// Runs `threshold` on an input file: loads the items, WordNet and the
/// model; returns the search and the model's signature.
pub fn execute_threshold(
    config: &ThresholdConfig,
    input: &Path,
) -> Result<(ThresholdOutput, String), JobError> {
    config.validate()?;
    let items = load_items(input)?;
    let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
    let embedder = load_embedder(config.model_dir.as_deref(), &config.engine)?;
    let out = threshold(config, &items, &embedder, &lexicon)?;
    crate::semantic::warn_truncation(&embedder);
    Ok((out, embedder.signature()))
}

impl ThresholdOutput {
    /// `items.csv`: one row per item searched over, in input order: `id`,
    /// `system`, `similarity`, `anchors_ok`, then at the chosen threshold
    /// the `score` and `verdict` (`pass`/`fail`), and the human `label`
    /// (`pass`/`fail`, empty when unlabelled).
    pub fn items_csv(&self) -> String {
        let mut out = crate::report::csv::CsvBuffer::new();
        out.record([
            "id",
            "system",
            "similarity",
            "anchors_ok",
            "score",
            "verdict",
            "label",
        ]);
        for item in &self.items {
            out.record([
                item.id.as_str(),
                item.system.as_str(),
                &(item.similarity + 0.0).to_string(),
                if item.anchors_ok { "true" } else { "false" },
                &(item.score + 0.0).to_string(),
                pass_fail(item.score > crate::semantic::methods::POSITIVE_ABOVE),
                item.label.map_or("", pass_fail),
            ]);
        }
        out.into_string()
    }

    /// The JSON object `threshold --json` prints and a run folder's
    /// `threshold.json` holds: the chosen `threshold`, what was optimized
    /// against which `target`, every `grid` point with its metrics, `n`,
    /// `unlabelled`, `agreement` (when asked for) and the `signature`.
    pub fn to_json(&self, anchors: bool, signature: &str) -> Value {
        let mut o = json!({
            "threshold": self.search.best,
            "optimize": optimize_name(self.search.optimize),
            "target": self.search.target,
            "anchors": anchors,
            "n": self.n,
            "unlabelled": self.unlabelled,
            "grid": self.search.rows,
        });
        if let (Some(a), Some(map)) = (&self.agreement, o.as_object_mut()) {
            map.insert(
                "agreement".into(),
                serde_json::to_value(a).unwrap_or(Value::Null),
            );
        }
        if let Some(map) = o.as_object_mut() {
            map.insert("signature".into(), Value::String(signature.to_string()));
        }
        o
    }

    /// What `threshold` prints: the agreement with the labels (when asked
    /// for), the grid and, last, `threshold: 0.60`.
    #[cfg(feature = "cli")]
    pub fn text(&self, anchors: bool, model_signature: &str) -> String {
        let grid =
            crate::views::text::threshold_report(&self.search, self.n, anchors, model_signature);
        match &self.agreement {
            Some(a) => format!(
                "agreement of the verdicts at the chosen threshold with the labels:\n{}\n{grid}",
                crate::views::text::agreement_report(a)
            ),
            None => grid,
        }
    }
}

/// The threshold search's signature: target, optimization, anchors and the
/// model's signature.
pub fn threshold_signature(out: &ThresholdOutput, anchors: bool, model_signature: &str) -> String {
    format!(
        "threshold|optimize:{}|target:{}|anchors:{}|{model_signature}",
        optimize_name(out.search.optimize),
        out.search.target,
        if anchors { "on" } else { "off" }
    )
}

/// Runs the threshold search on a file and, with `config.out`, writes a
/// run folder (manifest.json, threshold.json, items.csv); returns it with the output
/// and the model's signature.
pub fn execute_threshold_run(
    config: &ThresholdConfig,
    input: &Path,
) -> Result<(Option<PathBuf>, ThresholdOutput, String), JobError> {
    let started = SystemTime::now();
    let (out, model_signature) = execute_threshold(config, input)?;
    if out.search.target == "labels" && out.unlabelled > 0 {
        errln!(
            "warning: {} items without a label are left out of the search",
            out.unlabelled
        );
    }
    let anchors = config.anchors == Anchors::On;
    let signature = threshold_signature(&out, anchors, &model_signature);
    let Some(parent) = &config.out else {
        return Ok((None, out, model_signature));
    };
    let bytes = super::read_input(input)?;
    let manifest = Manifest::new(
        "threshold",
        BTreeMap::from([("input".to_string(), InputFile::new(input, &bytes))]),
        super::to_value(config),
        signature.clone(),
        started,
    )
    .with_config(super::to_value(config));
    let mut run = RunWriter::create(parent, started, manifest)?;
    run.write_json("threshold.json", &out.to_json(anchors, &signature))?;
    run.write("items.csv", out.items_csv().as_bytes())?;
    Ok((Some(run.finish()?), out, model_signature))
}

/// The judge a configuration names: its URL (or `$CORPUS_EVAL_JUDGE_URL`),
/// the key from the environment, and the verdict cache.
pub fn make_judge(config: &Config) -> Result<Judge, JobError> {
    let url = config
        .judge_url
        .clone()
        .or_else(|| std::env::var("CORPUS_EVAL_JUDGE_URL").ok().filter(|u| !u.is_empty()))
        .ok_or_else(|| JobError::Input("the judge needs --judge-url (or $CORPUS_EVAL_JUDGE_URL): an OpenAI-compatible API base URL".into()))?;
    let client = JudgeClient::new(
        JudgeConfig {
            url,
            model: config.judge_model.clone(),
            timeout: Duration::from_secs_f64(config.judge_timeout),
            max_attempts: config.judge_attempts,
            backoff_base: Duration::from_millis(config.judge_backoff_ms),
        },
        crate::judge::key_from_env(),
    )?;
    let cache = if config.no_cache {
        None
    } else {
        let path = match &config.cache {
            Some(p) => p.clone(),
            None => crate::judge::cache::default_path().ok_or_else(|| {
                JobError::Input("no cache folder: set --cache PATH (or --no-cache)".into())
            })?,
        };
        Some(VerdictCache::open(&path)?)
    };
    Ok(Judge::new(client, cache))
}

/// Everything a run works on: the items and the loaded resources.
pub struct Context {
    /// The items (a shard's when the configuration names one).
    pub items: Vec<JudgedItem>,
    /// With a shard: every item of the input, and the position there of
    /// each of `items` (semantic_dynamic draws its validation items from
    /// the whole input).
    pub all: Option<(Vec<JudgedItem>, Vec<usize>)>,
    /// WordNet (anchor synonyms).
    pub lexicon: Lexicon,
    /// The embedding model (semantic methods).
    pub embedder: Option<Embedder>,
    /// The LLM judge (llm_judge, hybrid).
    pub judge: Option<Judge>,
    /// semantic_dynamic's validation file: its path, bytes and items.
    pub validation: Option<(PathBuf, Vec<u8>, Vec<JudgedItem>)>,
}

impl Context {
    /// Loads the items of `input` and what the configuration's method needs.
    pub fn load(config: &Config, input: &Path) -> Result<Context, JobError> {
        config.validate()?;
        let loaded = load_items(input)?;
        let (items, all) = match config.shard {
            None => (loaded, None),
            Some(shard) => {
                let at: Vec<usize> = (0..loaded.len())
                    .filter(|&i| shard.contains(&loaded[i].id))
                    .collect();
                let items = at.iter().map(|&i| loaded[i].clone()).collect();
                (items, Some((loaded, at)))
            }
        };
        let method = config.method;
        let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
        let embedder = if method.uses_embeddings() {
            Some(load_embedder(config.model_dir.as_deref(), &config.engine)?)
        } else {
            None
        };
        let judge = if method.uses_judge() {
            Some(make_judge(config)?)
        } else {
            None
        };
        let validation = match (&config.validation, method) {
            (Some(path), Method::SemanticDynamic) => {
                let bytes = super::read_input(path)?;
                Some((path.clone(), bytes, load_items(path)?))
            }
            _ => None,
        };
        Ok(Context {
            items,
            all,
            lexicon,
            embedder,
            judge,
            validation,
        })
    }

    /// Prepares a run: the dynamic threshold, similarities, anchors and
    /// the prompts the judge must answer (none is called yet).
    pub fn plan<'a>(&'a self, config: &'a Config) -> Result<Plan<'a>, JobError> {
        config.validate()?;
        let method = config.method;
        let anchors = config.anchors == Anchors::On && method.uses_embeddings();
        let cache = self.embedder.as_ref().map(EmbeddingCache::new);
        let dynamic = match (method, &cache) {
            (Method::SemanticDynamic, Some(c)) => Some(self.dynamic_threshold(config, c, anchors)?),
            _ => None,
        };
        let threshold = dynamic.as_ref().map_or(config.threshold, |d| d.threshold);
        let core = JudgeAnswersConfig {
            method,
            threshold,
            anchors,
            band: config.band,
            judge_top: config.judge_top,
        };
        let prepared = prepare(&self.items, &core, cache.as_ref(), &self.lexicon)?;
        let plan = judge_plan(&self.items, &prepared, &core);
        // Identical prompts (the same question, answer and ground truth)
        // are judged and costed once.
        let mut prompts: Vec<String> = Vec::new();
        let mut prompt_of: Vec<usize> = Vec::with_capacity(plan.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for &i in &plan {
            let it = &self.items[i];
            let p = prompt::render(&it.question, &it.answer, &it.ground_truth);
            let at = *seen.entry(p.clone()).or_insert_with(|| {
                prompts.push(p);
                prompts.len() - 1
            });
            prompt_of.push(at);
        }
        Ok(Plan {
            context: self,
            config,
            cache,
            dynamic,
            core,
            prepared,
            plan,
            prompts,
            prompt_of,
        })
    }

    /// Chooses semantic_dynamic's threshold on the validation items.
    fn dynamic_threshold(
        &self,
        config: &Config,
        cache: &EmbeddingCache,
        anchors: bool,
    ) -> Result<DynamicThreshold, JobError> {
        // The draw is from the whole input, sharded or not.
        let items = self.all.as_ref().map_or(&self.items, |(all, _)| all);
        let (picked, source, drawn) = match &self.validation {
            Some((path, _, v)) => (v.clone(), format!("file {}", path.display()), None),
            None => {
                let k = ((items.len() as f64 * config.validation_fraction).round() as usize).max(1);
                let drawn = sample_indices(items.len(), k, config.seed);
                let picked: Vec<JudgedItem> = drawn.iter().map(|&i| items[i].clone()).collect();
                let source = format!(
                    "fraction {} of the input, seed {}",
                    config.validation_fraction, config.seed
                );
                // Positions among this run's items (a shard's).
                let drawn = match &self.all {
                    None => drawn,
                    Some((_, at)) => {
                        let drawn: std::collections::HashSet<usize> = drawn.into_iter().collect();
                        at.iter()
                            .enumerate()
                            .filter(|(_, i)| drawn.contains(i))
                            .map(|(k, _)| k)
                            .collect()
                    }
                };
                (picked, source, Some(drawn))
            }
        };
        let s = search(
            &picked,
            cache,
            &self.lexicon,
            anchors,
            config.optimize,
            false,
        )?;
        let info = json!({
            "source": source,
            "n": s.n,
            "ids": picked.iter().map(|i| i.id.clone()).collect::<Vec<_>>(),
            "target": s.search.target,
            "optimize": optimize_name(config.optimize),
            "grid": s.search.rows,
            "threshold": s.search.best,
        });
        Ok(DynamicThreshold {
            threshold: s.search.best,
            info,
            drawn,
        })
    }
}

/// semantic_dynamic's threshold and how it was chosen.
struct DynamicThreshold {
    threshold: f64,
    info: Value,
    drawn: Option<Vec<usize>>,
}

/// A prepared run (see [`Context::plan`]).
pub struct Plan<'a> {
    context: &'a Context,
    config: &'a Config,
    cache: Option<EmbeddingCache<'a>>,
    dynamic: Option<DynamicThreshold>,
    core: JudgeAnswersConfig,
    prepared: Prepared,
    plan: Vec<usize>,
    prompts: Vec<String>,
    prompt_of: Vec<usize>,
}

/// `judge-answers --estimate-cost --json`: the method and the estimate
/// (zero calls when the method does not use the judge).
pub fn estimate_json(e: Option<CostEstimate>, config: &Config) -> Value {
    let e = e.unwrap_or(CostEstimate {
        evaluations: 0,
        cached: 0,
        tokens_per_eval: config.tokens_per_eval,
        price_per_1k: config.price_per_1k,
        usd: 0.0,
    });
    json!({"method": config.method.as_str(), "estimate": e})
}

/// The judge's cost estimate as a line of text (none: a method that does
/// not use the judge).
pub fn estimate_line(e: Option<&CostEstimate>, method: Method) -> String {
    match e {
        Some(e) => format!(
            "judge cost estimate: {} calls x {} tokens / 1000 x ${}/1k tokens = ${:.4} ({} verdicts cached, free)",
            e.evaluations, e.tokens_per_eval, e.price_per_1k, e.usd, e.cached
        ),
        None => format!(
            "judge cost estimate: 0 calls (method {} does not use the judge) = $0.0000",
            method.as_str()
        ),
    }
}

impl Plan<'_> {
    /// The judge's cost estimate (None for methods without the judge);
    /// above `max_cost` it is an error and nothing is called.
    pub fn estimate(&self) -> Result<Option<CostEstimate>, JobError> {
        let Some(j) = &self.context.judge else {
            return Ok(None);
        };
        let mut cached = 0;
        for p in &self.prompts {
            cached += usize::from(j.is_cached(p)?);
        }
        let e = cost::estimate(
            self.prompts.len() - cached,
            cached,
            self.config.tokens_per_eval,
            self.config.price_per_1k,
        );
        if let Some(max) = self.config.max_cost {
            if e.usd > max {
                return Err(JobError::Input(format!(
                    "{}: above --max-cost ${max}; nothing was called",
                    estimate_line(Some(&e), self.config.method)
                )));
            }
        }
        Ok(Some(e))
    }

    /// Calls the judge (when the method uses it; `progress(done, total)`
    /// after each verdict) and scores every item.
    pub fn run(self, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Output, JobError> {
        let estimate = self.estimate()?;
        let (ctx, config) = (self.context, self.config);
        let verdicts = match &ctx.judge {
            Some(j) if !self.prompts.is_empty() => {
                let done = std::sync::atomic::AtomicUsize::new(0);
                let total = self.prompts.len();
                let report = |_: usize, _: &crate::judge::Verdict| {
                    let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    progress(d, total);
                };
                let v = j.judge_all(&self.prompts, config.judge_concurrency, &report)?;
                self.plan
                    .iter()
                    .zip(&self.prompt_of)
                    .map(|(&item, &p)| (item, v[p].clone()))
                    .collect()
            }
            _ => Vec::new(),
        };
        if let Some(e) = &ctx.embedder {
            crate::semantic::warn_truncation(e);
        }
        let counts = ctx.judge.as_ref().map(Judge::counts).unwrap_or_default();
        let signature = signature(
            &self.core,
            ctx.embedder.as_ref(),
            ctx.judge.as_ref(),
            &ctx.lexicon,
        );
        let drawn = self.dynamic.as_ref().and_then(|d| d.drawn.as_deref());
        let (scores, mut summary) = finish(
            &ctx.items,
            &self.prepared,
            &verdicts,
            &self.core,
            drawn,
            counts,
            signature,
        );
        if config.agreement {
            summary.agreement = Some(agreement_of(&scores, config.method)?);
        }
        let settings = self.settings(estimate.as_ref());
        let histograms = self.histograms(&scores);
        Ok(Output {
            scores,
            summary,
            settings,
            histograms,
            estimate,
        })
    }

    fn settings(&self, estimate: Option<&CostEstimate>) -> Value {
        let (ctx, config) = (self.context, self.config);
        let embedder = ctx.embedder.as_ref();
        json!({
            "method": config.method.as_str(),
            "threshold": self.core.threshold,
            "threshold_arg": config.threshold,
            "anchors": self.core.anchors,
            "anchors_arg": match config.anchors { Anchors::On => "on", Anchors::Off => "off" },
            "optimize": optimize_name(config.optimize),
            "band": config.band,
            "judge_top": config.judge_top,
            "validation": self.dynamic.as_ref().map(|d| d.info.clone()),
            "positive_above": crate::semantic::methods::POSITIVE_ABOVE,
            "model": embedder.map(|e| json!({
                "name": e.name(),
                "dir": e.dir().display().to_string(),
                "sha256": e.digest(),
                "max_tokens": e.max_tokens(),
                "dim": e.dim(),
                "signature": e.signature(),
            })),
            "judge": ctx.judge.as_ref().map(|j| json!({
                "url": crate::secrets::redact_url(j.client().endpoint()),
                "model": j.client().model(),
                "prompt_sha256": crate::text::hash::sha256_hex(prompt::TEMPLATE.as_bytes()),
                "temperature": prompt::TEMPERATURE,
                "max_tokens": prompt::MAX_TOKENS,
                "timeout_s": config.judge_timeout,
                "attempts": config.judge_attempts,
                "backoff_ms": config.judge_backoff_ms,
                "concurrency": config.judge_concurrency,
                "cache": j.cache().map(|c| c.path().display().to_string()),
                "key": if crate::judge::key_from_env().is_some() { "from environment (not recorded)" } else { "none" },
                "cost_estimate": estimate,
            })),
            "embedding_cache": self.cache.as_ref().map(|c| { let (computed, reused) = c.counts(); json!({"embedded": computed, "reused": reused}) }),
            "truncated_texts": embedder.map(Embedder::truncated_texts),
            "plots": !config.no_plots,
            "out": config.out.display().to_string(),
        })
    }

    fn histograms(&self, scores: &[ItemScore]) -> Vec<(String, Vec<f64>)> {
        histograms(self.config.method, scores, &self.context.items)
    }
}

/// The agreement of the pass/fail verdicts (a score above
/// [`POSITIVE_ABOVE`]) with the labels (exit 2 when no item has one).
pub fn agreement_of(
    scores: &[ItemScore],
    method: Method,
) -> Result<crate::agreement::coefficients::Agreement, JobError> {
    if scores.iter().all(|s| s.label.is_none()) {
        return Err(no_labels());
    }
    let verdicts: Vec<Option<bool>> = scores
        .iter()
        .map(|s| s.score.map(|v| v > POSITIVE_ABOVE))
        .collect();
    let labels: Vec<Option<bool>> = scores.iter().map(|s| s.label).collect();
    let ids = scores.iter().map(|s| s.id.clone()).collect();
    verdict_agreement(ids, method.as_str(), &verdicts, &labels)
}

/// The score distributions drawn for a run of `method` over `items`
/// (scored as `scores`): the method's scores, for hybrid the semantic
/// scores before the judge (from each item's similarity, threshold and
/// missing anchors), and but for keyword the keyword scores.
pub fn histograms(
    method: Method,
    scores: &[ItemScore],
    items: &[JudgedItem],
) -> Vec<(String, Vec<f64>)> {
    let mut out = vec![(
        method.as_str().to_string(),
        scores.iter().filter_map(|s| s.score).collect(),
    )];
    if method == Method::Hybrid {
        out.push((
            "semantic_fixed".into(),
            scores
                .iter()
                .filter_map(|s| {
                    let anchors_ok = s.anchors_missing.as_ref().is_none_or(|m| m.is_empty());
                    Some(crate::semantic::methods::threshold_score(
                        s.similarity?,
                        s.threshold?,
                        anchors_ok,
                    ))
                })
                .collect(),
        ));
    }
    if method != Method::Keyword {
        out.push((
            "keyword".into(),
            items
                .iter()
                .map(|i| keyword_score(&i.answer, &i.ground_truth))
                .collect(),
        ));
    }
    out
}

/// What `judge-answers` produces.
#[derive(Debug, Clone)]
pub struct Output {
    /// One line of `scores.jsonl` per item.
    pub scores: Vec<ItemScore>,
    /// `summary.json`.
    pub summary: JudgeAnswersSummary,
    /// Every setting, for the manifest.
    pub settings: Value,
    /// The score distributions drawn: (name, scores).
    pub histograms: Vec<(String, Vec<f64>)>,
    /// The judge's cost estimate, when the method uses the judge.
    pub estimate: Option<CostEstimate>,
}

/// The metric signature, sacrebleu style.
pub fn signature(
    config: &JudgeAnswersConfig,
    embedder: Option<&Embedder>,
    judge: Option<&Judge>,
    lexicon: &Lexicon,
) -> String {
    use crate::signature::Signature;
    let mut sig = Signature::new(format!("corpus-eval:{}", env!("CARGO_PKG_VERSION")))
        .field("method", config.method.as_str());
    match config.method {
        Method::Keyword => {
            sig = sig
                .field("norm", crate::text::NORMALIZER_SIGNATURE)
                .field("match", "substring")
                .field("miss", 0.5);
        }
        Method::LlmJudge => {}
        _ => {
            sig = sig.field("threshold", format!("{:.2}", config.threshold));
            sig = if config.anchors {
                sig.part(ANCHORS_SIGNATURE).part(lexicon.signature())
            } else {
                sig.field("anchors", "off")
            };
        }
    }
    if config.method == Method::Hybrid {
        sig = sig
            .field("band", config.band)
            .field("judge_top", config.judge_top);
    }
    if let Some(e) = embedder {
        sig = sig.part(e.signature());
    }
    if let Some(j) = judge {
        sig = sig.part(j.signature());
    }
    sig.long()
}

/// The columns of `items.csv`.
pub const ITEM_COLUMNS: [&str; 7] = [
    "id",
    "system",
    "method",
    "score",
    "similarity",
    "verdict",
    "label",
];

/// A score or label as `pass`/`fail` (a score passes above
/// [`crate::semantic::methods::POSITIVE_ABOVE`], as the summary's accuracy
/// counts it), so that `corpus-eval agreement RUN --id id --raters
/// verdict,label` compares like with like.
fn pass_fail(pass: bool) -> &'static str {
    if pass {
        "pass"
    } else {
        "fail"
    }
}

/// `items.csv`: one row per item with its id, system, method, score,
/// similarity, the verdict (`pass`/`fail`, empty when unscored) and the
/// human label (`pass`/`fail`, empty when unlabelled).
pub fn items_csv(scores: &[crate::judge_answers::ItemScore]) -> String {
    let mut out = crate::report::csv::CsvBuffer::new();
    out.record(ITEM_COLUMNS);
    let number = |x: Option<f64>| x.map(|v| (v + 0.0).to_string()).unwrap_or_default();
    for s in scores {
        let (score, similarity) = (number(s.score), number(s.similarity));
        let verdict = s.score.map_or("", |v| {
            pass_fail(v > crate::semantic::methods::POSITIVE_ABOVE)
        });
        out.record([
            s.id.as_str(),
            s.system.as_str(),
            s.method.as_str(),
            &score,
            &similarity,
            verdict,
            s.label.map_or("", pass_fail),
        ]);
    }
    out.into_string()
}

/// Writes the run folder (scores.jsonl, summary.json, the score
/// distributions, manifest.json) under `config.out`.
pub fn write_run(
    config: &Config,
    input: (&Path, &[u8]),
    context: &Context,
    output: &Output,
    started: SystemTime,
) -> Result<PathBuf, JobError> {
    let mut inputs = BTreeMap::from([("input".to_string(), InputFile::new(input.0, input.1))]);
    if let Some((path, bytes, _)) = &context.validation {
        inputs.insert("validation".into(), InputFile::new(path, bytes));
    }
    let manifest = Manifest::new(
        "judge-answers",
        inputs,
        output.settings.clone(),
        output.summary.signature.clone(),
        started,
    )
    .with_config(super::to_value(config))
    .with_lexicon(&context.lexicon);
    write_outputs(
        RunWriter::create(&config.out, started, manifest)?,
        output,
        config.no_plots,
    )
}

/// Writes scores.jsonl, items.csv, summary.json and (unless `no_plots`)
/// the score distributions into `run`, and finishes it.
pub fn write_outputs(
    mut run: RunWriter,
    output: &Output,
    no_plots: bool,
) -> Result<PathBuf, JobError> {
    let mut lines = Vec::new();
    for s in &output.scores {
        serde_json::to_writer(&mut lines, s).map_err(|e| JobError::Input(e.to_string()))?;
        lines.push(b'\n');
    }
    run.write("scores.jsonl", &lines)?;
    run.write("items.csv", items_csv(&output.scores).as_bytes())?;
    run.write_json("summary.json", &output.summary)?;
    #[cfg(feature = "charts")]
    if !no_plots {
        use crate::views::charts::{render_score_histogram, ScoreHistogram};
        for (name, values) in &output.histograms {
            let half = values.iter().filter(|v| **v == 0.5).count();
            let title = format!(
                "Score distribution: {name} (n={}, scores of 0.5: {half})",
                values.len()
            );
            run.render(&format!("score_distribution_{name}.png"), |path| {
                render_score_histogram(
                    path,
                    &ScoreHistogram {
                        title: &title,
                        footnote: &crate::signature::shorten(&output.summary.signature),
                        scores: values,
                    },
                )
            })?;
        }
    }
    #[cfg(not(feature = "charts"))]
    let _ = no_plots;
    Ok(run.finish()?)
}

/// Runs the whole job on an input file: loads, plans (the estimate goes to
/// stderr; above `max_cost` nothing is called), judges, scores and writes
/// the run folder (`rerun` calls this).
pub fn execute(config: &Config, input: &Path) -> Result<(PathBuf, Output), JobError> {
    let started = SystemTime::now();
    let bytes = super::read_input(input)?;
    let context = Context::load(config, input)?;
    let plan = context.plan(config)?;
    if let Some(e) = plan.estimate()? {
        errln!("{}", estimate_line(Some(&e), config.method));
    }
    let output = plan.run(&report_progress)?;
    let path = write_run(config, (input, &bytes), &context, &output, started)?;
    Ok((path, output))
}

/// The judge's progress (`done` of `total` verdicts) as the stage
/// "judging" of [`crate::progress`]: a bar on a terminal, nothing otherwise.
pub fn report_progress(done: usize, total: usize) {
    if done <= 1 {
        crate::progress::start("judging", total as u64);
    }
    crate::progress::advance(1);
    if done == total {
        crate::progress::finish();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_anchors_choice_is_a_serde_name() {
        super::super::settings::names_round_trip::<super::Anchors>();
    }
}
