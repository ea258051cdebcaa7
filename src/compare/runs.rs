//! Systems from the run folders of any scoring command, read from their
//! `items.csv` (one row per scored item) and `manifest.json`.
//!
//! | command | items paired by | metrics | `--cluster source` |
//! |---|---|---|---|
//! | `evaluate` | `item_id` (`PAIR/ANSWER`) | `score`; `existence`, `strict_existence` (per pair: its first answer's row) | the answer's `source` |
//! | `check-report` | `quote_id` (`q1`, ... in report order) | `ok`, `found` (1 or 0) | the transcript the quote was checked in |
//! | `judge-answers` | `id` (`id/system` when a run holds several systems) | each method's `score` | - |
//! | `text-eval` | `id` | `overall_score`, `composite_accuracy`, `composite_relevance`, `composite_safety`, `composite_quality` | - |
//! | `grounding` | `id` | `relevance`, `completeness`, `hallucination` | - |
//! | `rag run` | `id` | `score`, `existence` | the cited passage's `FILE` |
//! | `lexical` | `id` (else `index`) | every score column | - |

use super::{record, PerExample, SystemKind, SystemResult};
use crate::corpus::CorpusError;
use crate::report::manifest::Manifest;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What `compare` reads from one command's run folder.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunSpec {
    /// The command (as the manifest names it).
    pub command: &'static str,
    /// The input roles that hold the answers: they may differ between the
    /// runs compared (a warning), every other input must be the same file.
    pub answer_roles: &'static [&'static str],
    /// The column that pairs items.
    pub key: &'static str,
    /// The column `--cluster source` groups items by.
    pub cluster: Option<&'static str>,
    /// Which columns are metrics.
    pub metrics: Metrics,
}

/// How a run's metrics are laid out in its items.csv.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Metrics {
    /// These columns; those in `pair_level` count once per pair (the row
    /// whose `answer_index` is 0).
    Columns {
        /// Per-item columns.
        items: &'static [&'static str],
        /// Per-pair columns (evaluate's existence).
        pair_level: &'static [&'static str],
    },
    /// One metric per value of `method`, its value in `score`
    /// (judge-answers).
    PerMethod,
    /// Every column but `index` and `id` (lexical).
    AllNumeric,
}

/// The commands whose run folders `compare` reads (hotpot has its own
/// loader).
pub(crate) const SPECS: [RunSpec; 7] = [
    RunSpec {
        command: "evaluate",
        answer_roles: &["questions"],
        key: "item_id",
        cluster: Some("source"),
        metrics: Metrics::Columns {
            items: &["score"],
            pair_level: &["existence", "strict_existence"],
        },
    },
    RunSpec {
        command: "check-report",
        answer_roles: &["report"],
        key: "quote_id",
        cluster: Some("source"),
        metrics: Metrics::Columns {
            items: &["ok", "found"],
            pair_level: &[],
        },
    },
    RunSpec {
        command: "judge-answers",
        answer_roles: &["input", "validation"],
        key: "id",
        cluster: None,
        metrics: Metrics::PerMethod,
    },
    RunSpec {
        command: "text-eval",
        answer_roles: &["input"],
        key: "id",
        cluster: None,
        metrics: Metrics::Columns {
            items: &[
                "overall_score",
                "composite_accuracy",
                "composite_relevance",
                "composite_safety",
                "composite_quality",
            ],
            pair_level: &[],
        },
    },
    RunSpec {
        command: "grounding",
        answer_roles: &["input"],
        key: "id",
        cluster: None,
        metrics: Metrics::Columns {
            items: &["relevance", "completeness", "hallucination"],
            pair_level: &[],
        },
    },
    RunSpec {
        command: "rag run",
        answer_roles: &[],
        key: "id",
        cluster: Some("source"),
        metrics: Metrics::Columns {
            items: &["score", "existence"],
            pair_level: &[],
        },
    },
    RunSpec {
        command: "lexical",
        answer_roles: &["input"],
        key: "id",
        cluster: None,
        metrics: Metrics::AllNumeric,
    },
];

/// The spec of a command, if compare reads its runs.
pub(crate) fn spec(command: &str) -> Option<&'static RunSpec> {
    SPECS.iter().find(|s| s.command == command)
}

