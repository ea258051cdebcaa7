//! Comparing systems: load each system's per-item scores (or averaged
//! metrics), lay them side by side, and test every difference with a
//! paired bootstrap over the items both systems scored (matched by item
//! id), with Holm-adjusted p-values over the family of tests.
//!
//! A system is a run folder of `evaluate`, `judge-answers`, `text-eval`,
//! `grounding`, `rag run` or `lexical` (read from its items.csv, see
//! `runs`), or HotpotQA results (see `hotpot`): a `hotpot` run folder,
//! a metrics JSON or a per_example.json. All systems of one comparison
//! come from the same command and the same reference inputs (the
//! manifests' SHA-256); only the answers may differ.

pub(crate) mod hotpot;
pub(crate) mod runs;

use crate::corpus::CorpusError;
use crate::hotpot::HotpotFormat;
use crate::stats::paired::{paired_bootstrap, paired_bootstrap_clustered, PairedDiff};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// One item's scores, aligned with the metric names.
pub(crate) type Scores = Vec<Option<f64>>;
/// Each item's id and scores, in the order read.
pub(crate) type PerExample = Vec<(String, Scores)>;

/// What produced a system's scores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SystemKind {
    /// HotpotQA results in one of the two formats.
    Hotpot(HotpotFormat),
    /// A run folder of this command.
    Run(String),
}

impl SystemKind {
    /// The command that produced the scores.
    pub fn command(&self) -> &str {
        match self {
            SystemKind::Hotpot(_) => "hotpot",
            SystemKind::Run(c) => c,
        }
    }
}

/// One system's results.
#[derive(Debug, Clone)]
pub struct SystemResult {
    /// The name given on the command line.
    pub name: String,
    /// Where it was loaded from.
    pub source: PathBuf,
    /// The files actually read (for the manifest).
    pub files: Vec<PathBuf>,
    /// What produced it.
    pub kind: SystemKind,
    /// Its metric names.
    pub metrics: Vec<String>,
    /// Averages aligned with `metrics` (None where no item has a value).
    pub averages: Vec<Option<f64>>,
    /// Number of items, when known.
    pub n: Option<usize>,
    /// Per-item scores by id, aligned with `metrics`, when known.
    pub per_example: Option<Vec<(String, Vec<Option<f64>>)>>,
    /// Each item's cluster (its transcript), for `--cluster source`.
    pub clusters: Option<HashMap<String, String>>,
    /// SHA-256 of the run's inputs by role, from its manifest.json.
    pub inputs: BTreeMap<String, String>,
}

/// Problems that make systems incomparable (exit 2).
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
    /// Systems come from different commands.
    #[error("system {a:?} is a {ca} run but {b:?} is a {cb} run; compare runs of one command")]
    MixedCommands {
        /// First system.
        a: String,
        /// Its command.
        ca: String,
        /// The other system.
        b: String,
        /// Its command.
        cb: String,
    },
    /// Two runs read different reference inputs.
    #[error("systems {a:?} and {b:?} were run on different {role} files (SHA-256 {da} vs {db}); their items are not the same items")]
    DifferentInputs {
        /// The input's role in the manifests.
        role: String,
        /// First system.
        a: String,
        /// Its digest (12 hex digits).
        da: String,
        /// The other system.
        b: String,
        /// Its digest (12 hex digits).
        db: String,
    },
    /// Fewer than two systems.
    #[error("compare needs at least two systems (NAME=PATH), got {0}")]
    TooFew(usize),
    /// Two systems share a name.
    #[error("two systems are named {0:?}; names must be unique")]
    DuplicateName(String),
    /// `--metric` names a metric the runs do not have.
    #[error("--metric {metric:?}: not a metric of these runs (they have: {available})")]
    UnknownMetric {
        /// The metric asked for.
        metric: String,
        /// The metrics there are.
        available: String,
    },
    /// `--cluster source` on runs without transcripts.
    #[error("--cluster source: {command} runs have no per-item source (it applies to evaluate and rag run)")]
    NoClusters {
        /// The command.
        command: String,
    },
    /// No metric is common to every system.
    #[error("no metric is common to every system ({0}); compare runs scored the same way")]
    NoCommonMetric(String),
}

