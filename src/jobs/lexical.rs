//! Literature-comparable lexical metrics as a typed job: ROUGE (as
//! rouge-score), BLEU and chrF (as sacrebleu), SQuAD EM/F1 (as the official
//! scripts) over prediction/reference pairs, per item and over the corpus,
//! each with a signature.
//!
//! ```
//! use corpus_eval::jobs::lexical::{score, Config, Item};
//! let items = vec![Item {
//!     id: None,
//!     prediction: "the cat is on the mat".into(),
//!     references: vec!["the cat sits on the mat".into()],
//! }];
//! let config = Config { metrics: vec!["rouge1".into(), "bleu".into()], ..Config::default() };
//! let out = score(&config, &items).unwrap();
//! assert!((out.summary["rouge1"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-12);
//! assert!((out.summary["bleu"].as_f64().unwrap() - 37.99178428257963).abs() < 1e-9);
//! ```

use super::{ConfigError, JobConfig, JobError};
use crate::lexical::bleu::{self, Bleu, Smooth, Tokenize};
use crate::lexical::rouge::{RougeType, Scorer};
use crate::lexical::{chrf, squad};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use crate::signature::Signature;
use crate::stats::{percentile, SplitMix64};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Every metric name `--metric` takes (besides `rouge1`..`rouge9`).
pub const METRICS: &[&str] = &[
    "rouge1",
    "rouge2",
    "rougeL",
    "rougeLsum",
    "bleu",
    "chrf",
    "squad",
];
/// Most resamples.
pub const MAX_RESAMPLES: usize = 1_000_000;
/// Fewest resamples, unless 0 (no intervals).
pub const MIN_RESAMPLES: usize = 100;
/// The reference libraries' versions the parity tests pin.
pub const ROUGE_SCORE_VERSION: &str = "0.1.2";
/// sacrebleu's version the parity tests pin.
pub const SACREBLEU_VERSION: &str = "2.6.0";

/// The settings of `corpus-eval lexical` (the defaults are the command
/// line's). Each field is a key of a `--config` file and a flag
/// (`metrics`: `--metric`).
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    /// Metrics, comma-separated, in output order: rouge1, rouge2, rougeL,
    /// rougeLsum (and rouge3..rouge9), bleu, chrf, squad.
    #[setting(default = METRICS.iter().map(|m| m.to_string()).collect(), flag = "metric", value_name = "M,...")]
    pub metrics: Vec<String>,
    /// ROUGE: Porter-stem tokens longer than 3 characters (NLTK's variant,
    /// as rouge-score's use_stemmer).
    pub stemmer: bool,
    /// ROUGE-Lsum: split lines into sentences at . ! ? first (a simple
    /// rule, not NLTK's Punkt).
    pub split_summaries: bool,
    /// BLEU tokenizer.
    #[setting(default = "13a".into(), choices = "13a|none|intl|char")]
    pub bleu_tokenize: String,
    /// BLEU smoothing.
    #[setting(default = "exp".into(), choices = "exp|floor|add-k|none")]
    pub bleu_smooth: String,
    /// BLEU smoothing value for floor (default 0.1) or add-k (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "X")]
    pub bleu_smooth_value: Option<f64>,
    /// SQuAD script conventions: 1.1 or 2.0.
    #[setting(default = "2.0".into(), choices = "1.1|2.0")]
    pub squad_version: String,
    /// The prediction field of an items file (default: prediction; a run
    /// folder: its command's answer field).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "FIELD")]
    pub prediction_field: Option<String>,
    /// The reference field (a text or a list of texts) of an items file
    /// (default: references, else reference; a run folder: its command's).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "FIELD")]
    pub reference_field: Option<String>,
    /// Bootstrap resamples over items for 95% intervals; 0: none.
    #[setting(default = 0)]
    pub resamples: usize,
    /// Bootstrap seed.
    #[setting(default = 42)]
    pub seed: u64,
    /// Write one JSON line per item to FILE.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "FILE")]
    pub per_item: Option<PathBuf>,
    /// Write a run folder under DIR (manifest.json, summary.json,
    /// items.jsonl, items.csv); none: no run folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[shared]
    pub fail_under: std::collections::BTreeMap<String, f64>,
}

