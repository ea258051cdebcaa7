//! One registry of the commands that write run folders: `rerun` and
//! `merge` look a manifest's `command` up here (each command named once,
//! by its configuration's [`JobConfig::COMMAND`]) instead of matching the
//! name in each of them.

use super::shards::{self, ShardRun};
use super::{JobConfig, JobError};
use crate::jobs;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What `rerun` hands a job: the recorded configuration and inputs, and
/// where the new run folder goes.
pub(crate) struct Replay<'a> {
    /// The original run's manifest (named in errors).
    pub manifest_path: &'a Path,
    /// The recorded configuration.
    pub config: Value,
    /// Every recorded input, found and checked, by role.
    pub located: &'a BTreeMap<String, PathBuf>,
    /// The parent folder of the new run folder.
    pub parent: PathBuf,
    /// The original run folder (a rag run reruns from its journal there).
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub run_folder: &'a Path,
}

impl Replay<'_> {
    /// The recorded configuration, typed and checked.
    pub(crate) fn config<C: JobConfig>(&self) -> Result<C, JobError> {
        super::replay::config_of(self.manifest_path, self.config.clone())
    }

    /// The input recorded under `role`.
    pub(crate) fn input(&self, role: &str) -> Result<PathBuf, JobError> {
        self.located.get(role).cloned().ok_or_else(|| {
            JobError::Input(format!(
                "{}: no `{role}` input recorded",
                self.manifest_path.display()
            ))
        })
    }
}

/// A command that writes run folders, as `rerun` and `merge` see it.
pub(crate) trait Job: Sync {
    /// The command as manifests record it.
    fn command(&self) -> &'static str;

    /// Executes the recorded run again; the new run folder.
    fn rerun(&self, replay: &Replay<'_>) -> Result<PathBuf, JobError>;

    /// How `merge` joins the command's shard run folders; None when its
    /// runs cannot be sharded.
    fn merger(&self) -> Option<Merger> {
        None
    }
}

/// Joins shard run folders into a new run folder.
pub(crate) type Merger = fn(&shards::Request, &[ShardRun], SystemTime) -> Result<PathBuf, JobError>;

/// The job that `command` names.
pub(crate) fn find(command: &str) -> Option<&'static dyn Job> {
    JOBS.iter().copied().find(|j| j.command() == command)
}

/// The commands `rerun` supports, comma-separated (for messages).
pub(crate) fn rerun_commands() -> String {
    JOBS.iter()
        .map(|j| j.command())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The commands whose runs `merge` joins, comma-separated (for messages).
pub(crate) fn merge_commands() -> String {
    JOBS.iter()
        .filter(|j| j.merger().is_some())
        .map(|j| j.command())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every command that writes a run folder, in the order messages list them.
static JOBS: &[&dyn Job] = &[
    &Evaluate,
    &CheckReport,
    &Hotpot,
    &Compare,
    &Grounding,
    &TextEval,
    #[cfg(all(feature = "net", feature = "semantic"))]
    &JudgeAnswers,
    #[cfg(all(feature = "net", feature = "semantic"))]
    &Threshold,
    #[cfg(feature = "net")]
    &Rag,
    &Agreement,
    &Lexical,
];

struct Evaluate;

impl Job for Evaluate {
    fn command(&self) -> &'static str {
        jobs::evaluate::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::evaluate::Config = r.config()?;
        let (q, t) = (r.input("questions")?, r.input("transcripts")?);
        c.out = r.parent.clone();
        Ok(jobs::evaluate::execute(&c, &q, &t)?.0)
    }

    fn merger(&self) -> Option<Merger> {
        Some(shards::merge_evaluate)
    }
}

struct CheckReport;

impl Job for CheckReport {
    fn command(&self) -> &'static str {
        jobs::check_report::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::check_report::Config = r.config()?;
        let (report, t) = (r.input("report")?, r.input("transcripts")?);
        if c.sources.is_some() {
            c.sources = Some(r.input("sources")?);
        }
        c.out = r.parent.clone();
        Ok(jobs::check_report::execute(&c, &report, &t)?.0)
    }
}

struct Hotpot;

impl Job for Hotpot {
    fn command(&self) -> &'static str {
        jobs::hotpot::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::hotpot::Config = r.config()?;
        // Inputs are found under their recorded file names, so a system
        // named after the predictions file keeps its name.
        let (p, g) = (r.input("predictions")?, r.input("gold")?);
        c.out = r.parent.clone();
        Ok(jobs::hotpot::execute(&c, &p, &g)?.0)
    }

    fn merger(&self) -> Option<Merger> {
        Some(shards::merge_hotpot)
    }
}