pub(crate) fn record(path: &Path, record: &str, field: &str, message: String) -> CorpusError {
    CorpusError::Record {
        path: path.to_path_buf(),
        record: record.to_string(),
        field: field.to_string(),
        message,
    }
}

/// Loads one system: a run folder of any command `compare` reads, or
/// HotpotQA results (a hotpot run folder, metrics JSON or per_example.json).
pub fn load_system(name: &str, path: &Path) -> Result<SystemResult, CorpusError> {
    if path.is_dir() {
        if let Some(manifest) = runs::manifest_of(path)? {
            let command = manifest.command.as_str();
            if command != "hotpot" {
                return match runs::spec(command) {
                    Some(spec) => runs::load_run(name, path, spec, &manifest),
                    None => Err(record(
                        &path.join("manifest.json"),
                        "(file)",
                        "command",
                        format!(
                            "compare reads runs of evaluate, hotpot, judge-answers, text-eval, grounding, rag run and lexical, not {}",
                            crate::corpus::preview(command)
                        ),
                    )),
                };
            }
        }
    }
    hotpot::load_hotpot(name, path)
}

/// How items are resampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cluster {
    /// Item by item.
    #[default]
    None,
    /// Whole transcripts (the items' `source`): for evaluate and rag runs,
    /// whose answers from one interview are not independent.
    Source,
}

impl Cluster {
    /// "none" or "source".
    pub fn as_str(self) -> &'static str {
        match self {
            Cluster::None => "none",
            Cluster::Source => "source",
        }
    }
}

/// The settings of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Bootstrap seed.
    pub seed: u64,
    /// Bootstrap resamples of the paired tests.
    pub resamples: usize,
    /// Metrics to compare (empty: all).
    pub metrics: Vec<String>,
    /// Item or transcript resampling.
    pub cluster: Cluster,
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
    /// The paired bootstrap result, when per-item scores allow one: the
    /// effect size is `diff` (mean of B - A over the paired items) with
    /// its interval `ci_low..ci_high`.
    pub paired: Option<PairedDiff>,
    /// The p-value adjusted by Holm's method over the family of tests
    /// (equal to `p_value` when the family has one test).
    pub p_holm: Option<f64>,
    /// The standardized effect size of the paired difference: Cohen's d_z,
    /// the mean difference over the standard deviation of the differences
    /// (n - 1); None with fewer than two items or when every difference is
    /// the same.
    pub cohens_dz: Option<f64>,
    /// Why there is no test, or how many items were left unpaired.
    pub note: Option<String>,
}

/// The family of tests Holm's adjustment runs over.
#[derive(Debug, Clone, Serialize)]
pub struct Family {
    /// Tests in the family (every metric x every pair of systems that has
    /// a paired test).
    pub tests: usize,
    /// Metrics compared.
    pub metrics: usize,
    /// Pairs of systems.
    pub pairs: usize,
    /// "holm".
    pub method: &'static str,
}

/// One system's mean of one metric with its bootstrap interval.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SystemMean {
    /// The mean (None when no item has a value).
    pub mean: Option<f64>,
    /// Items with a value, when known.
    pub n: Option<usize>,
    /// 2.5th percentile of the bootstrap means (per-item scores only).
    pub ci_low: Option<f64>,
    /// 97.5th percentile of the bootstrap means.
    pub ci_high: Option<f64>,
}

/// An item whose score changed between two systems.
#[derive(Debug, Clone, Serialize)]
pub struct Changed {
    /// The metric.
    pub metric: String,
    /// System A.
    pub system_a: String,
    /// System B.
    pub system_b: String,
    /// The item's id.
    pub id: String,
    /// A's score.
    pub a: f64,
    /// B's score.
    pub b: f64,
    /// `b - a`.
    pub delta: f64,
}

/// Items listed per metric and pair in [`Comparison::changed`].
pub const CHANGED_PER_TEST: usize = 10;