fn invalid(field: &str, message: String) -> ConfigError {
    ConfigError::Invalid {
        field: field.into(),
        message,
    }
}

impl JobConfig for Config {
    const COMMAND: &'static str = "lexical";
    const GATES: &'static [crate::gates::Metric] = crate::gates::LEXICAL;
    const VERSION: u32 = 1;

    fn validate_printable(&self) -> Result<(), ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)?;
        if self.metrics.is_empty() {
            return Err(invalid("--metric", "names no metric".into()));
        }
        for m in &self.metrics {
            if Metric::parse(m).is_none() {
                return Err(invalid(
                    "--metric",
                    format!(
                        "unknown metric {m:?} (expected {}, or rouge1..rouge9)",
                        METRICS.join(", ")
                    ),
                ));
            }
        }
        if Tokenize::parse(&self.bleu_tokenize).is_none() {
            return Err(invalid(
                "--bleu-tokenize",
                format!(
                    "unknown tokenizer {:?} (expected 13a, intl, char or none)",
                    self.bleu_tokenize
                ),
            ));
        }
        let Some(smooth) = Smooth::parse(&self.bleu_smooth) else {
            return Err(invalid(
                "--bleu-smooth",
                format!(
                    "unknown method {:?} (expected exp, floor, add-k or none)",
                    self.bleu_smooth
                ),
            ));
        };
        if let Some(v) = self.bleu_smooth_value {
            if smooth.default_value().is_none() {
                return Err(invalid(
                    "--bleu-smooth-value",
                    format!("only applies to floor and add-k, not {}", smooth.name()),
                ));
            }
            if !(v.is_finite() && v > 0.0 && v <= 1e6) {
                return Err(invalid(
                    "--bleu-smooth-value",
                    format!("must lie in (0, 1e6], got {v}"),
                ));
            }
        }
        if squad::Version::parse(&self.squad_version).is_none() {
            return Err(invalid(
                "--squad-version",
                format!("expected 1.1 or 2.0, got {:?}", self.squad_version),
            ));
        }
        if self.resamples != 0 && !(MIN_RESAMPLES..=MAX_RESAMPLES).contains(&self.resamples) {
            return Err(invalid(
                "--resamples",
                format!(
                    "must be 0 (no intervals) or lie in [{MIN_RESAMPLES}, {MAX_RESAMPLES}], got {}",
                    self.resamples
                ),
            ));
        }
        for (name, f) in [
            ("--prediction-field", &self.prediction_field),
            ("--reference-field", &self.reference_field),
        ] {
            if f.as_deref().is_some_and(|f| f.trim().is_empty()) {
                return Err(invalid(name, "is empty".into()));
            }
        }
        Ok(())
    }

    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        super::unset_notes!(self;
            bleu_smooth_value => "floor: 0.1, add-k: 1",
            prediction_field => "the items file's prediction field",
            reference_field => "references, else reference",
            per_item => "no per-item file",
            out => "no run folder")
    }
}

/// One metric of the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// A ROUGE variant.
    Rouge(RougeType),
    /// Corpus BLEU (per item: sentence BLEU).
    Bleu,
    /// Corpus chrF (per item: sentence chrF).
    Chrf,
    /// SQuAD EM and F1.
    Squad,
}

impl Metric {
    /// Parses a `--metric` name.
    pub fn parse(name: &str) -> Option<Metric> {
        match name {
            "bleu" => Some(Metric::Bleu),
            "chrf" => Some(Metric::Chrf),
            "squad" => Some(Metric::Squad),
            _ => RougeType::parse(name).map(Metric::Rouge),
        }
    }
}

