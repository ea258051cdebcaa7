//! The shards of `--shard I/N` runs read, checked and joined, one merger
//! per command that shards (the merge command, [`super::merge`], picks one
//! from the registry). An evaluate merge reads its shards' rows a window at
//! a time (`merge_evaluate`), so its memory does not grow with the rows.

use super::replay::{locate_input, recorded_config};
use super::JobError;
use crate::evaluate::PairResult;
use crate::report::manifest::InputFile;
use crate::report::run::RunWriter;
use crate::shard::{shard_of, Shard};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What to merge, and where.
#[derive(Debug, Clone)]
pub struct Request {
    /// The shards' run folders, in any order.
    pub folders: Vec<PathBuf>,
    /// Parent folder of the merged run folder.
    pub out: PathBuf,
    /// Where to look for inputs not at their recorded paths (by file name).
    pub inputs: Option<PathBuf>,
}

/// The settings of `merge`.
#[derive(
    Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, super::settings::Settings,
)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Parent folder of the merged run folder.
    #[setting(default = PathBuf::from("reports"), value_name = "DIR")]
    pub out: PathBuf,
    /// Look for inputs here, by file name, when they are not at their
    /// recorded paths.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub inputs: Option<PathBuf>,
}

impl super::JobConfig for Config {
    const COMMAND: &'static str = "merge";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), super::ConfigError> {
        Ok(())
    }
}

impl Request {
    /// Merges `folders` as `config` says.
    pub fn new(folders: Vec<PathBuf>, config: Config) -> Request {
        Request {
            folders,
            out: config.out,
            inputs: config.inputs,
        }
    }
}

/// One shard's run folder, read.
pub(crate) struct ShardRun {
    folder: PathBuf,
    manifest_path: PathBuf,
    manifest: crate::report::manifest::Manifest,
    pub(super) command: String,
    shard: Shard,
}

/// A job configuration that can name a shard.
trait ShardedConfig: super::JobConfig {
    /// The configuration of the whole run, written under `out`.
    fn unsharded(self, out: PathBuf) -> Self;
}

macro_rules! sharded_config {
    ($($t:ty),*) => {$(
        impl ShardedConfig for $t {
            fn unsharded(mut self, out: PathBuf) -> Self {
                self.shard = None;
                self.out = out;
                self
            }
        }
    )*};
}

sharded_config!(
    super::evaluate::Config,
    super::hotpot::Config,
    super::grounding::Config,
    super::text_eval::Config
);

#[cfg(feature = "net")]
sharded_config!(super::rag::Config);

#[cfg(all(feature = "net", feature = "semantic"))]
sharded_config!(super::judge_answers::Config);

impl ShardRun {
    /// The shards' configuration as the merged run's, under `req.out`.
    fn merged_config<C: ShardedConfig>(&self, req: &Request) -> Result<C, JobError> {
        Ok(self.merged_resolved(req, C::validate)?.0)
    }

    /// The merged configuration ([`Self::merged_config`]) resolved once
    /// by `resolve` (which checks it).
    fn merged_resolved<C: ShardedConfig, R>(
        &self,
        req: &Request,
        resolve: impl FnOnce(&C) -> Result<R, super::ConfigError>,
    ) -> Result<(C, R), JobError> {
        let c: C = recorded_config(&self.manifest_path, self.config().clone())?;
        let c = c.unsharded(req.out.clone());
        let r = resolve(&c)?;
        Ok((c, r))
    }

    /// The shard's recorded configuration (checked present when read).
    fn config(&self) -> &Value {
        self.manifest.config.as_ref().unwrap_or(&Value::Null)
    }

    /// The shards' input `role`, found and checked as `rerun` does.
    fn input(&self, role: &str, req: &Request) -> Result<PathBuf, JobError> {
        locate_input(
            &self.manifest_path,
            &self.manifest,
            role,
            req.inputs.as_deref(),
        )
    }
}

pub(super) fn input_error(message: String) -> JobError {
    JobError::Input(message)
}

pub(super) fn read_shard(folder: &Path) -> Result<ShardRun, JobError> {
    let manifest_path = folder.join("manifest.json");
    let manifest = crate::report::manifest::Manifest::read(&manifest_path)?;
    let command = manifest.command.clone();
    let shard = manifest
        .config
        .as_ref()
        .and_then(|c| c.get("shard"))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            input_error(format!(
                "{}: not a shard run (no `config.shard`; run the command with --shard I/N)",
                manifest_path.display()
            ))
        })?
        .parse::<Shard>()
        .map_err(|e| input_error(format!("{}: config.shard: {e}", manifest_path.display())))?;
    if manifest.status != "complete" {
        return Err(input_error(format!(
            "{}: the run did not complete (status {:?})",
            manifest_path.display(),
            manifest.status
        )));
    }
    Ok(ShardRun {
        folder: folder.to_path_buf(),
        manifest_path,
        manifest,
        command,
        shard,
    })
}

