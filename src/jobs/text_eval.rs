//! The text evaluator (accuracy, relevance, safety and quality per question
//! category) as a typed job. The semantic cosines come in with the rows:
//! sentence embeddings when the command has the model, or the TF-IDF
//! fallback ([`fallback_pairs`]), which needs no model.
//!
//! ```
//! use corpus_eval::jobs::text_eval::{fallback_pairs, run, Config, Inputs};
//! use corpus_eval::lexicon::Lexicon;
//! use corpus_eval::texteval::{Category, TextRow};
//!
//! let rows = vec![TextRow {
//!     id: "1".into(),
//!     category: Category::Factual,
//!     question: "What is the capital of France?".into(),
//!     reference: "The capital of France is Paris.".into(),
//!     response: "The capital of France is Paris.".into(),
//! }];
//! let lexicon = Lexicon::embedded().unwrap();
//! let semantics = fallback_pairs(&rows, "no model in this example");
//! let out = run(&Config::default(), &rows, &Inputs::defaults(&lexicon), &semantics).unwrap();
//! assert_eq!(out.results.len(), 1);
//! assert_eq!(out.summary["embeddings"], "fallback-tfidf");
//! assert!(out.signature.starts_with("text-eval:v1|profile:reference|"));
//! ```

use super::{ConfigError, JobConfig, JobError};
use crate::lexicon::Lexicon;
use crate::report::fnv1a;
use crate::texteval::config::{Thresholds, Weights};
use crate::texteval::output::{self, TextResult};
use crate::texteval::patterns::Patterns;
use crate::texteval::{
    fallback_space, relevance_space, Evaluator, Profile, SemanticPair, SemanticSource, TextRow,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The settings of `corpus-eval text-eval` (the defaults are the command
/// line's). The weights, thresholds and pattern files are inputs of the run
/// (their digests are in the manifest). Each field is a key of a
/// `--config` file and a flag.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    #[shared]
    pub out: PathBuf,
    /// JSON file overriding weights: {"categories": {"Factual":
    /// {"accuracy", "relevance", "safety", "quality"}, ...}, "accuracy":
    /// {...}, "relevance": {...}, "quality": {...}} (any subset).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// JSON file overriding pass thresholds: {"accuracy", "relevance",
    /// "safety", "quality"} (any subset).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// Pattern file replacing the bundled datasets/text-eval-patterns.json.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "FILE")]
    pub patterns: Option<PathBuf>,
    /// reference: the original framework's published numbers; standard:
    /// conventional definitions.
    #[setting(default = Profile::Reference, choices)]
    pub profile: Profile,
    /// Compute the semantic columns with the TF-IDF fallback instead of
    /// the embedding model.
    pub no_embeddings: bool,
    /// Fail (exit 2, naming the fetch command) when no embedding model is
    /// found, instead of falling back to TF-IDF.
    pub require_model: bool,
    /// Folder of the sentence-embedding model (default:
    /// $CORPUS_EVAL_MODEL_DIR, then models/all-MiniLM-L6-v2, then the
    /// Hugging Face cache).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// The forward pass: fused, or candle-transformers' BertModel.
    #[setting(default = "fused".into(), choices_in = "super::ENGINES")]
    pub engine: String,
    #[shared]
    pub wordnet: Option<PathBuf>,
    /// TF-IDF spaces are still fitted on every row.
    #[shared]
    pub shard: Option<crate::shard::Shard>,
    #[shared]
    pub fail_under: std::collections::BTreeMap<String, f64>,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "text-eval";
    const GATES: &'static [crate::gates::Metric] = crate::gates::TEXT_EVAL;
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)?;
        if self.require_model && self.no_embeddings {
            return Err(ConfigError::Invalid {
                field: "--require-model".into(),
                message: "asks for the embedding model, --no-embeddings for none: give one of them"
                    .into(),
            });
        }
        super::check_engine("--engine", &self.engine)
    }

    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        super::unset_notes!(self;
            weights => "the bundled weights",
            thresholds => "the bundled pass thresholds",
            patterns => "the bundled pattern file",
            model_dir => "found as the docs say",
            wordnet => "the embedded WordNet 3.0 lexicon",
            shard => "every row: no shard")
    }
}