/// One prediction with its references.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The item's id, when the input has one.
    pub id: Option<String>,
    /// The prediction (system output).
    pub prediction: String,
    /// The references (at least one).
    pub references: Vec<String>,
}

/// What the job computed.
pub struct Output {
    /// The JSON object `--json` prints: the metrics asked for, `n`,
    /// `signatures` (and `intervals` with resamples).
    pub summary: Value,
    plan: Plan,
    ids: Vec<Option<String>>,
    scored: Vec<Scored>,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}

impl Output {
    /// One JSON object per item, in input order (`index`, `id`, the
    /// per-item numbers).
    pub fn items(&self) -> Vec<Value> {
        self.ids
            .iter()
            .zip(&self.scored)
            .enumerate()
            .map(|(i, (id, s))| item_json(&self.plan, i, id.as_deref(), s))
            .collect()
    }

    /// `items.csv`: `index`, `id` (empty when the input has none), then per
    /// ROUGE type `<type>_precision`, `_recall`, `_fmeasure`, and `bleu`,
    /// `chrf`, `squad_em`, `squad_f1` for the metrics asked for.
    pub fn items_csv(&self) -> String {
        use crate::report::csv::number;
        let mut out = crate::report::csv::CsvBuffer::new();
        let mut header = vec!["index".to_string(), "id".to_string()];
        for t in self.plan.rouge.types() {
            for part in ["precision", "recall", "fmeasure"] {
                header.push(format!("{}_{part}", t.name()));
            }
        }
        let first = self.scored.first();
        let has = |f: fn(&Scored) -> bool| first.is_some_and(f);
        let (bleu, chrf, squad) = (
            has(|s| s.bleu.is_some()),
            has(|s| s.chrf.is_some()),
            has(|s| s.squad.is_some()),
        );
        for (on, names) in [
            (bleu, &["bleu"][..]),
            (chrf, &["chrf"][..]),
            (squad, &["squad_em", "squad_f1"][..]),
        ] {
            if on {
                header.extend(names.iter().map(|n| n.to_string()));
            }
        }
        out.record(&header);
        for (i, (id, s)) in self.ids.iter().zip(&self.scored).enumerate() {
            out.field(i.to_string());
            out.field(id.as_deref().unwrap_or(""));
            for r in &s.rouge {
                for v in [r.precision, r.recall, r.fmeasure] {
                    out.field(number(Some(v)));
                }
            }
            if bleu {
                out.field(number(
                    s.bleu.as_ref().map(|b| self.plan.bleu.score(b, true)),
                ));
            }
            if chrf {
                out.field(number(s.chrf.as_ref().map(chrf::score)));
            }
            if squad {
                out.field(number(s.squad.map(|q| q.0)));
                out.field(number(s.squad.map(|q| q.1)));
            }
            out.end_record();
        }
        out.into_string()
    }

    /// The per-item JSON Lines.
    pub fn items_jsonl(&self) -> String {
        let mut out = String::new();
        for (i, (id, s)) in self.ids.iter().zip(&self.scored).enumerate() {
            out.push_str(&item_json(&self.plan, i, id.as_deref(), s).to_string());
            out.push('\n');
        }
        out
    }
}

/// Per-item numbers before they become JSON.
struct Scored {
    rouge: Vec<crate::lexical::rouge::Score>,
    bleu: Option<bleu::Stats>,
    chrf: Option<chrf::Stats>,
    squad: Option<(f64, f64)>,
}