/// A configuration without the settings shards may differ in.
fn shared_config(manifest: &crate::report::manifest::Manifest) -> Value {
    let mut c = manifest.config.clone().unwrap_or(Value::Null);
    if let Value::Object(m) = &mut c {
        m.remove("shard");
        m.remove("out");
    }
    c
}

/// The inputs' SHA-256 by role.
fn digests(manifest: &crate::report::manifest::Manifest) -> BTreeMap<String, String> {
    crate::compare::runs::inputs_of(manifest)
}

/// Checks that the shards belong together and cover 1..N once; returns
/// them ordered by shard index.
pub(super) fn check_shards(mut shards: Vec<ShardRun>) -> Result<Vec<ShardRun>, JobError> {
    if shards.is_empty() {
        return Err(input_error("merge needs the shards' run folders".into()));
    }
    // The reference is a shard of the majority (command, configuration,
    // inputs, N), so that the odd one out is the one named.
    let key = |s: &ShardRun| {
        (
            s.command.clone(),
            shared_config(&s.manifest).to_string(),
            digests(&s.manifest),
            s.shard.count,
        )
    };
    let keys: Vec<_> = shards.iter().map(key).collect();
    let reference = (0..keys.len())
        .max_by_key(|&i| {
            (
                keys.iter().filter(|k| **k == keys[i]).count(),
                std::cmp::Reverse(i),
            )
        })
        .unwrap_or(0);
    shards.swap(0, reference);
    let first = &shards[0];
    let (command, config, inputs, count) = (
        first.command.clone(),
        shared_config(&first.manifest),
        digests(&first.manifest),
        first.shard.count,
    );
    let name = |s: &ShardRun| s.folder.display().to_string();
    for s in &shards[1..] {
        if s.command != command {
            return Err(input_error(format!(
                "{} is a {} run, {} a {} run: merge shards of one command",
                name(s),
                s.command,
                name(first),
                command
            )));
        }
        if shared_config(&s.manifest) != config {
            return Err(input_error(format!(
                "{} was run with another configuration than {} (compare their manifests' `config`)",
                name(s),
                name(first)
            )));
        }
        let other = digests(&s.manifest);
        if other != inputs {
            let role = inputs
                .iter()
                .find(|(r, d)| other.get(*r) != Some(*d))
                .map(|(r, _)| r.clone())
                .or_else(|| other.keys().find(|r| !inputs.contains_key(*r)).cloned())
                .unwrap_or_default();
            return Err(input_error(format!(
                "{} read another {role} file than {} (SHA-256 differs)",
                name(s),
                name(first)
            )));
        }
        if s.shard.count != count {
            return Err(input_error(format!(
                "{} is shard {} but {} is shard {}: one N for all shards",
                name(s),
                s.shard,
                name(first),
                first.shard
            )));
        }
    }
    shards.sort_by_key(|s| s.shard.index);
    for w in shards.windows(2) {
        if w[0].shard == w[1].shard {
            return Err(input_error(format!(
                "shard {} is given twice: {} and {}",
                w[0].shard,
                name(&w[0]),
                name(&w[1])
            )));
        }
    }
    let have: Vec<u32> = shards.iter().map(|s| s.shard.index).collect();
    let missing: Vec<String> = (1..=count)
        .filter(|i| !have.contains(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(input_error(format!(
            "missing shard(s) {} (have {} of {count})",
            missing.join(", "),
            have.len()
        )));
    }
    Ok(shards)
}

/// Whether `folder` is a symbolic link to a folder that `all` names too.
pub(super) fn is_link_to_another(folder: &Path, all: &[PathBuf]) -> bool {
    let bare: PathBuf = folder.components().collect();
    if !bare
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
    {
        return false;
    }
    let Ok(target) = std::fs::canonicalize(folder) else {
        return false;
    };
    all.iter()
        .filter(|o| o.components().collect::<PathBuf>() != bare)
        .any(|o| std::fs::canonicalize(o).is_ok_and(|t| t == target))
}

/// Pairs per window of [`merge_evaluate`]: what it holds of the shards'
/// rows at a time.
const MERGE_WINDOW: usize = 16_384;

pub(crate) fn merge_evaluate(
    req: &Request,
    shards: &[ShardRun],
    started: SystemTime,
) -> Result<PathBuf, JobError> {
    merge_evaluate_in(req, shards, started, MERGE_WINDOW)
}

/// [`merge_evaluate`] holding `window` pairs' rows at a time: one pass over
/// the shards' rows checks them and sums the summary's parts, then each
/// output file reads them again, window by window.
fn merge_evaluate_in(
    req: &Request,
    shards: &[ShardRun],
    started: SystemTime,
    window: usize,
) -> Result<PathBuf, JobError> {
    use super::evaluate::{manifest, write_run_from, Config};
    use crate::evaluate::SummaryParts;
    let first = &shards[0];
    let (config, resolved) = first.merged_resolved(req, Config::resolve)?;
    let q_path = first.input("questions", req)?;
    let t_path = first.input("transcripts", req)?;
    // As the run itself loads them: the questions' text dropped once
    // parsed, the transcripts packed (each read back when the report
    // needs it); WordNet only for the signature and its record.
    let loaded = crate::corpus::Loader::new().questions(&q_path)?;
    let q_info = InputFile::digested(&q_path, loaded.sha256, loaded.bytes);
    let mut questions = loaded.data;
    // Only the pairs' texts (packed) and ids are kept: each window's pairs
    // are typed again from their texts.
    let ids = questions.drop_typed();
    crate::sys::memory::give_back();
    let (transcripts, t_info) = super::evaluate::load_transcripts(&t_path, &resolved, true)?;
    let eval_config = &resolved.eval;
    let (signature, lexicon_info) = {
        let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
        (
            crate::evaluate::signature(&lexicon, eval_config),
            lexicon.info(),
        )
    };
    crate::sys::memory::give_back();
    let rows = ShardRows {
        shards,
        questions: (&questions, &q_path),
        ids: &ids,
        transcripts: &transcripts,
        window,
    };
    // The check and the summary's parts, a window at a time.
    let mut parts = SummaryParts::default();
    let mut cited: Vec<usize> = Vec::new();
    rows.read(crate::views::results::Fill::RESULTS, &mut |w| {
        let part = SummaryParts::of_rows(&signature, w.pairs, |i| w.first + i);
        parts.merge(&part).map_err(input_error)?;
        let sources = w
            .pairs
            .iter()
            .flat_map(|p| &p.answers)
            .flat_map(|a| &a.quotes)
            .filter_map(|q| q.source.as_deref().and_then(|s| transcripts.position(s)));
        cited.extend(sources);
        cited.sort_unstable();
        cited.dedup();
        Ok(())
    })?;
    parts.signature = signature;
    parts.unlabelled =
        crate::evaluate::unlabelled_transcripts(&transcripts, cited, &eval_config.speakers)?;
    let mut summary = parts.finish(eval_config);
    summary.warnings.extend(transcripts.doubts.iter().cloned());
    for w in &summary.warnings {
        errln!("warning: {w}");
    }
    let mut m = manifest(
        &resolved,
        (q_info, t_info),
        &summary,
        &lexicon_info,
        started,
    );
    if let Value::Object(settings) = &mut m.settings {
        settings.insert("merged_from".into(), merged_from(shards));
    }
    let mut writer = RunWriter::create(&config.out, started, m)?;
    write_run_from(
        &mut writer,
        &config,
        (&summary, &rows),
        (&questions, &transcripts),
    )?;
    Ok(writer.finish()?)
}

/// The shards' rows (their `pairs.jsonl`) in question order, read a window
/// at a time, each time they are asked for.
struct ShardRows<'a> {
    shards: &'a [ShardRun],
    /// The question set without its typed pairs (see
    /// `QuestionSet::drop_typed`), and its file.
    questions: (&'a crate::corpus::QuestionSet, &'a Path),
    /// Each pair's id, in file order.
    ids: &'a [String],
    transcripts: &'a crate::corpus::TranscriptSet,
    window: usize,
}