/// The evaluator's parsed inputs besides the rows.
pub struct Inputs<'a> {
    /// WordNet.
    pub lexicon: &'a Lexicon,
    /// Weights (the seed's, or a file's overrides).
    pub weights: Weights,
    /// Pass thresholds.
    pub thresholds: Thresholds,
    /// The pattern file.
    pub patterns: Patterns,
}

impl<'a> Inputs<'a> {
    /// The default weights, thresholds and bundled patterns.
    pub fn defaults(lexicon: &'a Lexicon) -> Inputs<'a> {
        Inputs {
            lexicon,
            weights: Weights::default(),
            thresholds: Thresholds::default(),
            patterns: Patterns::bundled(),
        }
    }
}

/// Every row's two semantic cosines and where they came from.
#[derive(Debug, Clone)]
pub struct Semantics {
    /// Per row, in row order.
    pub pairs: Vec<SemanticPair>,
    /// Embeddings or the fallback.
    pub source: SemanticSource,
    /// The model's signature, or why the fallback was used.
    pub detail: String,
}

/// The TF-IDF fallback cosines (fitted on the rows' texts), with the reason
/// for using them.
pub fn fallback_pairs(rows: &[TextRow], why: &str) -> Semantics {
    let space = fallback_space(rows);
    let pairs = rows
        .par_iter()
        .map(|r| SemanticPair {
            similarity: space.cosine(&r.reference, &r.response),
            relevance: space.cosine(&r.question, &r.response),
        })
        .collect();
    Semantics {
        pairs,
        source: SemanticSource::FallbackTfidf,
        detail: why.to_string(),
    }
}

/// What the job produces.
#[derive(Debug, Clone)]
pub struct Output {
    /// One result per row (`results.json`, `results.tsv`).
    pub results: Vec<TextResult>,
    /// `summary.json`.
    pub summary: Value,
    /// The metric signature.
    pub signature: String,
    /// Notes on columns computed by the fallback.
    pub notes: Value,
}

/// Evaluates every row (in parallel) given its semantic cosines.
pub fn run(
    config: &Config,
    rows: &[TextRow],
    inputs: &Inputs,
    semantics: &Semantics,
) -> Result<Output, JobError> {
    run_kept(config, rows, None, inputs, semantics)
}

/// Evaluates the rows `keep` marks (all with None), the run-wide TF-IDF
/// space fitted on every row; `semantics` holds the kept rows' cosines.
pub fn run_kept(
    config: &Config,
    all_rows: &[TextRow],
    keep: Option<&[bool]>,
    inputs: &Inputs,
    semantics: &Semantics,
) -> Result<Output, JobError> {
    config.validate()?;
    if all_rows.is_empty() {
        return Err(JobError::Input("no rows".into()));
    }
    let rows: Vec<&TextRow> = kept(all_rows, keep).collect();
    if semantics.pairs.len() != rows.len() {
        return Err(JobError::Input(format!(
            "{} semantic pairs for {} rows",
            semantics.pairs.len(),
            rows.len()
        )));
    }
    let evaluator = Evaluator {
        profile: config.profile,
        lexicon: inputs.lexicon,
        patterns: &inputs.patterns,
        weights: &inputs.weights,
        thresholds: &inputs.thresholds,
        relevance_space: relevance_space(config.profile, all_rows),
    };
    crate::progress::start("scoring rows", rows.len() as u64);
    let results: Vec<TextResult> = rows
        .par_iter()
        .zip(&semantics.pairs)
        .map(|(row, pair)| {
            crate::progress::advance(1);
            evaluator.evaluate(row, *pair)
        })
        .collect();
    crate::progress::finish();
    let signature = signature(config.profile, semantics, inputs);
    let notes = column_notes(semantics);
    let head = SummaryHead {
        profile: json!(config.profile.as_str()),
        embeddings: json!(semantics.source.as_str()),
        degraded: (semantics.source == SemanticSource::FallbackTfidf)
            .then(|| json!(degraded_note(semantics))),
        notes: notes.clone(),
        weights: json!(inputs.weights),
        thresholds: json!(inputs.thresholds),
        signature: json!(signature),
    };
    let summary = summary_with_head(&results, &head);
    Ok(Output {
        results,
        summary,
        signature,
        notes,
    })
}

/// The rows `keep` marks (all with None).
fn kept<'r>(rows: &'r [TextRow], keep: Option<&'r [bool]>) -> impl Iterator<Item = &'r TextRow> {
    rows.iter()
        .enumerate()
        .filter(move |(i, _)| keep.is_none_or(|k| k.get(*i).copied().unwrap_or(false)))
        .map(|(_, r)| r)
}

/// What summary.json says besides the results' statistics (a merge takes
/// it from a shard's summary.json).
#[derive(Debug, Clone)]
pub struct SummaryHead {
    /// The profile's name.
    pub profile: Value,
    /// `embeddings` or `fallback-tfidf`.
    pub embeddings: Value,
    /// The degraded-mode note, when the fallback was used.
    pub degraded: Option<Value>,
    /// Notes on columns computed by the fallback.
    pub notes: Value,
    /// The weights used.
    pub weights: Value,
    /// The pass thresholds used.
    pub thresholds: Value,
    /// The metric signature.
    pub signature: Value,
}

impl SummaryHead {
    /// The head of a run's summary.json.
    pub fn from_summary(summary: &Value) -> SummaryHead {
        SummaryHead {
            profile: summary["profile"].clone(),
            embeddings: summary["embeddings"].clone(),
            degraded: summary.get("degraded").cloned(),
            notes: summary["notes"].clone(),
            weights: summary["weights"].clone(),
            thresholds: summary["thresholds"].clone(),
            signature: summary["signature"].clone(),
        }
    }
}

/// summary.json: the head's fields around the results' statistics.
pub fn summary_with_head(results: &[TextResult], head: &SummaryHead) -> Value {
    let mut summary = output::summary(results);
    if let Value::Object(m) = &mut summary {
        let mut out = serde_json::Map::new();
        out.insert("command".into(), json!("text-eval"));
        out.insert("profile".into(), head.profile.clone());
        out.insert("embeddings".into(), head.embeddings.clone());
        if let Some(d) = &head.degraded {
            out.insert("degraded".into(), d.clone());
        }
        out.insert("notes".into(), head.notes.clone());
        out.append(m);
        out.insert("weights".into(), head.weights.clone());
        out.insert("thresholds".into(), head.thresholds.clone());
        out.insert("signature".into(), head.signature.clone());
        *m = out;
    }
    summary
}

/// Whether a model found nowhere falls back to TF-IDF: not when a folder
/// was named (`--model-dir`) or `--require-model` asks for the model.
///
/// ```
/// use corpus_eval::jobs::text_eval::{may_fall_back, Config};
/// assert!(may_fall_back(&Config::default()));
/// assert!(!may_fall_back(&Config { require_model: true, ..Config::default() }));
/// assert!(!may_fall_back(&Config { model_dir: Some("m".into()), ..Config::default() }));
/// ```
pub fn may_fall_back(config: &Config) -> bool {
    config.model_dir.is_none() && !config.require_model
}

/// What a run without the embedding model lacks, said wherever its
/// numbers are shown (summary.json `degraded`, chart titles, the terminal
/// table).
pub fn degraded_note(semantics: &Semantics) -> String {
    format!(
        "semantic columns from the TF-IDF fallback, not sentence embeddings ({})",
        semantics.detail
    )
}

#[cfg(feature = "cli")]
/// What `text-eval` prints: the table of the summary, a note when the
/// semantic columns are degraded, then the signature.
pub fn summary_text(output: &Output, semantics: &Semantics) -> String {
    let mut text = crate::views::text::text_eval_table(&output.summary);
    if semantics.source == crate::texteval::SemanticSource::FallbackTfidf {
        text.push_str(&format!(
            "\ndegraded: {}; for sentence embeddings run scripts/fetch-model (or --require-model to make this an error)",
            degraded_note(semantics)
        ));
    }
    format!("{text}\nsignature: {}", output.signature)
}

/// The metric signature, sacrebleu style.
fn signature(profile: Profile, sem: &Semantics, inputs: &Inputs) -> String {
    let (bleu, tfidf, read) = match profile {
        Profile::Reference => (
            "bleu:split-clipped-dropzero+bp-prep",
            "tfidf:fixed-8docs-sklearn-smooth-l2",
            "readability:chars-per-word",
        ),
        Profile::Standard => (
            "bleu:sacrebleu-sentence-13a-exp",
            "tfidf:run-collection-sklearn-smooth-l2",
            "readability:flesch-kincaid",
        ),
    };
    let semantic = match sem.source {
        SemanticSource::Embeddings => sem.detail.clone(),
        SemanticSource::FallbackTfidf => "semantic:fallback-tfidf".into(),
    };
    let w = serde_json::to_vec(&inputs.weights).unwrap_or_default();
    let (patterns, thresholds) = (&inputs.patterns, &inputs.thresholds);
    crate::signature::Signature::new("text-eval:v1")
        .field("profile", profile.as_str())
        .field("prep", "py-lower-strip-nonword")
        .field("rouge", "clipped-f1")
        .part(bleu)
        .part(tfidf)
        .part(read)
        .part(semantic)
        .part(inputs.lexicon.signature())
        .field(
            "patterns",
            &patterns.digest[..12.min(patterns.digest.len())],
        )
        .field("weights", format!("{:016x}", fnv1a(&w)))
        .field(
            "thresholds",
            format!(
                "a{}-r{}-s{}-q{}",
                thresholds.accuracy, thresholds.relevance, thresholds.safety, thresholds.quality
            ),
        )
        .long()
}

fn column_notes(sem: &Semantics) -> Value {
    match sem.source {
        SemanticSource::Embeddings => json!({}),
        SemanticSource::FallbackTfidf => {
            let note = format!(
                "TF-IDF cosine fitted on the run's questions, references and responses (fallback-tfidf: {}), not sentence embeddings",
                sem.detail
            );
            json!({
                "accuracy_semantic_similarity": note,
                "relevance_semantic_relevance": note,
            })
        }
    }
}

/// The semantic cosines the configuration asks for: sentence embeddings,
/// or the TF-IDF fallback with `no_embeddings` or when no model is found
/// anywhere (a warning says so). A model folder that is named but missing
/// or broken is an error.
#[cfg(feature = "semantic")]
pub fn semantics(config: &Config, rows: &[TextRow]) -> Result<Semantics, JobError> {
    semantics_kept(config, rows, None)
}

/// The kept rows' fallback cosines, the TF-IDF space fitted on every row.
fn fallback_kept(rows: &[TextRow], keep: Option<&[bool]>, why: &str) -> Semantics {
    let mut all = fallback_pairs(rows, why);
    if let Some(k) = keep {
        let mut i = 0;
        all.pairs.retain(|_| {
            i += 1;
            k.get(i - 1).copied().unwrap_or(false)
        });
    }
    all
}

/// [`semantics`] for the rows `keep` marks (all with None): embeddings of
/// those rows only, or fallback cosines from a space fitted on every row.
#[cfg(feature = "semantic")]
pub fn semantics_kept(
    config: &Config,
    all_rows: &[TextRow],
    keep: Option<&[bool]>,
) -> Result<Semantics, JobError> {
    let search = crate::semantic::ModelSearch::from_env(config.model_dir.clone());
    semantics_searched(config, all_rows, keep, &search)
}

/// [`semantics_kept`] with the model looked for where `search` says.
#[cfg(feature = "semantic")]
pub fn semantics_searched(
    config: &Config,
    all_rows: &[TextRow],
    keep: Option<&[bool]>,
    search: &crate::semantic::ModelSearch,
) -> Result<Semantics, JobError> {
    use crate::semantic::{load_model, EmbeddingCache, SemanticError};
    if config.no_embeddings {
        return Ok(fallback_kept(all_rows, keep, "--no-embeddings"));
    }
    let engine = super::engine_of("--engine", &config.engine)?;
    let embedder = match load_model(search, engine) {
        Ok((e, _)) => e,
        // Only a model found nowhere falls back; a folder named by
        // --model-dir or $CORPUS_EVAL_MODEL_DIR, or an incomplete or broken
        // model, is an error (exit 2).
        Err(SemanticError::NoModel { .. }) if may_fall_back(config) => {
            errln!(
                "warning: no embedding model found; the semantic columns use the TF-IDF fallback (embeddings: \"fallback-tfidf\" in summary.json). Run scripts/fetch-model to get all-MiniLM-L6-v2."
            );
            return Ok(fallback_kept(all_rows, keep, "no embedding model found"));
        }
        Err(e) => return Err(e.into()),
    };
    let cache = EmbeddingCache::new(&embedder);
    let texts: Vec<(&str, &str)> = kept(all_rows, keep)
        .flat_map(|r| {
            [
                (r.reference.as_str(), r.response.as_str()),
                (r.question.as_str(), r.response.as_str()),
            ]
        })
        .collect();
    let cos = cache.similarities(&texts)?;
    crate::semantic::warn_truncation(&embedder);
    Ok(Semantics {
        pairs: cos
            .chunks(2)
            .map(|c| SemanticPair {
                similarity: c[0],
                relevance: c[1],
            })
            .collect(),
        source: SemanticSource::Embeddings,
        detail: embedder.signature(),
    })
}

/// Without the `semantic` feature the semantic columns always use the
/// TF-IDF fallback.
#[cfg(not(feature = "semantic"))]
pub fn semantics(config: &Config, rows: &[TextRow]) -> Result<Semantics, JobError> {
    semantics_kept(config, rows, None)
}

/// [`semantics`] for the rows `keep` marks (all with None).
#[cfg(not(feature = "semantic"))]
pub fn semantics_kept(
    config: &Config,
    rows: &[TextRow],
    keep: Option<&[bool]>,
) -> Result<Semantics, JobError> {
    if config.require_model && !config.no_embeddings {
        return Err(JobError::Input(
            "--require-model: this build has no embedding model support (the `semantic` feature)"
                .into(),
        ));
    }
    let why = if config.no_embeddings {
        "--no-embeddings"
    } else {
        "built without the semantic feature"
    };
    Ok(fallback_kept(rows, keep, why))
}

/// The weights, thresholds and patterns the configuration names (warnings
/// on stderr).
pub fn read_files(config: &Config) -> Result<(Weights, Thresholds, Patterns), JobError> {
    let text_of = |p: &PathBuf| super::read_text(p);
    let weights = match &config.weights {
        Some(p) => {
            let (w, warnings) = Weights::from_json(&p.display().to_string(), &text_of(p)?)
                .map_err(|e| JobError::Input(e.to_string()))?;
            for w in warnings {
                errln!("warning: {w}");
            }
            w
        }
        None => Weights::default(),
    };
    let thresholds = match &config.thresholds {
        Some(p) => Thresholds::from_json(&p.display().to_string(), &text_of(p)?)
            .map_err(|e| JobError::Input(e.to_string()))?,
        None => Thresholds::default(),
    };
    let patterns = match &config.patterns {
        Some(p) => Patterns::parse(&p.display().to_string(), &text_of(p)?)
            .map_err(|e| JobError::Input(e.to_string()))?,
        None => Patterns::bundled(),
    };
    Ok((weights, thresholds, patterns))
}

/// Runs the job on an input file and writes its run folder under
/// `config.out` (the command line and `rerun` call this); returns the
/// folder, the output and the semantic source used.
pub fn execute(config: &Config, input: &Path) -> Result<(PathBuf, Output, Semantics), JobError> {
    use crate::report::manifest::{InputFile, Manifest};
    use std::collections::BTreeMap;
    let started = std::time::SystemTime::now();
    config.validate()?;
    let (weights, thresholds, patterns) = read_files(config)?;
    let input_bytes = super::read_input(input)?;
    let rows = crate::texteval::input::load_text_rows(input)?;
    if rows.is_empty() {
        return Err(JobError::Input(format!("{}: no rows", input.display())));
    }
    let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
    let keep: Option<Vec<bool>> = config
        .shard
        .map(|shard| rows.iter().map(|r| shard.contains(&r.id)).collect());
    let sem = semantics_kept(config, &rows, keep.as_deref())?;
    let job_inputs = Inputs {
        lexicon: &lexicon,
        weights,
        thresholds,
        patterns,
    };
    let output = run_kept(config, &rows, keep.as_deref(), &job_inputs, &sem)?;
    let mut inputs = BTreeMap::from([("input".to_string(), InputFile::new(input, &input_bytes))]);
    for (name, p) in [
        ("weights", &config.weights),
        ("thresholds", &config.thresholds),
        ("patterns", &config.patterns),
    ] {
        if let Some(p) = p {
            inputs.insert(name.into(), InputFile::new(p, &super::read_input(p)?));
        }
    }
    let mut settings = json!({
        "profile": config.profile.as_str(),
        "embeddings": sem.source.as_str(),
        "embeddings_detail": sem.detail,
        "notes": output.notes,
        "weights": job_inputs.weights,
        "thresholds": job_inputs.thresholds,
        "patterns_sha256": job_inputs.patterns.digest,
        "rows": output.results.len(),
        "out": config.out.display().to_string(),
    });
    if let (Some(shard), Value::Object(m)) = (config.shard, &mut settings) {
        m.insert("shard".into(), json!(shard));
    }
    let manifest = Manifest::new(
        "text-eval",
        inputs,
        settings,
        output.signature.clone(),
        started,
    )
    .with_config(super::to_value(config))
    .with_lexicon(&lexicon);
    let run = crate::report::run::RunWriter::create(&config.out, started, manifest)?;
    let degraded = sem.source == SemanticSource::FallbackTfidf;
    Ok((write_run(run, &output, degraded)?, output, sem))
}

/// Writes the outputs into the run folder and finishes it (`execute` and
/// `merge` call this); `degraded` marks the charts of a fallback run.
pub fn write_run(
    mut run: crate::report::run::RunWriter,
    output: &Output,
    degraded: bool,
) -> Result<PathBuf, JobError> {
    run.write("results.tsv", output::to_tsv(&output.results).as_bytes())?;
    run.write("items.csv", output::items_csv(&output.results).as_bytes())?;
    run.write_json_array("results.json", &output.results)?;
    run.write_json("summary.json", &output.summary)?;
    #[cfg(feature = "charts")]
    draw_charts(
        &mut run,
        &output.results,
        &output.signature,
        degraded.then_some(" [TF-IDF fallback: no embedding model]"),
    )?;
    #[cfg(not(feature = "charts"))]
    let _ = degraded;
    Ok(run.finish()?)
}

#[cfg(feature = "charts")]
fn draw_charts(
    run: &mut crate::report::run::RunWriter,
    results: &[TextResult],
    signature: &str,
    degraded: Option<&str>,
) -> Result<(), crate::report::ReportError> {
    let degraded = degraded.unwrap_or("");
    use crate::texteval::output::DIMENSIONS;
    use crate::texteval::Category;
    use crate::views::charts::{render_bar_chart, Bar, BarChart};
    let short = crate::signature::shorten(signature);
    let mut composite_bars = Vec::new();
    let mut pass_bars = Vec::new();
    for c in Category::ALL {
        let rows: Vec<&TextResult> = results
            .iter()
            .filter(|r| r.category == c.as_str())
            .collect();
        if rows.is_empty() {
            continue;
        }
        let n = rows.len();
        let mean =
            |f: &dyn Fn(&TextResult) -> f64| rows.iter().map(|r| f(r)).sum::<f64>() / n as f64;
        composite_bars.push(Bar {
            label: format!("{} · overall", c.as_str()),
            value: mean(&|r| r.overall_score).clamp(0.0, 1.0),
            n,
            ci: None,
        });
        for d in DIMENSIONS {
            let value = mean(&|r| r.composite(d));
            let passed = mean(&|r| f64::from(u8::from(r.passed(d))));
            let label = format!("{} · {d}", c.as_str());
            composite_bars.push(Bar {
                label: label.clone(),
                value: value.clamp(0.0, 1.0),
                n,
                ci: None,
            });
            pass_bars.push(Bar {
                label,
                value: passed,
                n,
                ci: None,
            });
        }
    }
    run.render("composite_scores.png", |path| {
        render_bar_chart(
            path,
            &BarChart {
                title: &format!("Text evaluation: mean composite scores per category{degraded}"),
                value_label: "mean score (0-1)",
                category_label: "category · dimension",
                footnote: &short,
                bars: &composite_bars,
            },
        )
    })?;
    run.render("pass_rates.png", |path| {
        render_bar_chart(
            path,
            &BarChart {
                title: &format!("Text evaluation: pass rates per category{degraded}"),
                value_label: "share of rows passing the threshold",
                category_label: "category · dimension",
                footnote: &short,
                bars: &pass_bars,
            },
        )
    })
}

#[cfg(all(test, feature = "semantic"))]
mod tests {
    use super::*;
    use crate::texteval::{Category, TextRow};