struct Compare;

impl Job for Compare {
    fn command(&self) -> &'static str {
        jobs::compare::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::compare::Config = r.config()?;
        c.out = r.parent.clone();
        Ok(jobs::compare::execute(&c)?.0)
    }
}

struct Grounding;

impl Job for Grounding {
    fn command(&self) -> &'static str {
        jobs::grounding::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::grounding::Config = r.config()?;
        let i = r.input("input")?;
        c.out = r.parent.clone();
        Ok(jobs::grounding::execute(&c, &i)?.0)
    }

    fn merger(&self) -> Option<Merger> {
        Some(shards::merge_grounding)
    }
}

struct TextEval;

impl Job for TextEval {
    fn command(&self) -> &'static str {
        jobs::text_eval::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::text_eval::Config = r.config()?;
        let i = r.input("input")?;
        // Weight, threshold and pattern files are inputs too.
        for (role, field) in [
            ("weights", &mut c.weights),
            ("thresholds", &mut c.thresholds),
            ("patterns", &mut c.patterns),
        ] {
            if field.is_some() {
                *field = Some(r.input(role)?);
            }
        }
        c.out = r.parent.clone();
        Ok(jobs::text_eval::execute(&c, &i)?.0)
    }

    fn merger(&self) -> Option<Merger> {
        Some(shards::merge_text_eval)
    }
}

struct Agreement;

impl Job for Agreement {
    fn command(&self) -> &'static str {
        jobs::agreement::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::agreement::Config = r.config()?;
        let files = jobs::agreement::recorded_files(r.located);
        c.out = Some(r.parent.clone());
        Ok(jobs::agreement::execute(&c, &files)?.0.unwrap_or_default())
    }
}

struct Lexical;

impl Job for Lexical {
    fn command(&self) -> &'static str {
        jobs::lexical::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::lexical::Config = r.config()?;
        let files = jobs::agreement::recorded_files(r.located);
        c.out = Some(r.parent.clone());
        c.per_item = None;
        Ok(jobs::lexical::execute(&c, &files)?.0.unwrap_or_default())
    }
}

#[cfg(all(feature = "net", feature = "semantic"))]
struct Threshold;

#[cfg(all(feature = "net", feature = "semantic"))]
impl Job for Threshold {
    fn command(&self) -> &'static str {
        jobs::judge_answers::ThresholdConfig::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::judge_answers::ThresholdConfig = r.config()?;
        let i = r.input("input")?;
        c.out = Some(r.parent.clone());
        Ok(jobs::judge_answers::execute_threshold_run(&c, &i)?
            .0
            .unwrap_or_default())
    }
}

#[cfg(all(feature = "net", feature = "semantic"))]
struct JudgeAnswers;

#[cfg(all(feature = "net", feature = "semantic"))]
impl Job for JudgeAnswers {
    fn command(&self) -> &'static str {
        jobs::judge_answers::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let mut c: jobs::judge_answers::Config = r.config()?;
        let i = r.input("input")?;
        if c.validation.is_some() {
            c.validation = Some(r.input("validation")?);
        }
        if c.method.uses_judge() {
            errln!("note: {} runs the LLM judge again: verdicts in the verdict cache are reused, others are asked again (set $CORPUS_EVAL_JUDGE_URL and the key; judge call counts in summary.json differ from the original's)", c.method.as_str());
        }
        c.out = r.parent.clone();
        Ok(jobs::judge_answers::execute(&c, &i)?.0)
    }

    fn merger(&self) -> Option<Merger> {
        Some(shards::merge_judge)
    }
}

#[cfg(feature = "net")]
struct Rag;

#[cfg(feature = "net")]
impl Job for Rag {
    fn command(&self) -> &'static str {
        jobs::rag::Config::COMMAND
    }

    fn rerun(&self, r: &Replay<'_>) -> Result<PathBuf, JobError> {
        let c: jobs::rag::Config = r.config()?;
        let q = r.input("questions")?;
        errln!("note: rag run reruns from its journal: the recorded replies are copied and summarized again, no request is sent");
        jobs::rag::resummarize(&c, r.run_folder, &q, &r.parent)
    }

    fn merger(&self) -> Option<Merger> {
        Some(shards::merge_rag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_named_once_and_found() {
        let names: Vec<&str> = JOBS.iter().map(|j| j.command()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
        for n in &names {
            assert_eq!(find(n).map(|j| j.command()), Some(*n));
        }
        assert!(find("nothing").is_none());
        assert!(merge_commands().starts_with("evaluate, hotpot, grounding, text-eval"));
        assert!(!merge_commands().contains("compare"));
    }
}