/// A shard's `pairs.jsonl`, read line by line.
struct ShardLines {
    path: PathBuf,
    lines: std::io::Lines<std::io::BufReader<std::fs::File>>,
    line: usize,
}

impl ShardLines {
    fn open(folder: &Path) -> Result<ShardLines, JobError> {
        let path = folder.join("pairs.jsonl");
        let file = std::fs::File::open(&path)
            .map_err(|e| input_error(format!("{}: {e}", path.display())))?;
        Ok(ShardLines {
            lines: std::io::BufRead::lines(std::io::BufReader::with_capacity(1 << 16, file)),
            path,
            line: 0,
        })
    }

    /// The next pair's result (blank lines skipped); None at the end.
    fn next_pair(&mut self) -> Result<Option<PairResult>, JobError> {
        for line in self.lines.by_ref() {
            self.line += 1;
            let line = line.map_err(|e| input_error(format!("{}: {e}", self.path.display())))?;
            if line.trim().is_empty() {
                continue;
            }
            let pair: PairResult = serde_json::from_str(&line).map_err(|e| {
                input_error(format!(
                    "{}:{}:{}: {e}",
                    self.path.display(),
                    self.line,
                    e.column()
                ))
            })?;
            return Ok(Some(pair));
        }
        Ok(None)
    }
}