    fn rows() -> Vec<TextRow> {
        vec![TextRow {
            id: "r1".into(),
            category: Category::Factual,
            question: "What is the capital of France?".into(),
            reference: "Paris is the capital of France.".into(),
            response: "The capital of France is Paris.".into(),
        }]
    }

    /// A search that finds no model anywhere (no folders, no cache).
    fn nowhere() -> crate::semantic::ModelSearch {
        crate::semantic::ModelSearch::default()
    }

    #[test]
    fn no_model_anywhere_falls_back_unless_the_model_is_required() {
        let sem = semantics_searched(&Config::default(), &rows(), None, &nowhere()).unwrap();
        assert_eq!(sem.source, SemanticSource::FallbackTfidf);
        assert_eq!(sem.pairs.len(), 1);
        let strict = Config {
            require_model: true,
            ..Config::default()
        };
        let err = semantics_searched(&strict, &rows(), None, &nowhere()).unwrap_err();
        assert!(err.is_input(), "{err}");
        let message = err.to_string();
        assert!(message.contains("scripts/fetch-model"), "{message}");
    }

    #[test]
    fn require_model_and_no_embeddings_contradict() {
        let both = Config {
            require_model: true,
            no_embeddings: true,
            ..Config::default()
        };
        let err = both.validate().unwrap_err().to_string();
        assert!(err.contains("--require-model"), "{err}");
        assert!(err.contains("--no-embeddings"), "{err}");
    }
}
