//! Comparing systems: load each system's averaged metrics (and its
//! per-example scores when available), lay them side by side, and test
//! every difference with a paired bootstrap over the items both systems
//! scored (matched by item id).
//!
//! A system is a `hotpot` run folder (metrics.json + per_example.json), a
//! metrics JSON (the run's metrics.json, or a flat object of averages as
//! the six-metric framework saves them), or a per_example.json array.

use crate::corpus::{json_error, CorpusError};
use crate::hotpot::HotpotFormat;
use crate::stats::paired::{paired_bootstrap, PairedDiff};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One system's results.
#[derive(Debug, Clone)]
pub struct SystemResult {
    /// The name given on the command line.
    pub name: String,
    /// Where it was loaded from.
    pub source: PathBuf,
    /// The files actually read (for the manifest).
    pub files: Vec<PathBuf>,
    /// Its metric format.
    pub format: HotpotFormat,
    /// Averages aligned with `format.metric_names()`.
    pub averages: Vec<f64>,
    /// Number of items, when known.
    pub n: Option<usize>,
    /// Per-example scores by id, aligned with the metric names, when known.
    pub per_example: Option<Vec<(String, Vec<Option<f64>>)>>,
    /// SHA-256 of the gold file, from the run's manifest.json when there is one.
    pub gold_sha256: Option<String>,
}

/// Problems that make systems incomparable.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompareError {
    /// Systems use different metric formats.
    #[error("system {a:?} has {fa}-format metrics but {b:?} has {fb}-format metrics; compare like with like")]
    MixedFormats {
        /// First system.
        a: String,
        /// Its format.
        fa: &'static str,
        /// The other system.
        b: String,
        /// Its format.
        fb: &'static str,
    },
    /// Fewer than two systems.
    #[error("compare needs at least two systems (NAME=PATH), got {0}")]
    TooFew(usize),
    /// Two systems share a name.
    #[error("two systems are named {0:?}; names must be unique")]
    DuplicateName(String),
}

fn record(path: &Path, record: &str, field: &str, message: String) -> CorpusError {
    CorpusError::Record {
        path: path.to_path_buf(),
        record: record.to_string(),
        field: field.to_string(),
        message,
    }
}

fn read_json(path: &Path) -> Result<Value, CorpusError> {
    let text = crate::corpus::read_text(path)?;
    crate::corpus::strict_json::parse_str(&text).map_err(|e| json_error(path, &e))
}

/// Which format a set of metric keys belongs to.
fn detect_format(keys: &dyn Fn(&str) -> bool) -> Option<HotpotFormat> {
    if keys("answer_f1") {
        Some(HotpotFormat::Simple)
    } else if keys("sp_em") || keys("em") {
        Some(HotpotFormat::Official)
    } else {
        None
    }
}

/// A metric value: a finite number in [0, 1] (every HotpotQA metric is).
fn number(v: &Value) -> Option<f64> {
    v.as_f64()
        .filter(|x| x.is_finite() && (0.0..=1.0).contains(x))
        .map(|x| x + 0.0)
}

fn averages_from_object(
    path: &Path,
    obj: &serde_json::Map<String, Value>,
) -> Result<(HotpotFormat, Vec<f64>, Option<usize>), CorpusError> {
    let format = match obj.get("format").and_then(Value::as_str) {
        Some("simple") => HotpotFormat::Simple,
        Some("official") => HotpotFormat::Official,
        _ => detect_format(&|k| obj.contains_key(k)).ok_or_else(|| {
            record(
                path,
                "(file)",
                "(metrics)",
                "no known metric names (answer_f1... for the simple format, em/sp_em... for the official one)".into(),
            )
        })?,
    };
    let mut averages = Vec::new();
    for name in format.metric_names() {
        let v = match obj.get(*name) {
            Some(v) => number(v).ok_or_else(|| {
                record(
                    path,
                    "(metrics)",
                    name,
                    format!(
                        "expected a number in [0, 1], found {}",
                        crate::corpus::preview_value(v)
                    ),
                )
            })?,
            // The framework's own comparison reads a missing detection rate as 0.0.
            None if *name == "insufficient_context_detection" => 0.0,
            None => return Err(record(path, "(metrics)", name, "missing".into())),
        };
        averages.push(v);
    }
    let n = obj.get("n").and_then(Value::as_u64).map(|n| n as usize);
    Ok((format, averages, n))
}

/// One item's scores, aligned with the metric names.
type Scores = Vec<Option<f64>>;
type PerExample = Vec<(String, Scores)>;