/// Resamples of each system's own interval (the chart's whiskers).
pub const MEAN_RESAMPLES: usize = crate::stats::DEFAULT_RESAMPLES;

/// A comparison of two or more systems.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The command the systems come from ("hotpot", "evaluate", ...).
    pub command: String,
    /// The HotpotQA format, for hotpot systems.
    pub format: Option<HotpotFormat>,
    /// The metrics compared, in output order.
    pub metrics: Vec<String>,
    /// The systems in command-line order.
    pub systems: Vec<SystemResult>,
    /// `means[s][m]`: system s's mean of metric m with its interval.
    pub means: Vec<Vec<SystemMean>>,
    /// Every metric for every pair (A before B in command-line order).
    pub differences: Vec<Difference>,
    /// The family Holm's adjustment ran over.
    pub family: Family,
    /// The items that changed most, per metric and pair (largest |B - A|
    /// first, at most [`CHANGED_PER_TEST`] each).
    pub changed: Vec<Changed>,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Bootstrap seed.
    pub seed: u64,
    /// Item or transcript resampling.
    pub cluster: Cluster,
    /// Things the reader should know (e.g. different answer files).
    pub warnings: Vec<String>,
}

/// What the draws of a comparison depend on: the seed, the systems'
/// positions on the command line and the metric (never the systems'
/// names).
pub const STREAMS: &str = "seed+positions+metric";

/// Signature of the comparison method.
pub fn signature(resamples: usize, seed: u64, cluster: Cluster) -> String {
    crate::signature::Signature::new("paired-bootstrap")
        .field("version", env!("CARGO_PKG_VERSION"))
        .field("draw", crate::stats::paired::DRAW)
        .field("streams", STREAMS)
        .field("pairing", "item-id")
        .field(
            "resample",
            if cluster == Cluster::Source {
                "transcript"
            } else {
                "item"
            },
        )
        .field("resamples", resamples)
        .field("seed", seed)
        .field("ci", "95%-percentile")
        .field("p", "two-sided-sign-flip,exact-n<=16")
        .field("adjust", "holm")
        .field("diff", "B-A")
        .long()
}

/// Checks that the systems can be compared; returns the warnings.
fn check_systems(systems: &[SystemResult]) -> Result<Vec<String>, CompareError> {
    if systems.len() < 2 {
        return Err(CompareError::TooFew(systems.len()));
    }
    for (i, s) in systems.iter().enumerate() {
        if systems[..i].iter().any(|t| t.name == s.name) {
            return Err(CompareError::DuplicateName(s.name.clone()));
        }
    }
    let first = &systems[0];
    for other in &systems[1..] {
        match (&first.kind, &other.kind) {
            (SystemKind::Hotpot(fa), SystemKind::Hotpot(fb)) if fa != fb => {
                return Err(CompareError::MixedFormats {
                    a: first.name.clone(),
                    fa: fa.as_str(),
                    b: other.name.clone(),
                    fb: fb.as_str(),
                })
            }
            (a, b) if a.command() != b.command() => {
                return Err(CompareError::MixedCommands {
                    a: first.name.clone(),
                    ca: a.command().to_string(),
                    b: other.name.clone(),
                    cb: b.command().to_string(),
                })
            }
            _ => {}
        }
    }
    let command = first.kind.command();
    let answer_roles: &[&str] = match command {
        "hotpot" => &["predictions"],
        c => runs::spec(c).map_or(&[], |s| s.answer_roles),
    };
    let mut warnings = Vec::new();
    let with_inputs: Vec<&SystemResult> = systems.iter().filter(|s| !s.inputs.is_empty()).collect();
    if let Some((base, rest)) = with_inputs.split_first() {
        for other in rest {
            for (role, da) in &base.inputs {
                let Some(db) = other.inputs.get(role) else {
                    continue;
                };
                if da == db {
                    continue;
                }
                if answer_roles.contains(&role.as_str()) {
                    warnings.push(format!(
                        "{:?} and {:?} read different {role} files (SHA-256 differs): compared as different answers to the same items, paired by id",
                        base.name, other.name
                    ));
                } else {
                    let short = |d: &str| d.chars().take(12).collect::<String>();
                    return Err(CompareError::DifferentInputs {
                        role: role.clone(),
                        a: base.name.clone(),
                        da: short(da),
                        b: other.name.clone(),
                        db: short(db),
                    });
                }
            }
        }
    }
    Ok(warnings)
}