/// The items.csv of a run as header and records (with their line numbers).
struct Table {
    header: Vec<String>,
    rows: Vec<(u64, csv::StringRecord)>,
}

impl Table {
    /// Streams the file row by row (a line over
    /// [`crate::corpus::MAX_LINE_BYTES`] is refused, not read whole).
    fn read(path: &Path) -> Result<Table, CorpusError> {
        let file = std::fs::File::open(path).map_err(|source| CorpusError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(
            crate::corpus::LineBounded::new(std::io::BufReader::new(file)),
        );
        let header = reader
            .headers()
            .map_err(|e| record(path, "line 1", "(header)", e.to_string()))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut rows = Vec::new();
        for r in reader.records() {
            let r = r.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                record(path, &format!("line {line}"), "(row)", e.to_string())
            })?;
            let line = r.position().map_or(0, |p| p.line());
            rows.push((line, r));
        }
        Ok(Table { header, rows })
    }

    fn column(&self, path: &Path, name: &str) -> Result<usize, CorpusError> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            record(
                path,
                "line 1",
                name,
                format!(
                    "missing column (found: {})",
                    crate::corpus::Preview(&self.header.join(", "))
                ),
            )
        })
    }
}

/// A cell as a metric value: empty is None, otherwise a finite number.
fn value(path: &Path, line: u64, column: &str, cell: &str) -> Result<Option<f64>, CorpusError> {
    if cell.is_empty() {
        return Ok(None);
    }
    match cell.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v + 0.0)),
        _ => Err(record(
            path,
            &format!("line {line}"),
            column,
            format!(
                "expected a finite number or nothing, found {}",
                crate::corpus::preview(cell)
            ),
        )),
    }
}

/// A key seen twice in one run's items.csv.
fn repeated(path: &Path, line: u64, column: &str, key: &str) -> CorpusError {
    record(
        path,
        &format!("line {line}"),
        column,
        format!(
            "{} appears twice (items are paired by it)",
            crate::corpus::preview(key)
        ),
    )
}

/// Per-item scores: keys in file order, values aligned with `metrics`.
struct Collected {
    metrics: Vec<String>,
    rows: PerExample,
    clusters: Option<HashMap<String, String>>,
}