impl ShardRows<'_> {
    /// Calls `each` on consecutive windows of every pair's result, in
    /// question order, filled in as `fill` asks (the window's pairs typed
    /// again from their texts, the byte spans the audit report needs); an
    /// error names the shard that lacks a pair, holds another or holds one
    /// too many.
    fn read(
        &self,
        fill: crate::views::results::Fill,
        each: &mut dyn FnMut(crate::views::results::PairWindow<'_>) -> Result<(), JobError>,
    ) -> Result<(), JobError> {
        let shards = self.shards;
        let count = shards[0].shard.count;
        let mut lines = shards
            .iter()
            .map(|s| ShardLines::open(&s.folder))
            .collect::<Result<Vec<_>, _>>()?;
        let window = self.window.max(1);
        let mut pairs: Vec<PairResult> = Vec::with_capacity(window.min(self.ids.len()));
        let mut first = 0;
        let (set, name) = self.questions;
        let mut flush = |pairs: &mut Vec<PairResult>, first: &mut usize| -> Result<(), JobError> {
            // The transcript each quote's source resolves to (not kept in
            // pairs.jsonl).
            for q in pairs
                .iter_mut()
                .flat_map(|p| &mut p.answers)
                .flat_map(|a| &mut a.quotes)
            {
                q.transcript = crate::evaluate::resolved(self.transcripts, q.source.as_deref());
            }
            if fill.byte_spans {
                restore_byte_spans(pairs, self.transcripts)?;
            }
            let questions = if fill.questions {
                set.typed_pairs(name, *first..*first + pairs.len(), self.ids)?
            } else {
                Vec::new()
            };
            each(crate::views::results::PairWindow {
                first: *first,
                questions: &questions,
                pairs,
            })?;
            *first += pairs.len();
            pairs.clear();
            Ok(())
        };
        for id in self.ids {
            let s = shard_of(id, count) as usize;
            let folder = shards[s - 1].folder.display();
            let Some(result) = lines[s - 1].next_pair()? else {
                return Err(input_error(format!(
                    "{folder} (shard {s}/{count}) lacks pair {id:?}: not every item is in the shards"
                )));
            };
            if result.id != *id {
                return Err(input_error(format!(
                    "{folder} (shard {s}/{count}): pairs.jsonl holds {:?} where the questions have {id:?}",
                    result.id
                )));
            }
            pairs.push(result);
            if pairs.len() == window {
                flush(&mut pairs, &mut first)?;
            }
        }
        if !pairs.is_empty() {
            flush(&mut pairs, &mut first)?;
        }
        for (k, l) in lines.iter_mut().enumerate() {
            if let Some(extra) = l.next_pair()? {
                let mut more = 1;
                while l.next_pair()?.is_some() {
                    more += 1;
                }
                return Err(input_error(format!(
                    "{} (shard {}/{count}) holds {more} pair(s) the questions do not have (first: {:?})",
                    shards[k].folder.display(),
                    k + 1,
                    extra.id
                )));
            }
        }
        Ok(())
    }
}

impl crate::views::results::Rows for ShardRows<'_> {
    fn count(&self) -> usize {
        self.ids.len()
    }

    fn windows(
        &self,
        fill: crate::views::results::Fill,
        each: &mut dyn FnMut(crate::views::results::PairWindow<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.read(fill, &mut |w| {
            each(w).map_err(|e| JobError::Input(e.to_string()))
        })
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))
    }
}

/// Byte offsets of the given char offsets of `text` (one pass).
fn byte_offsets(text: &str, chars: &std::collections::BTreeSet<usize>) -> BTreeMap<usize, usize> {
    let mut out = BTreeMap::new();
    let mut wanted = chars.iter().peekable();
    for (c, (b, _)) in text.char_indices().enumerate() {
        while wanted.peek().is_some_and(|w| **w == c) {
            out.insert(c, b);
            wanted.next();
        }
        if wanted.peek().is_none() {
            return out;
        }
    }
    for w in wanted {
        out.insert(*w, text.len());
    }
    out
}