fn per_example_from_array(
    path: &Path,
    items: &[Value],
    format: Option<HotpotFormat>,
) -> Result<(HotpotFormat, PerExample), CorpusError> {
    let format = match format {
        Some(f) => f,
        None => items
            .first()
            .and_then(Value::as_object)
            .and_then(|o| detect_format(&|k| o.contains_key(k)))
            .ok_or_else(|| record(path, "item 0", "(metrics)", "no known metric names".into()))?,
    };
    let names = format.metric_names();
    let mut out = Vec::with_capacity(items.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let rec = format!("item {i}");
        let obj = item
            .as_object()
            .ok_or_else(|| record(path, &rec, "(item)", "expected an object".into()))?;
        let id = match obj.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                return Err(record(
                    path,
                    &rec,
                    "id",
                    "missing (needed to pair items across systems)".into(),
                ))
            }
        };
        // A repeated id (hotpot scores duplicates as separate items) is
        // paired by occurrence: the second "x" of one run with the second
        // "x" of the other.
        let occurrence = seen
            .entry(id.clone())
            .and_modify(|k| *k += 1)
            .or_insert(1usize);
        let id = if *occurrence > 1 {
            format!("{id}#{occurrence}")
        } else {
            id
        };
        let mut scores = Vec::with_capacity(names.len());
        for name in names {
            scores.push(match obj.get(*name) {
                None | Some(Value::Null) => None,
                Some(v) => Some(number(v).ok_or_else(|| {
                    record(
                        path,
                        &format!("item {i} (id {})", crate::corpus::preview(&id)),
                        name,
                        format!(
                            "expected a number in [0, 1] or null, found {}",
                            crate::corpus::preview_value(v)
                        ),
                    )
                })?),
            });
        }
        out.push((id, scores));
    }
    Ok((format, out))
}

/// Loads one system from a run folder, a metrics JSON or a per_example.json.
pub fn load_system(name: &str, path: &Path) -> Result<SystemResult, CorpusError> {
    let (metrics_path, per_example_path) = if path.is_dir() {
        let m = path.join("metrics.json");
        let p = path.join("per_example.json");
        if !m.is_file() {
            return Err(CorpusError::Io {
                path: m,
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "not a hotpot run folder (no metrics.json)",
                ),
            });
        }
        (Some(m), p.is_file().then_some(p))
    } else {
        let doc = read_json(path)?;
        if doc.is_array() {
            (None, Some(path.to_path_buf()))
        } else {
            let sibling = path
                .parent()
                .map(|d| d.join("per_example.json"))
                .filter(|p| path.file_name().is_some_and(|f| f == "metrics.json") && p.is_file());
            (Some(path.to_path_buf()), sibling)
        }
    };
    let mut files = Vec::new();
    let mut format = None;
    let mut averages = None;
    let mut n = None;
    if let Some(m) = &metrics_path {
        let doc = read_json(m)?;
        let obj = doc.as_object().ok_or_else(|| {
            record(
                m,
                "(file)",
                "(top level)",
                "expected an object of averaged metrics".into(),
            )
        })?;
        let (f, a, k) = averages_from_object(m, obj)?;
        format = Some(f);
        averages = Some(a);
        n = k;
        files.push(m.clone());
    }
    let mut per_example = None;
    if let Some(p) = &per_example_path {
        let doc = read_json(p)?;
        let items = doc.as_array().ok_or_else(|| {
            record(
                p,
                "(file)",
                "(top level)",
                "expected an array of per-example scores".into(),
            )
        })?;
        let (f, rows) = per_example_from_array(p, items, format)?;
        if averages.is_none() {
            averages = Some(column_means(f, &rows));
            n = Some(rows.len());
        }
        format = Some(f);
        per_example = Some(rows);
        files.push(p.clone());
    }
    let (Some(format), Some(averages)) = (format, averages) else {
        return Err(record(
            path,
            "(file)",
            "(metrics)",
            "no metrics found".into(),
        ));
    };
    let gold_sha256 = metrics_path
        .as_ref()
        .or(per_example_path.as_ref())
        .and_then(|p| p.parent())
        .map(|d| d.join("manifest.json"))
        .filter(|m| m.is_file())
        .and_then(|m| read_json(&m).ok())
        .and_then(|m| m["inputs"]["gold"]["sha256"].as_str().map(String::from));
    Ok(SystemResult {
        name: name.to_string(),
        gold_sha256,
        source: path.to_path_buf(),
        files,
        format,
        averages,
        n,
        per_example,
    })
}

/// Means of each metric over the items where it applies (0.0 when none),
/// as the averages of a run would be.
fn column_means(format: HotpotFormat, rows: &PerExample) -> Vec<f64> {
    let official = format == HotpotFormat::Official;
    (0..format.metric_names().len())
        .map(|k| {
            let (sum, count) = rows.iter().fold((0.0, 0usize), |(s, c), r| match r.1[k] {
                Some(v) => (s + v, c + 1),
                // The official averages count a missing prediction as 0.
                None if official => (s, c + 1),
                None => (s, c),
            });
            if count == 0 {
                0.0
            } else {
                sum / count as f64
            }
        })
        .collect()
}

/// The test of one metric between two systems.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    /// The metric.
    pub metric: String,
    /// System A (the baseline of the difference).
    pub system_a: String,
    /// System B.
    pub system_b: String,
    /// The paired bootstrap result, when per-example scores allow one.
    pub paired: Option<PairedDiff>,
    /// Why there is no test, or how many items were left unpaired.
    pub note: Option<String>,
}