/// The metrics every system has (in the first system's order), filtered by
/// `wanted`; warnings name those left out.
fn common_metrics(
    systems: &[SystemResult],
    wanted: &[String],
    warnings: &mut Vec<String>,
) -> Result<Vec<String>, CompareError> {
    let mut common = Vec::new();
    for m in &systems[0].metrics {
        if systems.iter().all(|s| s.metrics.contains(m)) {
            common.push(m.clone());
        } else {
            warnings.push(format!("metric {m:?} is not in every system; left out"));
        }
    }
    for s in &systems[1..] {
        for m in &s.metrics {
            if !systems[0].metrics.contains(m) {
                warnings.push(format!("metric {m:?} is not in every system; left out"));
            }
        }
    }
    if common.is_empty() {
        let each: Vec<String> = systems
            .iter()
            .map(|s| format!("{} has {}", s.name, s.metrics.join(", ")))
            .collect();
        return Err(CompareError::NoCommonMetric(each.join("; ")));
    }
    if wanted.is_empty() {
        return Ok(common);
    }
    for w in wanted {
        if !common.contains(w) {
            return Err(CompareError::UnknownMetric {
                metric: w.clone(),
                available: common.join(", "),
            });
        }
    }
    Ok(common.into_iter().filter(|m| wanted.contains(m)).collect())
}

/// One test's paired rows: (id, a, b, cluster).
type Rows<'s> = Vec<(&'s str, f64, f64, Option<&'s str>)>;

/// The items both systems scored on metric `m` (official hotpot counts a
/// missing prediction as 0), with the number of items left unpaired.
fn paired_rows<'s>(
    a: &'s SystemResult,
    b: &'s SystemResult,
    (ma, mb): (usize, usize),
    official: bool,
) -> Result<(Rows<'s>, usize), String> {
    let (Some(pa), Some(pb)) = (&a.per_example, &b.per_example) else {
        let missing = if a.per_example.is_none() {
            &a.name
        } else {
            &b.name
        };
        return Err(format!("no per-item scores for {missing}"));
    };
    let by_id: HashMap<&str, &Vec<Option<f64>>> =
        pb.iter().map(|(id, s)| (id.as_str(), s)).collect();
    let mut rows = Vec::new();
    let mut paired_ids = 0;
    for (id, sa) in pa {
        let Some(sb) = by_id.get(id.as_str()) else {
            continue;
        };
        paired_ids += 1;
        let (x, y) = match (sa[ma], sb[mb]) {
            (Some(x), Some(y)) => (x, y),
            (x, y) if official => (x.unwrap_or(0.0), y.unwrap_or(0.0)),
            _ => continue,
        };
        let cluster = a
            .clusters
            .as_ref()
            .and_then(|c| c.get(id))
            .map(String::as_str);
        rows.push((id.as_str(), x, y, cluster));
    }
    Ok((rows, pa.len() + pb.len() - 2 * paired_ids))
}