/// The byte spans (not in pairs.jsonl) the audit report needs, from the
/// char spans and the transcripts.
fn restore_byte_spans(
    pairs: &mut [PairResult],
    transcripts: &crate::corpus::TranscriptSet,
) -> Result<(), JobError> {
    let n = transcripts.transcripts.len();
    let mut wanted: Vec<std::collections::BTreeSet<usize>> = vec![Default::default(); n];
    let at = |name: Option<&str>| name.and_then(|s| transcripts.position(s));
    let visit = |pairs: &mut [PairResult],
                 f: &mut dyn FnMut(
        usize,
        &mut std::ops::Range<usize>,
        &crate::citations::attribution::Span,
    )| {
        for q in pairs
            .iter_mut()
            .flat_map(|p| p.answers.iter_mut())
            .flat_map(|a| a.quotes.iter_mut())
        {
            let cited = at(q.source.as_deref());
            if let (Some(i), Some(span)) = (cited, q.check.span.clone()) {
                let s = crate::citations::attribution::Span::from(span);
                let mut r = q.check.byte_span.clone().unwrap_or_default();
                f(i, &mut r, &s);
                q.check.byte_span = Some(r);
            }
            if let (Some(i), Some(span)) = (cited, q.check.closest.clone()) {
                let s = crate::citations::attribution::Span::from(span);
                let mut r = q.check.closest_bytes.clone().unwrap_or_default();
                f(i, &mut r, &s);
                q.check.closest_bytes = Some(r);
            }
            if let Some(o) = q.attributed.other_source.as_mut() {
                if let Some(i) = at(Some(o.source.as_str())) {
                    f(i, &mut o.byte_span, &o.span);
                }
            }
            if let Some(i) = cited {
                for piece in &mut q.attributed.pieces {
                    f(i, &mut piece.byte_span, &piece.span);
                }
            }
        }
    };
    visit(pairs, &mut |i, _, s| {
        wanted[i].insert(s.start);
        wanted[i].insert(s.end);
    });
    let maps: Vec<BTreeMap<usize, usize>> = transcripts
        .transcripts
        .iter()
        .zip(&wanted)
        // A transcript no quote of these pairs stands in is not read (merge
        // calls this once per window).
        .map(|(t, w)| {
            if w.is_empty() {
                Ok(BTreeMap::new())
            } else {
                Ok(byte_offsets(&t.text()?, w))
            }
        })
        .collect::<Result<_, crate::corpus::CorpusError>>()?;
    visit(pairs, &mut |i, r, s| {
        let b = |c: usize| maps[i].get(&c).copied().unwrap_or(0);
        *r = b(s.start)..b(s.end);
    });
    Ok(())
}

/// A JSON file of a shard's run folder.
fn read_json(path: &Path) -> Result<Value, JobError> {
    let text = super::read_text(path)?;
    crate::corpus::strict_json::parse_str(&text)
        .map_err(|e| crate::corpus::json_error(path, &e).into())
}