/// A simple sentence split for `--split-summaries`: after `.`, `!` or `?`
/// (and any closing quotes or brackets) followed by whitespace.
pub fn split_sentences(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        out.push(c);
        if matches!(c, '.' | '!' | '?') {
            let mut j = i + 1;
            while j < chars.len() && matches!(chars[j], '"' | '\'' | ')' | ']' | '”' | '’') {
                out.push(chars[j]);
                j += 1;
            }
            if j < chars.len() && crate::lexical::pytext::is_space(chars[j]) {
                out.push('\n');
                while j < chars.len()
                    && chars[j] != '\n'
                    && crate::lexical::pytext::is_space(chars[j])
                {
                    j += 1;
                }
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

struct Plan {
    metrics: Vec<Metric>,
    rouge: Scorer,
    bleu: Bleu,
    squad: squad::Version,
    split: bool,
}

impl Plan {
    fn new(config: &Config) -> Result<Plan, ConfigError> {
        config.validate()?;
        let metrics: Vec<Metric> = config
            .metrics
            .iter()
            .filter_map(|m| Metric::parse(m))
            .collect();
        let rouge_types: Vec<RougeType> = metrics
            .iter()
            .filter_map(|m| match m {
                Metric::Rouge(t) => Some(*t),
                _ => None,
            })
            .collect();
        Ok(Plan {
            rouge: Scorer::new(rouge_types, config.stemmer),
            bleu: Bleu {
                tokenize: Tokenize::parse(&config.bleu_tokenize).unwrap_or(Tokenize::Tok13a),
                smooth: Smooth::parse(&config.bleu_smooth).unwrap_or(Smooth::Exp),
                smooth_value: config.bleu_smooth_value,
            },
            squad: squad::Version::parse(&config.squad_version).unwrap_or(squad::Version::V2),
            split: config.split_summaries,
            metrics,
        })
    }

    fn has(&self, m: Metric) -> bool {
        self.metrics.contains(&m)
    }

    fn score(&self, item: &Item) -> Scored {
        let rouge = if self.rouge.types().is_empty() {
            Vec::new()
        } else if self.split && self.rouge.types().contains(&RougeType::Lsum) {
            let refs: Vec<String> = item.references.iter().map(|r| split_sentences(r)).collect();
            let pred = split_sentences(&item.prediction);
            // Only Lsum sees the split; the other types score the texts.
            let plain = self.rouge.score_multi(&item.references, &item.prediction);
            let split = self.rouge.score_multi(&refs, &pred);
            self.rouge
                .types()
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    if *t == RougeType::Lsum {
                        split[k]
                    } else {
                        plain[k]
                    }
                })
                .collect()
        } else {
            self.rouge.score_multi(&item.references, &item.prediction)
        };
        Scored {
            rouge,
            bleu: self
                .has(Metric::Bleu)
                .then(|| self.bleu.stats(&item.prediction, &item.references)),
            chrf: self
                .has(Metric::Chrf)
                .then(|| chrf::stats(&item.prediction, &item.references)),
            squad: self
                .has(Metric::Squad)
                .then(|| squad::score(&item.prediction, &item.references, self.squad)),
        }
    }
}

/// Corpus-level numbers over a selection of items (all, or a resample).
fn aggregate(
    plan: &Plan,
    scored: &[Scored],
    pick: &mut dyn FnMut() -> usize,
) -> Vec<(String, f64)> {
    let n = scored.len();
    let mut rouge_sums = vec![0.0f64; plan.rouge.types().len()];
    let mut bleu_total = bleu::Stats::default();
    let mut chrf_total: chrf::Stats = [[0; 3]; chrf::CHAR_ORDER];
    let (mut em, mut f1) = (0.0f64, 0.0f64);
    for _ in 0..n {
        let s = &scored[pick()];
        for (k, r) in s.rouge.iter().enumerate() {
            rouge_sums[k] += r.fmeasure;
        }
        if let Some(b) = s.bleu {
            bleu_total += b;
        }
        if let Some(c) = &s.chrf {
            chrf::add(&mut chrf_total, c);
        }
        if let Some((e, f)) = s.squad {
            em += e;
            f1 += f;
        }
    }
    let mut out = Vec::new();
    for m in &plan.metrics {
        match m {
            Metric::Rouge(t) => {
                let k = plan.rouge.types().iter().position(|x| x == t).unwrap_or(0);
                let mean = if n == 0 {
                    0.0
                } else {
                    rouge_sums[k] / n as f64
                };
                out.push((t.name(), mean + 0.0));
            }
            Metric::Bleu => out.push(("bleu".into(), plan.bleu.score(&bleu_total, false) + 0.0)),
            Metric::Chrf => out.push(("chrf".into(), chrf::score(&chrf_total) + 0.0)),
            Metric::Squad => {
                let d = n.max(1) as f64;
                out.push(("squad_em".into(), 100.0 * em / d + 0.0));
                out.push(("squad_f1".into(), 100.0 * f1 / d + 0.0));
            }
        }
    }
    out
}

/// The number of references: `N` when every item has N, else `var`.
fn nrefs(items: &[Item]) -> String {
    let first = items.first().map_or(1, |i| i.references.len());
    if items.iter().all(|i| i.references.len() == first) {
        first.to_string()
    } else {
        "var".into()
    }
}

fn signatures(config: &Config, plan: &Plan, items: &[Item]) -> Map<String, Value> {
    let mut out = Map::new();
    let ci = (config.resamples > 0).then(|| {
        format!(
            "ci:percentile-bootstrap-items-95|resamples:{}|seed:{}|draw:{}",
            config.resamples,
            config.seed,
            crate::stats::ITEMS_DRAW
        )
    });
    let with_ci = |s: Signature| match &ci {
        Some(c) => s.part(c.clone()),
        None => s,
    };
    let nrefs = nrefs(items);
    for m in &plan.metrics {
        let (key, sig) = match m {
            Metric::Rouge(t) => {
                let mut s = Signature::new(t.name())
                    .field("tok", "rouge-score")
                    .field("stem", if config.stemmer { "porter-nltk" } else { "no" });
                if *t == RougeType::Lsum {
                    s = s.field(
                        "split",
                        if config.split_summaries {
                            "sentences"
                        } else {
                            "newline"
                        },
                    );
                }
                let s = s
                    .field("multiref", "max-f")
                    .field("agg", "mean")
                    .field("ref", format!("rouge-score-{ROUGE_SCORE_VERSION}"));
                (t.name(), with_ci(s))
            }
            Metric::Bleu => {
                let s = Signature::new("bleu")
                    .field("nrefs", &nrefs)
                    .part(plan.bleu.signature_fields(false))
                    .field("ref", format!("sacrebleu-{SACREBLEU_VERSION}"));
                ("bleu".into(), with_ci(s))
            }
            Metric::Chrf => {
                let s = Signature::new("chrF2")
                    .field("nrefs", &nrefs)
                    .part(chrf::signature_fields())
                    .field("ref", format!("sacrebleu-{SACREBLEU_VERSION}"));
                ("chrf".into(), with_ci(s))
            }
            Metric::Squad => {
                let s = Signature::new("squad")
                    .field("v", plan.squad.name())
                    .field("norm", "official")
                    .field("multiref", "max")
                    .field("agg", "mean")
                    .field("scale", "0-100");
                ("squad".into(), with_ci(s))
            }
        };
        out.insert(key, Value::String(sig.long()));
    }
    out
}

fn item_json(plan: &Plan, index: usize, id: Option<&str>, s: &Scored) -> Value {
    let mut o = Map::new();
    o.insert("index".into(), json!(index));
    if let Some(id) = id {
        o.insert("id".into(), json!(id));
    }
    for (t, r) in plan.rouge.types().iter().zip(&s.rouge) {
        o.insert(t.name(), serde_json::to_value(r).unwrap_or(Value::Null));
    }
    if let Some(b) = &s.bleu {
        o.insert("bleu".into(), json!(plan.bleu.score(b, true) + 0.0));
    }
    if let Some(c) = &s.chrf {
        o.insert("chrf".into(), json!(chrf::score(c) + 0.0));
    }
    if let Some((em, f1)) = s.squad {
        o.insert("squad_em".into(), json!(em));
        o.insert("squad_f1".into(), json!(f1));
    }
    Value::Object(o)
}

/// Scores the items (in parallel; the corpus numbers sum in input order).
pub fn score(config: &Config, items: &[Item]) -> Result<Output, JobError> {
    let plan = Plan::new(config)?;
    if items.is_empty() {
        return Err(JobError::Input(
            "no items to score (the input holds no prediction)".into(),
        ));
    }
    if let Some(i) = items.iter().position(|i| i.references.is_empty()) {
        return Err(JobError::Input(format!(
            "item {i}{}: no reference to score against",
            items[i]
                .id
                .as_ref()
                .map(|id| format!(" (id {id:?})"))
                .unwrap_or_default()
        )));
    }
    crate::progress::start("scoring items", items.len() as u64);
    let scored: Vec<Scored> = items
        .par_iter()
        .map(|i| {
            crate::progress::advance(1);
            plan.score(i)
        })
        .collect();
    crate::progress::finish();
    let mut all = 0..scored.len();
    let values = aggregate(&plan, &scored, &mut || all.next().unwrap_or(0));
    let mut summary = Map::new();
    for (k, v) in &values {
        summary.insert(k.clone(), json!(v));
    }
    summary.insert("n".into(), json!(items.len()));
    summary.insert(
        "signatures".into(),
        Value::Object(signatures(config, &plan, items)),
    );
    if config.resamples > 0 && !scored.is_empty() {
        let n = scored.len();
        let base = SplitMix64::new(config.seed);
        let draws: Vec<Vec<(String, f64)>> = (0..config.resamples)
            .into_par_iter()
            .map(|b| {
                let mut rng = base.skipped((b as u64).wrapping_mul(n as u64));
                aggregate(&plan, &scored, &mut || rng.below(n))
            })
            .collect();
        let mut intervals = Map::new();
        for (k, (name, _)) in values.iter().enumerate() {
            let mut xs: Vec<f64> = draws.iter().map(|d| d[k].1).collect();
            xs.sort_by(f64::total_cmp);
            intervals.insert(
                name.clone(),
                json!({"ci_low": percentile(&xs, 0.025) + 0.0, "ci_high": percentile(&xs, 0.975) + 0.0}),
            );
        }
        summary.insert("intervals".into(), Value::Object(intervals));
    }
    Ok(Output {
        summary: Value::Object(summary),
        plan,
        ids: items.iter().map(|i| i.id.clone()).collect(),
        scored,
    })
}

/// Where the items come from, and the fields read.
#[derive(Debug, Clone)]
pub struct Source {
    /// The files read (items file, or predictions and references files).
    pub files: Vec<PathBuf>,
    /// The items.
    pub items: Vec<Item>,
    /// The fields read from an items file (prediction, reference), as
    /// found (a run folder's command decides them).
    pub fields: Option<(String, Option<String>)>,
}

fn is_items_file(path: &Path) -> bool {
    matches!(
        path.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("json" | "jsonl" | "ndjson" | "csv" | "tsv")
    )
}

/// A run folder's input file and the fields its command reads.
fn run_folder_input(dir: &Path) -> Result<(PathBuf, &'static str, &'static str), JobError> {
    let manifest_path = dir.join(crate::report::run::MANIFEST);
    let manifest = Manifest::read(&manifest_path)?;
    let (prediction, reference) = match manifest.command.as_str() {
        "text-eval" => ("response", "reference"),
        "judge-answers" => ("answer", "ground_truth"),
        other => {
            return Err(JobError::Input(format!(
                "{}: a {other:?} run has no prediction/reference pairs (lexical reads text-eval and judge-answers runs)",
                dir.display()
            )))
        }
    };
    let Some(input) = manifest.inputs.get("input") else {
        return Err(JobError::Input(format!(
            "{}: the {} run records no `input`",
            manifest_path.display(),
            manifest.command
        )));
    };
    let candidates = [input.absolute.as_deref(), Some(input.path.as_str())];
    let Some(path) = candidates
        .into_iter()
        .flatten()
        .map(PathBuf::from)
        .find(|p| p.is_file())
    else {
        return Err(JobError::Input(format!(
            "{}: the run's input file {:?} is not there any more",
            manifest_path.display(),
            input.path
        )));
    };
    let data = super::read_input(&path)?;
    let got = InputFile::new(&path, &data).sha256;
    if got != input.sha256 {
        return Err(JobError::Input(format!(
            "{}: changed since the run in {} (SHA-256 {got}, the manifest says {})",
            path.display(),
            dir.display(),
            input.sha256
        )));
    }
    Ok((path, prediction, reference))
}

/// The items of a JSON Lines file read by the fast path, when every line
/// is simply readable and complete.
fn fast_items(
    path: &Path,
    prediction_field: &str,
    reference_field: Option<&str>,
) -> Option<Vec<Item>> {
    let jsonl = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"));
    if !jsonl {
        return None;
    }
    let text = crate::corpus::read_text(path).ok()?;
    let wanted = crate::lexical::fastread::Wanted {
        prediction: prediction_field,
        reference: reference_field,
    };
    crate::lexical::fastread::jsonl(&text, wanted)?
        .into_iter()
        .map(|f| {
            let references = f.references.or(f.reference)?;
            if references.is_empty() {
                return None;
            }
            Some(Item {
                id: f.id,
                prediction: f.prediction?,
                references,
            })
        })
        .collect()
}

fn read_items_file(
    path: &Path,
    prediction_field: &str,
    reference_field: Option<&str>,
) -> Result<Vec<Item>, JobError> {
    if let Some(items) = fast_items(path, prediction_field, reference_field) {
        return Ok(items);
    }
    let rows = crate::corpus::tabular::load_rows(path)?;
    items_of_rows(path, rows, prediction_field, reference_field)
}

/// The items of JSON text (an array of item objects or JSON Lines) with
/// the configuration's fields (`prediction`, `reference(s)` by default);
/// `path` names the input in errors.
pub fn parse_items(config: &Config, path: &Path, text: &str) -> Result<Vec<Item>, JobError> {
    config.validate()?;
    let rows = crate::corpus::tabular::parse_json_rows(path, text)?;
    let prediction = config.prediction_field.as_deref().unwrap_or("prediction");
    items_of_rows(path, rows, prediction, config.reference_field.as_deref())
}

fn items_of_rows(
    path: &Path,
    rows: Vec<crate::corpus::tabular::Row>,
    prediction_field: &str,
    reference_field: Option<&str>,
) -> Result<Vec<Item>, JobError> {
    rows.into_iter()
        .map(|mut row| {
            let prediction = row.take_text(path, prediction_field)?;
            let field = match reference_field {
                Some(f) => f,
                None if row.fields.contains_key("references") => "references",
                None => "reference",
            };
            let references = row.take_texts(path, field)?;
            if references.is_empty() {
                return Err(row
                    .invalid(
                        path,
                        field,
                        "an empty list: at least one reference is needed".into(),
                    )
                    .into());
            }
            let id = if row.fields.contains_key("id") {
                Some(row.id(path)?)
            } else {
                None
            };
            Ok(Item {
                id,
                prediction,
                references,
            })
        })
        .collect()
}

fn read_lines(path: &Path) -> Result<Vec<String>, JobError> {
    let text = crate::corpus::read_text(path)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut lines: Vec<String> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .collect();
    if text.ends_with('\n') || text.is_empty() {
        lines.pop();
    }
    Ok(lines)
}

/// Reads the items: one items file (JSON, JSON Lines, CSV, TSV) or run
/// folder (text-eval, judge-answers), or a predictions file and one or more
/// references files with one segment per line.
pub fn read(config: &Config, files: &[PathBuf]) -> Result<Source, JobError> {
    config.validate()?;
    match files {
        [] => Err(JobError::Input("lexical needs INPUT".into())),
        [one] => {
            let (path, prediction, reference) = if one.is_dir() {
                let (p, pf, rf) = run_folder_input(one)?;
                (p, pf.to_string(), Some(rf.to_string()))
            } else if is_items_file(one) {
                (one.clone(), "prediction".to_string(), None)
            } else {
                return Err(JobError::Input(format!(
                    "{}: one file must be JSON, JSON Lines, CSV or TSV items with `prediction` and `reference(s)`; for plain text give the references file too",
                    one.display()
                )));
            };
            let prediction = config.prediction_field.clone().unwrap_or(prediction);
            let reference = config.reference_field.clone().or(reference);
            let items = read_items_file(&path, &prediction, reference.as_deref())?;
            Ok(Source {
                files: vec![path],
                items,
                fields: Some((prediction, reference)),
            })
        }
        [predictions, references @ ..] => {
            let preds = read_lines(predictions)?;
            let mut refs: Vec<Vec<String>> = vec![Vec::new(); preds.len()];
            for r in references {
                let lines = read_lines(r)?;
                if lines.len() != preds.len() {
                    return Err(JobError::Input(format!(
                        "{} has {} lines but {} has {}: one reference per prediction line",
                        r.display(),
                        lines.len(),
                        predictions.display(),
                        preds.len()
                    )));
                }
                for (k, l) in lines.into_iter().enumerate() {
                    refs[k].push(l);
                }
            }
            let items = preds
                .into_iter()
                .zip(refs)
                .map(|(prediction, references)| Item {
                    id: None,
                    prediction,
                    references,
                })
                .collect();
            Ok(Source {
                files: files.to_vec(),
                items,
                fields: None,
            })
        }
    }
}

/// Runs the job on files; writes `--per-item` and, with `config.out`, a run
/// folder (manifest.json, summary.json, items.jsonl).
pub fn execute(config: &Config, files: &[PathBuf]) -> Result<(Option<PathBuf>, Output), JobError> {
    let started = SystemTime::now();
    let source = read(config, files)?;
    if source.items.is_empty() {
        let names: Vec<String> = source
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        return Err(JobError::Input(format!(
            "{}: no items to score (the input holds no record)",
            names.join(", ")
        )));
    }
    let output = score(config, &source.items)?;
    if let Some(path) = &config.per_item {
        crate::report::write_atomic(path, output.items_jsonl().as_bytes())?;
    }
    let Some(out) = &config.out else {
        return Ok((None, output));
    };
    let mut inputs = BTreeMap::new();
    for (i, f) in source.files.iter().enumerate() {
        let bytes = super::read_input(f)?;
        inputs.insert(super::agreement::input_role(i), InputFile::new(f, &bytes));
    }
    // A run folder's fields are recorded, so that `rerun` reads its input
    // file the same way.
    let mut recorded = config.clone();
    if let Some((prediction, reference)) = &source.fields {
        recorded.prediction_field = Some(prediction.clone());
        recorded.reference_field.clone_from(reference);
    }
    let settings = super::to_value(&recorded);
    let signature = output.summary["signatures"]
        .as_object()
        .map(|m| {
            m.values()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    let manifest = Manifest::new("lexical", inputs, settings, signature, started)
        .with_config(super::to_value(&recorded));
    let mut run = RunWriter::create(out, started, manifest)?;
    run.write_json("summary.json", &output.summary)?;
    run.write("items.jsonl", output.items_jsonl().as_bytes())?;
    run.write("items.csv", output.items_csv().as_bytes())?;
    Ok((Some(run.finish()?), output))
}
