//! Systems from HotpotQA results: a `hotpot` run folder (metrics.json +
//! per_example.json), a metrics JSON (the run's metrics.json, or a flat
//! object of averages as the six-metric framework saves them), or a
//! per_example.json array.

use super::runs::inputs_of;
use super::{record, PerExample, SystemKind, SystemResult};
use crate::corpus::{json_error, CorpusError};
use crate::hotpot::HotpotFormat;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

pub(super) fn read_json(path: &Path) -> Result<Value, CorpusError> {
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

/// Loads one system from a hotpot run folder, a metrics JSON or a
/// per_example.json.
pub(crate) fn load_hotpot(name: &str, path: &Path) -> Result<SystemResult, CorpusError> {
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
    let inputs = metrics_path
        .as_ref()
        .or(per_example_path.as_ref())
        .and_then(|p| p.parent())
        .map(|d| d.join("manifest.json"))
        .filter(|m| m.is_file())
        .map(|m| crate::report::manifest::Manifest::read(&m))
        .transpose()?
        .map(|m| inputs_of(&m))
        .unwrap_or_default();
    Ok(SystemResult {
        name: name.to_string(),
        source: path.to_path_buf(),
        files,
        kind: SystemKind::Hotpot(format),
        metrics: format
            .metric_names()
            .iter()
            .map(|m| m.to_string())
            .collect(),
        averages: averages.into_iter().map(Some).collect(),
        n,
        per_example,
        clusters: None,
        inputs,
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