pub(crate) fn merge_hotpot(
    req: &Request,
    shards: &[ShardRun],
    started: SystemTime,
) -> Result<PathBuf, JobError> {
    use crate::hotpot::{Example, HotpotEvaluation, HotpotFormat};
    let first = &shards[0];
    let config: super::hotpot::Config = first.merged_config(req)?;
    let metrics = read_json(&first.folder.join("metrics.json"))?;
    let format = match metrics["format"].as_str() {
        Some("official") => HotpotFormat::Official,
        _ => HotpotFormat::Simple,
    };
    let names = format.metric_names();
    let total = metrics["items_total"].as_u64().unwrap_or(0) as usize;
    let mut examples: Vec<Example> = Vec::with_capacity(total);
    for s in shards {
        let path = s.folder.join("per_example.json");
        let rows = read_json(&path)?;
        for (k, row) in rows.as_array().into_iter().flatten().enumerate() {
            let field = |name: &str, what: &str| {
                input_error(format!(
                    "{}: item {k}: field `{name}`: {what}",
                    path.display()
                ))
            };
            let text = |v: &Value| v.as_str().map(str::to_string);
            let position = row["position"]
                .as_u64()
                .ok_or_else(|| field("position", "missing (not a shard's per_example.json)"))?
                as usize;
            let mut scores = Vec::with_capacity(names.len());
            for name in names {
                scores.push(match &row[*name] {
                    Value::Null => None,
                    v => Some(v.as_f64().ok_or_else(|| field(name, "not a number"))?),
                });
            }
            examples.push(Example {
                position,
                id: text(&row["id"]).ok_or_else(|| field("id", "missing"))?,
                question: text(&row["question"]),
                prediction: text(&row["prediction"]),
                gold: text(&row["gold"]).ok_or_else(|| field("gold", "missing"))?,
                scores,
            });
        }
    }
    examples.sort_by_key(|e| e.position);
    for (want, e) in examples.iter().enumerate() {
        if e.position != want {
            let what = if e.position < want {
                "twice"
            } else {
                "in no shard"
            };
            let item = if e.position < want { e.position } else { want };
            return Err(input_error(format!(
                "item {item} of the gold file is {what}: the shards do not cover every item once"
            )));
        }
    }
    if examples.len() != total {
        return Err(input_error(format!(
            "the shards hold {} of the gold file's {total} items",
            examples.len()
        )));
    }
    let base = HotpotEvaluation {
        format,
        examples: Vec::new(),
        averages: Vec::new(),
        missing_answer: Vec::new(),
        missing_sp: Vec::new(),
        extra_predictions: metrics["extra_predictions"].as_u64().unwrap_or(0) as usize,
        insufficient_context_n: None,
        signature: metrics["signature"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        warnings: metrics["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str().map(str::to_string))
            .collect(),
        shard: None,
    };
    let eval = base.rejoin(examples);
    super::hotpot::warn_missing(&eval);
    let system = metrics["system"].as_str().unwrap_or("system").to_string();
    let inputs = first_inputs(first);
    let mut m = super::hotpot::manifest(&config, inputs, &eval, &system, started);
    if let Value::Object(settings) = &mut m.settings {
        settings.insert("merged_from".into(), merged_from(shards));
    }
    let mut writer = RunWriter::create(&config.out, started, m)?;
    super::hotpot::write_run(&mut writer, &eval, &system, &config)?;
    Ok(writer.finish()?)
}

/// The shards' folders, for the merged manifest.
fn merged_from(shards: &[ShardRun]) -> Value {
    Value::Array(
        shards
            .iter()
            .map(|s| Value::String(s.folder.display().to_string()))
            .collect(),
    )
}

#[cfg(feature = "net")]
pub(crate) fn merge_rag(
    req: &Request,
    shards: &[ShardRun],
    started: SystemTime,
) -> Result<PathBuf, JobError> {
    let first = &shards[0];
    let config: super::rag::Config = first.merged_config(req)?;
    let questions = first.input("questions", req)?;
    let folders: Vec<PathBuf> = shards.iter().map(|s| s.folder.clone()).collect();
    super::rag::write_merged(&config, &questions, &folders, merged_from(shards), started)
}

/// judge-answers shards: scores.jsonl rejoined in input order; the
/// summary (judge counts summed over the shards), agreement and score
/// distributions recomputed.
#[cfg(all(feature = "net", feature = "semantic"))]
pub(crate) fn merge_judge(
    req: &Request,
    shards: &[ShardRun],
    started: SystemTime,
) -> Result<PathBuf, JobError> {
    use super::judge_answers::{
        agreement_of, histograms, load_items, write_outputs, Config, Output,
    };
    use crate::judge::JudgeCounts;
    use crate::judge_answers::{summarize_scores, ItemScore, JudgeAnswersConfig};
    let first = &shards[0];
    let config: Config = first.merged_config(req)?;
    let path = first.input("input", req)?;
    let items = load_items(&path)?;
    let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
    let queues = shards
        .iter()
        .map(|s| shard_lines::<ItemScore>(&s.folder.join("scores.jsonl")))
        .collect::<Result<Vec<_>, _>>()?;
    let scores = rejoin_rows(
        shards,
        &ids,
        queues,
        |s: &ItemScore| s.id.as_str(),
        "scores.jsonl",
    )?;
    let mut counts = JudgeCounts::default();
    let mut signature = String::new();
    let mut threshold = config.threshold;
    for (k, s) in shards.iter().enumerate() {
        let path = s.folder.join("summary.json");
        let summary = read_json(&path)?;
        let c: JudgeCounts = serde_json::from_value(summary["judge"].clone())
            .map_err(|e| input_error(format!("{}: judge: {e}", path.display())))?;
        counts.calls += c.calls;
        counts.cached += c.cached;
        counts.failed += c.failed;
        counts.judged += c.judged;
        if k == 0 {
            signature = summary["signature"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            // semantic_dynamic's threshold, chosen on the whole input.
            threshold = s.manifest.settings["threshold"].as_f64().ok_or_else(|| {
                input_error(format!(
                    "{}: field `settings.threshold` is missing or not a number",
                    s.manifest_path.display()
                ))
            })?;
        }
    }
    let core = JudgeAnswersConfig {
        method: config.method,
        threshold,
        anchors: config.anchors == super::judge_answers::Anchors::On
            && config.method.uses_embeddings(),
        band: config.band,
        judge_top: config.judge_top,
    };
    let mut summary = summarize_scores(&scores, &core, counts, signature);
    if config.agreement {
        summary.agreement = Some(agreement_of(&scores, config.method)?);
    }
    let mut settings = first.manifest.settings.clone();
    if let Value::Object(m) = &mut settings {
        m.insert("out".into(), Value::from(config.out.display().to_string()));
        m.insert("merged_from".into(), merged_from(shards));
    }
    let output = Output {
        histograms: histograms(config.method, &scores, &items),
        scores,
        summary,
        settings: settings.clone(),
        estimate: None,
    };
    let mut m = crate::report::manifest::Manifest::new(
        "judge-answers",
        BTreeMap::new(),
        settings,
        output.summary.signature.clone(),
        started,
    )
    .with_config(super::to_value(&config));
    m.inputs = first_inputs(first);
    m.wordnet = first.manifest.wordnet.clone();
    write_outputs(
        RunWriter::create(&config.out, started, m)?,
        &output,
        config.no_plots,
    )
}

/// A shard's JSON Lines `path`, one `T` per line.
#[cfg(all(feature = "net", feature = "semantic"))]
fn shard_lines<T: serde::de::DeserializeOwned>(path: &Path) -> Result<VecDeque<T>, JobError> {
    let text = super::read_text(path)?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            serde_json::from_str(l).map_err(|e| {
                input_error(format!("{}:{}:{}: {e}", path.display(), n + 1, e.column()))
            })
        })
        .collect()
}

pub(crate) fn merge_grounding(
    req: &Request,
    shards: &[ShardRun],
    started: SystemTime,
) -> Result<PathBuf, JobError> {
    use crate::grounding::GroundingResult;
    let first = &shards[0];
    let config: super::grounding::Config = first.merged_config(req)?;
    let path = first.input("input", req)?;
    let bytes = super::read_input(&path)?;
    let rows = crate::grounding::input::load_grounding_rows(&path)?;
    let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let queues = shard_arrays(shards, "grounding.json")?;
    let results = rejoin_rows(
        shards,
        &ids,
        queues,
        |r: &GroundingResult| r.id.as_str(),
        "grounding.json",
    )?;
    let output = super::grounding::Output {
        summary: super::grounding::summary(&results),
        results,
    };
    let inputs = BTreeMap::from([("input".to_string(), InputFile::new(&path, &bytes))]);
    let mut m =
        super::grounding::manifest(&config, inputs, output.results.len(), &lexicon, started);
    if let Value::Object(settings) = &mut m.settings {
        settings.insert("merged_from".into(), merged_from(shards));
    }
    super::grounding::write_run(RunWriter::create(&config.out, started, m)?, &output)
}

/// Puts per-row results of shards back in the input's row order (`ids`),
/// checking each row is in its shard once.
fn rejoin_rows<T>(
    shards: &[ShardRun],
    ids: &[&str],
    mut queues: Vec<VecDeque<T>>,
    id_of: impl Fn(&T) -> &str,
    file: &str,
) -> Result<Vec<T>, JobError> {
    let count = shards[0].shard.count;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let s = shard_of(id, count) as usize;
        let folder = shards[s - 1].folder.display();
        match queues[s - 1].pop_front() {
            Some(x) if id_of(&x) == *id => out.push(x),
            Some(x) => {
                return Err(input_error(format!(
                    "{folder} (shard {s}/{count}): {file} holds {:?} where the input has {id:?}",
                    id_of(&x)
                )))
            }
            None => {
                return Err(input_error(format!(
                    "{folder} (shard {s}/{count}) lacks row {id:?}: not every row is in the shards"
                )))
            }
        }
    }
    if let Some((k, q)) = queues.iter().enumerate().find(|(_, q)| !q.is_empty()) {
        return Err(input_error(format!(
            "{} (shard {}/{count}) holds {} row(s) the input does not have",
            shards[k].folder.display(),
            k + 1,
            q.len()
        )));
    }
    Ok(out)
}