fn collect(spec: &RunSpec, path: &Path, table: &Table) -> Result<Collected, CorpusError> {
    let key_col = match spec.metrics {
        // Lexical items without ids pair by their index.
        Metrics::AllNumeric
            if table
                .column(path, "id")
                .is_ok_and(|k| table.rows.iter().any(|(_, r)| r.get(k) == Some(""))) =>
        {
            table.column(path, "index")?
        }
        _ => table.column(path, spec.key)?,
    };
    let cluster_col = spec.cluster.map(|c| table.column(path, c)).transpose()?;
    let cell = |r: &csv::StringRecord, k: usize| r.get(k).unwrap_or("").to_string();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut rows: PerExample = Vec::new();
    let mut clusters: HashMap<String, String> = HashMap::new();
    let slot =
        |index: &mut HashMap<String, usize>, key: String, width: usize, rows: &mut PerExample| {
            *index.entry(key.clone()).or_insert_with(|| {
                rows.push((key, vec![None; width]));
                rows.len() - 1
            })
        };
    match spec.metrics {
        Metrics::Columns { items, pair_level } => {
            let metrics: Vec<String> = items
                .iter()
                .chain(pair_level)
                .map(|m| m.to_string())
                .collect();
            let cols = metrics
                .iter()
                .map(|m| table.column(path, m))
                .collect::<Result<Vec<_>, _>>()?;
            let first_answer = if pair_level.is_empty() {
                None
            } else {
                Some(table.column(path, "answer_index")?)
            };
            for (line, r) in &table.rows {
                let key = cell(r, key_col);
                if index.contains_key(&key) {
                    return Err(repeated(path, *line, spec.key, &key));
                }
                let at = slot(&mut index, key.clone(), metrics.len(), &mut rows);
                let first = first_answer.is_none_or(|k| r.get(k) == Some("0"));
                for (m, &c) in cols.iter().enumerate() {
                    if m >= items.len() && !first {
                        continue;
                    }
                    rows[at].1[m] = value(path, *line, &metrics[m], &cell(r, c))?;
                }
                if let Some(c) = cluster_col {
                    clusters.insert(key, cell(r, c));
                }
            }
            Ok(Collected {
                metrics,
                rows,
                clusters: cluster_col.map(|_| clusters),
            })
        }
        Metrics::PerMethod => {
            let (method, score) = (table.column(path, "method")?, table.column(path, "score")?);
            let system = table.column(path, "system")?;
            let mut metrics: Vec<String> = Vec::new();
            for (_, r) in &table.rows {
                let m = cell(r, method);
                if !metrics.contains(&m) {
                    metrics.push(m);
                }
            }
            let systems: std::collections::HashSet<&str> = table
                .rows
                .iter()
                .filter_map(|(_, r)| r.get(system))
                .collect();
            for (line, r) in &table.rows {
                let id = cell(r, key_col);
                let key = if systems.len() > 1 {
                    format!("{id}/{}", cell(r, system))
                } else {
                    id
                };
                let m = metrics
                    .iter()
                    .position(|x| *x == cell(r, method))
                    .unwrap_or(0);
                let at = slot(&mut index, key.clone(), metrics.len(), &mut rows);
                if rows[at].1[m].is_some() {
                    return Err(record(
                        path,
                        &format!("line {line}"),
                        "id",
                        format!(
                            "{} is scored twice by {}",
                            crate::corpus::preview(&key),
                            metrics[m]
                        ),
                    ));
                }
                rows[at].1[m] = value(path, *line, "score", &cell(r, score))?;
            }
            Ok(Collected {
                metrics,
                rows,
                clusters: None,
            })
        }
        Metrics::AllNumeric => {
            let cols: Vec<(usize, String)> = table
                .header
                .iter()
                .enumerate()
                .filter(|(_, h)| *h != "index" && *h != "id")
                .map(|(k, h)| (k, h.clone()))
                .collect();
            let metrics: Vec<String> = cols.iter().map(|(_, h)| h.clone()).collect();
            for (line, r) in &table.rows {
                let key = cell(r, key_col);
                if index.contains_key(&key) {
                    return Err(repeated(path, *line, "id", &key));
                }
                let at = slot(&mut index, key, metrics.len(), &mut rows);
                for (m, (c, h)) in cols.iter().enumerate() {
                    rows[at].1[m] = value(path, *line, h, &cell(r, *c))?;
                }
            }
            Ok(Collected {
                metrics,
                rows,
                clusters: None,
            })
        }
    }
}

/// Loads one system from the run folder `folder` of `spec.command`.
pub(crate) fn load_run(
    name: &str,
    folder: &Path,
    spec: &RunSpec,
    manifest: &Manifest,
) -> Result<SystemResult, CorpusError> {
    let items = folder.join("items.csv");
    if !items.is_file() {
        return Err(CorpusError::Io {
            path: items,
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "this run folder has no per-item table (written by corpus-eval 0.1 since items.csv was added; run the command again)",
            ),
        });
    }
    let table = Table::read(&items)?;
    let c = collect(spec, &items, &table)?;
    let averages = (0..c.metrics.len())
        .map(|m| {
            let values: Vec<f64> = c.rows.iter().filter_map(|r| r.1[m]).collect();
            (!values.is_empty()).then(|| crate::stats::mean(&values))
        })
        .collect();
    Ok(SystemResult {
        name: name.to_string(),
        source: folder.to_path_buf(),
        files: vec![items, folder.join("manifest.json")],
        kind: SystemKind::Run(spec.command.to_string()),
        metrics: c.metrics,
        averages,
        n: Some(c.rows.len()),
        per_example: Some(c.rows),
        clusters: c.clusters,
        inputs: inputs_of(manifest),
    })
}

/// The manifest of a run folder, when it has one (read typed: a field
/// missing or of the wrong type is an error naming it).
pub(crate) fn manifest_of(folder: &Path) -> Result<Option<Manifest>, CorpusError> {
    let m = folder.join("manifest.json");
    if !m.is_file() {
        return Ok(None);
    }
    Manifest::read(&m).map(Some)
}

/// The input roles of a manifest with their SHA-256.
pub(crate) fn inputs_of(manifest: &Manifest) -> BTreeMap<String, String> {
    manifest
        .inputs
        .iter()
        .map(|(role, f)| (role.clone(), f.sha256.clone()))
        .collect()
}