/// Cohen's d_z of paired scores: mean(b - a) / sd(b - a), the standard
/// deviation with n - 1; None with fewer than two pairs or no spread.
///
/// ```
/// use corpus_eval::compare::cohens_dz;
/// // differences 1, 2, 3: mean 2, sd 1.
/// assert_eq!(cohens_dz(&[0.0, 0.0, 0.0], &[1.0, 2.0, 3.0]), Some(2.0));
/// assert_eq!(cohens_dz(&[0.0, 0.0], &[1.0, 1.0]), None);
/// ```
pub fn cohens_dz(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len().min(b.len());
    if n < 2 {
        return None;
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let mean = d.iter().sum::<f64>() / n as f64;
    let var = d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let sd = var.sqrt();
    (sd > 1e-12 && sd.is_finite()).then(|| mean / sd + 0.0)
}

/// The test of one metric between two systems.
/// The test's draws depend on the seed, the two systems' positions on
/// the command line and the metric, never on the systems' names (a name is
/// a label): [`STREAMS`].
fn test_metric(
    (a, b): (&SystemResult, &SystemResult),
    (i, j): (usize, usize),
    (metric, ma, mb): (&str, usize, usize),
    official: bool,
    options: &Options,
) -> (Difference, Vec<Changed>) {
    let seed = crate::stats::group_seed(options.seed, &format!("{i}\u{1f}{j}\u{1f}{metric}"));
    let mut changed = Vec::new();
    let mut dz = None;
    let (paired, note) = match paired_rows(a, b, (ma, mb), official) {
        Err(why) => (None, Some(why)),
        Ok((rows, unpaired)) => {
            let xs: Vec<f64> = rows.iter().map(|r| r.1).collect();
            let ys: Vec<f64> = rows.iter().map(|r| r.2).collect();
            dz = cohens_dz(&xs, &ys);
            let paired = if options.cluster == Cluster::Source {
                let mut labels: HashMap<&str, usize> = HashMap::new();
                let cluster: Vec<usize> = rows
                    .iter()
                    .map(|r| {
                        let next = labels.len();
                        *labels.entry(r.3.unwrap_or("")).or_insert(next)
                    })
                    .collect();
                paired_bootstrap_clustered(&xs, &ys, &cluster, seed, options.resamples)
            } else {
                paired_bootstrap(&xs, &ys, seed, options.resamples)
            };
            let mut moved: Vec<&(&str, f64, f64, Option<&str>)> =
                rows.iter().filter(|r| r.2 != r.1).collect();
            moved.sort_by(|p, q| (q.2 - q.1).abs().total_cmp(&(p.2 - p.1).abs()));
            changed.extend(moved.into_iter().take(CHANGED_PER_TEST).map(|r| Changed {
                metric: metric.to_string(),
                system_a: a.name.clone(),
                system_b: b.name.clone(),
                id: r.0.to_string(),
                a: r.1,
                b: r.2,
                delta: r.2 - r.1 + 0.0,
            }));
            let note = if paired.is_none() {
                Some("no item scored by both systems".to_string())
            } else if unpaired > 0 {
                Some(format!(
                    "{unpaired} item(s) not in both systems were left out"
                ))
            } else {
                None
            };
            (paired, note)
        }
    };
    let difference = Difference {
        metric: metric.to_string(),
        system_a: a.name.clone(),
        system_b: b.name.clone(),
        paired,
        p_holm: None,
        cohens_dz: dz,
        note,
    };
    (difference, changed)
}

/// Each system's mean of each metric, with a bootstrap interval where its
/// per-item scores are known.
fn system_means(
    systems: &[SystemResult],
    metrics: &[String],
    official: bool,
    seed: u64,
) -> Vec<Vec<SystemMean>> {
    systems
        .par_iter()
        .enumerate()
        .map(|(k_system, s)| {
            metrics
                .iter()
                .map(|m| {
                    let k = s.metrics.iter().position(|x| x == m).unwrap_or(0);
                    match &s.per_example {
                        Some(rows) => {
                            let values: Vec<f64> = rows
                                .iter()
                                .filter_map(|r| {
                                    if official {
                                        Some(r.1[k].unwrap_or(0.0))
                                    } else {
                                        r.1[k]
                                    }
                                })
                                .collect();
                            if values.is_empty() {
                                return SystemMean {
                                    mean: None,
                                    n: Some(0),
                                    ci_low: None,
                                    ci_high: None,
                                };
                            }
                            let g = crate::stats::summarize(
                                &values,
                                crate::stats::group_seed(seed, &format!("{k_system}\u{1f}{m}")),
                                MEAN_RESAMPLES,
                            );
                            SystemMean {
                                mean: Some(s.averages[k].unwrap_or(g.mean) + 0.0),
                                n: Some(g.n),
                                ci_low: Some(g.ci_low + 0.0),
                                ci_high: Some(g.ci_high + 0.0),
                            }
                        }
                        None => SystemMean {
                            mean: s.averages[k],
                            n: s.n,
                            ci_low: None,
                            ci_high: None,
                        },
                    }
                })
                .collect()
        })
        .collect()
}

/// Compares systems metric by metric, every pair.
pub fn compare(systems: Vec<SystemResult>, options: &Options) -> Result<Comparison, CompareError> {
    let mut warnings = check_systems(&systems)?;
    let command = systems[0].kind.command().to_string();
    let format = match systems[0].kind {
        SystemKind::Hotpot(f) => Some(f),
        SystemKind::Run(_) => None,
    };
    if options.cluster == Cluster::Source && systems.iter().any(|s| s.clusters.is_none()) {
        return Err(CompareError::NoClusters { command });
    }
    let metrics = common_metrics(&systems, &options.metrics, &mut warnings)?;
    let official = format == Some(HotpotFormat::Official);
    let mut differences = Vec::new();
    let mut changed = Vec::new();
    let mut pairs = 0;
    let n_pairs = systems.len() * (systems.len() - 1) / 2;
    crate::progress::start("paired tests", (n_pairs * metrics.len()) as u64);
    for i in 0..systems.len() {
        for j in i + 1..systems.len() {
            pairs += 1;
            let (a, b) = (&systems[i], &systems[j]);
            let tests: Vec<(Difference, Vec<Changed>)> = metrics
                .par_iter()
                .map(|metric| {
                    let ma = a.metrics.iter().position(|x| x == metric).unwrap_or(0);
                    let mb = b.metrics.iter().position(|x| x == metric).unwrap_or(0);
                    let tested = test_metric((a, b), (i, j), (metric, ma, mb), official, options);
                    crate::progress::advance(1);
                    tested
                })
                .collect();
            for (d, c) in tests {
                differences.push(d);
                changed.extend(c);
            }
        }
    }
    let tested: Vec<usize> = (0..differences.len())
        .filter(|&k| differences[k].paired.is_some())
        .collect();
    let p: Vec<f64> = tested
        .iter()
        .filter_map(|&k| differences[k].paired.map(|d| d.p_value))
        .collect();
    for (&k, adjusted) in tested.iter().zip(crate::stats::multiple::holm(&p)) {
        differences[k].p_holm = Some(adjusted);
    }
    crate::progress::finish();
    let means = system_means(&systems, &metrics, official, options.seed);
    Ok(Comparison {
        command,
        format,
        family: Family {
            tests: tested.len(),
            metrics: metrics.len(),
            pairs,
            method: "holm",
        },
        metrics,
        systems,
        means,
        differences,
        changed,
        resamples: options.resamples,
        seed: options.seed,
        cluster: options.cluster,
        warnings,
    })
}

/// Each other system against the first (the baseline), metric by metric:
/// a test case named `SYSTEM on METRIC`, failed when the system is worse
/// (lower, or higher for a metric where lower is better) with a
/// Holm-adjusted p below `alpha`; the failure names the difference, its
/// interval and p.
pub fn regressions(c: &Comparison, alpha: f64) -> Vec<(String, Option<String>)> {
    let Some(baseline) = c.systems.first().map(|s| s.name.as_str()) else {
        return Vec::new();
    };
    let f = |x: f64| crate::report::fixed(x, 4);
    c.differences
        .iter()
        .filter(|d| d.system_a == baseline)
        .map(|d| {
            let name = format!("{} on {} against {baseline}", d.system_b, d.metric);
            let failure = match (&d.paired, d.p_holm) {
                (Some(p), Some(holm)) => {
                    let worse = if crate::gates::lower_is_better(&d.metric) {
                        p.diff > 0.0
                    } else {
                        p.diff < 0.0
                    };
                    (worse && holm < alpha).then(|| {
                        format!(
                            "{} is worse than {baseline} on {}: difference {} [{}, {}], Holm-adjusted p = {} < {alpha}",
                            d.system_b,
                            d.metric,
                            f(p.diff),
                            f(p.ci_low),
                            f(p.ci_high),
                            f(holm)
                        )
                    })
                }
                _ => None,
            };
            (name, failure)
        })
        .collect()
}