/// Each shard's JSON array `file`, parsed.
fn shard_arrays<T: serde::de::DeserializeOwned>(
    shards: &[ShardRun],
    file: &str,
) -> Result<Vec<VecDeque<T>>, JobError> {
    shards
        .iter()
        .map(|s| {
            let path = s.folder.join(file);
            let text = super::read_text(&path)?;
            serde_json::from_str::<Vec<T>>(&text)
                .map(VecDeque::from)
                .map_err(|e| {
                    input_error(format!(
                        "{}:{}:{}: {e}",
                        path.display(),
                        e.line(),
                        e.column()
                    ))
                })
        })
        .collect()
}

pub(crate) fn merge_text_eval(
    req: &Request,
    shards: &[ShardRun],
    started: SystemTime,
) -> Result<PathBuf, JobError> {
    use super::text_eval::{summary_with_head, write_run, Output, SummaryHead};
    let first = &shards[0];
    let config: super::text_eval::Config = first.merged_config(req)?;
    let path = first.input("input", req)?;
    let rows = crate::texteval::input::load_text_rows(&path)?;
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let queues = shard_arrays(shards, "results.json")?;
    let results = rejoin_rows(
        shards,
        &ids,
        queues,
        |r: &crate::texteval::output::TextResult| r.id.as_str(),
        "results.json",
    )?;
    let first_summary = read_json(&first.folder.join("summary.json"))?;
    let head = SummaryHead::from_summary(&first_summary);
    let output = Output {
        summary: summary_with_head(&results, &head),
        signature: head.signature.as_str().unwrap_or_default().to_string(),
        notes: head.notes.clone(),
        results,
    };
    let mut m = crate::report::manifest::Manifest::new(
        "text-eval",
        BTreeMap::new(),
        first.manifest.settings.clone(),
        output.signature.clone(),
        started,
    )
    .with_config(super::to_value(&config));
    m.inputs = first_inputs(first);
    m.wordnet = first.manifest.wordnet.clone();
    if let Value::Object(settings) = &mut m.settings {
        settings.remove("shard");
        settings.insert("rows".into(), Value::from(output.results.len()));
        settings.insert("out".into(), Value::from(config.out.display().to_string()));
        settings.insert("merged_from".into(), merged_from(shards));
    }
    let degraded = head.degraded.is_some();
    write_run(
        RunWriter::create(&config.out, started, m)?,
        &output,
        degraded,
    )
}