/// A comparison of two or more systems.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The common format.
    pub format: HotpotFormat,
    /// The systems in command-line order.
    pub systems: Vec<SystemResult>,
    /// Every metric for every pair (A before B in command-line order).
    pub differences: Vec<Difference>,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Bootstrap seed.
    pub seed: u64,
    /// Things the reader should know (e.g. different gold files).
    pub warnings: Vec<String>,
}

/// Signature of the comparison method.
pub fn signature(resamples: usize, seed: u64) -> String {
    crate::signature::Signature::new("paired-bootstrap")
        .field("pairing", "item-id")
        .field("resamples", resamples)
        .field("seed", seed)
        .field("ci", "95%-percentile")
        .field("p", "two-sided-sign-flip,exact-n<=16")
        .field("diff", "B-A")
        .long()
}

/// Compares systems metric by metric, every pair.
pub fn compare(
    systems: Vec<SystemResult>,
    seed: u64,
    resamples: usize,
) -> Result<Comparison, CompareError> {
    if systems.len() < 2 {
        return Err(CompareError::TooFew(systems.len()));
    }
    for (i, s) in systems.iter().enumerate() {
        if systems[..i].iter().any(|t| t.name == s.name) {
            return Err(CompareError::DuplicateName(s.name.clone()));
        }
    }
    let format = systems[0].format;
    if let Some(other) = systems.iter().find(|s| s.format != format) {
        return Err(CompareError::MixedFormats {
            a: systems[0].name.clone(),
            fa: format.as_str(),
            b: other.name.clone(),
            fb: other.format.as_str(),
        });
    }
    let names = format.metric_names();
    let official = format == HotpotFormat::Official;
    let mut differences = Vec::new();
    for i in 0..systems.len() {
        for j in i + 1..systems.len() {
            let (a, b) = (&systems[i], &systems[j]);
            let paired_rows = match (&a.per_example, &b.per_example) {
                (Some(pa), Some(pb)) => {
                    let by_id: HashMap<&str, &Vec<Option<f64>>> =
                        pb.iter().map(|(id, s)| (id.as_str(), s)).collect();
                    let rows: Vec<(&Scores, &Scores)> = pa
                        .iter()
                        .filter_map(|(id, s)| by_id.get(id.as_str()).map(|t| (s, *t)))
                        .collect();
                    let unpaired = pa.len() + pb.len() - 2 * rows.len();
                    Ok((rows, unpaired))
                }
                _ => Err(format!(
                    "no per-example scores for {}",
                    if a.per_example.is_none() {
                        &a.name
                    } else {
                        &b.name
                    }
                )),
            };
            let tests: Vec<Difference> = names
                .par_iter()
                .enumerate()
                .map(|(k, metric)| {
                    let seed_k = crate::stats::group_seed(
                        seed,
                        &format!("{}\u{1f}{}\u{1f}{metric}", a.name, b.name),
                    );
                    let (paired, note) = match &paired_rows {
                        Err(why) => (None, Some(why.clone())),
                        Ok((rows, unpaired)) => {
                            let (xs, ys): (Vec<f64>, Vec<f64>) = rows
                                .iter()
                                .filter_map(|(x, y)| match (x[k], y[k]) {
                                    (Some(x), Some(y)) => Some((x, y)),
                                    // Official averages count a missing prediction as 0.
                                    (x, y) if official => {
                                        Some((x.unwrap_or(0.0), y.unwrap_or(0.0)))
                                    }
                                    _ => None,
                                })
                                .unzip();
                            let paired = paired_bootstrap(&xs, &ys, seed_k, resamples);
                            let note = if paired.is_none() {
                                Some("no item scored by both systems".to_string())
                            } else if *unpaired > 0 {
                                Some(format!(
                                    "{unpaired} item(s) not in both systems were left out"
                                ))
                            } else {
                                None
                            };
                            (paired, note)
                        }
                    };
                    Difference {
                        metric: (*metric).to_string(),
                        system_a: a.name.clone(),
                        system_b: b.name.clone(),
                        paired,
                        note,
                    }
                })
                .collect();
            differences.extend(tests);
        }
    }
    let mut warnings = Vec::new();
    let golds: Vec<(&str, &str)> = systems
        .iter()
        .filter_map(|s| s.gold_sha256.as_deref().map(|g| (s.name.as_str(), g)))
        .collect();
    if let Some((first, g0)) = golds.first() {
        for (name, g) in &golds[1..] {
            if g != g0 {
                warnings.push(format!(
                    "{first:?} and {name:?} were scored against different gold files (SHA-256 differs); items are paired by id, which may not mean the same item"
                ));
            }
        }
    }
    Ok(Comparison {
        format,
        systems,
        differences,
        resamples,
        seed,
        warnings,
    })
}