/// The first shard's recorded inputs (every shard read the same files).
fn first_inputs(first: &ShardRun) -> BTreeMap<String, InputFile> {
    first.manifest.inputs.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files of a run folder that `merge` must reproduce, with the
    /// audit report's data (the page around it names the run).
    fn outputs(folder: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> =
            ["results.json", "summary.json", "items.csv", "quotes.csv"]
                .iter()
                .map(|f| (f.to_string(), std::fs::read(folder.join(f)).unwrap()))
                .collect();
        let html = std::fs::read_to_string(folder.join("report.html")).unwrap();
        let data = html[html.find("id=\"audit-data\"").unwrap()..]
            .split("</script>")
            .next()
            .unwrap()
            .to_string();
        out.push(("report data".into(), data.into_bytes()));
        out
    }

    #[test]
    fn a_merge_window_by_window_equals_the_whole_run() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let questions = repo.join("evaluation/data_fixture.json");
        let transcripts = repo.join("datasets/corpus.json");
        let dir = tempfile::tempdir().unwrap();
        let config = |parent: &str, shard: Option<Shard>| super::super::evaluate::Config {
            out: dir.path().join(parent),
            no_plots: true,
            shard,
            ..Default::default()
        };
        let run = |c: &super::super::evaluate::Config| {
            super::super::evaluate::execute(c, &questions, &transcripts)
                .unwrap()
                .0
        };
        let whole = outputs(&run(&config("whole", None)));
        let folders: Vec<PathBuf> = (1..=3)
            .map(|index| run(&config("parts", Some(Shard { index, count: 3 }))))
            .collect();
        let shards = || check_shards(folders.iter().map(|f| read_shard(f).unwrap()).collect());
        // 38 pairs: windows of 1, 5 (the last one short) and more than all.
        for window in [1, 5, 38, 1000] {
            let req = Request {
                folders: folders.clone(),
                out: dir.path().join(format!("merged-{window}")),
                inputs: None,
            };
            let merged =
                merge_evaluate_in(&req, &shards().unwrap(), SystemTime::now(), window).unwrap();
            for ((name, a), (_, b)) in whole.iter().zip(outputs(&merged)) {
                assert!(*a == b, "window {window}: {name} differs");
            }
        }
        // A pair's line removed from a shard: named, nothing written.
        let lines = std::fs::read_to_string(folders[1].join("pairs.jsonl")).unwrap();
        let cut: Vec<&str> = lines.lines().skip(1).collect();
        std::fs::write(folders[1].join("pairs.jsonl"), cut.join("\n")).unwrap();
        let req = Request {
            folders: folders.clone(),
            out: dir.path().join("merged-cut"),
            inputs: None,
        };
        let e = merge_evaluate_in(&req, &shards().unwrap(), SystemTime::now(), 5)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("(shard 2/3)") && e.contains("pairs.jsonl holds"),
            "{e}"
        );
        assert!(
            !dir.path().join("merged-cut").exists() || {
                std::fs::read_dir(dir.path().join("merged-cut"))
                    .unwrap()
                    .next()
                    .is_none()
            }
        );
    }
}
