//! `corpus-eval rerun`: executes a finished run again from its manifest
//! alone and compares every deterministic output with the original, file by
//! file. Runs that called a network service rerun from what they saved: a
//! rag run from its journal (no request), judge-answers from the verdict
//! cache.

use super::replay::locate_input;
use super::{JobConfig, JobError};
use crate::report::manifest::Manifest;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Files that hold clock times or the command line, never compared.
const NOT_COMPARED: [&str; 1] = ["manifest.json"];

/// Where a rerun reads and writes.
#[derive(Debug, Clone)]
pub struct Request {
    /// The run folder to reproduce (it holds manifest.json).
    pub run_folder: PathBuf,
    /// Parent folder of the new run folder (default: the original's parent).
    pub out: Option<PathBuf>,
    /// Where to look for inputs by file name when they are not at their
    /// recorded paths.
    pub inputs: Option<PathBuf>,
}

/// The settings of `rerun`.
#[derive(
    Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, super::settings::Settings,
)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Parent folder of the new run folder (default: the original's
    /// parent).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Look for inputs here, by file name, when they are not at their
    /// recorded paths.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub inputs: Option<PathBuf>,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "rerun";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), super::ConfigError> {
        Ok(())
    }
}

impl Request {
    /// Reruns `run_folder` as `config` says.
    pub fn new(run_folder: PathBuf, config: Config) -> Request {
        Request {
            run_folder,
            out: config.out,
            inputs: config.inputs,
        }
    }
}

/// One output compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    /// The file name.
    pub name: String,
    /// True when the new file's bytes equal the original's.
    pub identical: bool,
}

/// What a rerun did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The new run folder.
    pub folder: PathBuf,
    /// Every output of either run (the manifest aside), in the original's
    /// order, then any new ones.
    pub files: Vec<Compared>,
}

impl Outcome {
    /// True when every output is identical.
    pub fn identical(&self) -> bool {
        self.files.iter().all(|f| f.identical)
    }

    /// As `rerun --json` prints it: `identical`, `rerun_folder` and
    /// `files` (`{name, identical}`).
    pub fn to_json(&self) -> Value {
        let files: Vec<Value> = self
            .files
            .iter()
            .map(|f| serde_json::json!({"name": f.name, "identical": f.identical}))
            .collect();
        serde_json::json!({
            "identical": self.identical(),
            "rerun_folder": self.folder.display().to_string(),
            "files": files,
        })
    }

    /// As `rerun` prints it: `identical NAME` or `different NAME` per
    /// output, then `rerun folder: PATH`.
    pub fn lines(&self) -> String {
        let mut out = String::new();
        for f in &self.files {
            let verdict = if f.identical {
                "identical"
            } else {
                "different"
            };
            out.push_str(&format!("{verdict} {}\n", f.name));
        }
        out + &format!("rerun folder: {}", self.folder.display())
    }
}

/// Executes a finished run again from its manifest alone (checking every
/// input's sha256 first) and compares every output with the original's.
/// The process's working folder becomes the one the run ran in.
pub fn rerun(req: &Request) -> Result<Outcome, JobError> {
    // Paths given here are taken from here; the run itself executes in the
    // folder it ran in (its relative paths are relative to that).
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let args = Request {
        run_folder: absolute(&req.run_folder),
        out: req.out.as_deref().map(absolute),
        inputs: req.inputs.as_deref().map(absolute),
    };
    let manifest_path = args.run_folder.join("manifest.json");
    let manifest = Manifest::read(&manifest_path)?;
    let command = manifest.command.clone();
    let config = manifest.config.clone().ok_or_else(|| {
        JobError::Input(format!(
            "{}: no `config` recorded ({command} runs are not yet typed jobs, or the run predates rerun); rerun supports: {}",
            manifest_path.display(),
            super::registry::rerun_commands()
        ))
    })?;
    // Every recorded input is found and checked first (all roles), as an
    // absolute path.
    let mut located = std::collections::BTreeMap::new();
    for role in manifest.inputs.keys().cloned() {
        let found = locate_input(&manifest_path, &manifest, &role, args.inputs.as_deref())?;
        located.insert(role, absolute(&found));
    }
    let parent = args
        .out
        .clone()
        .or_else(|| args.run_folder.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    if let Some(cwd) = manifest
        .cwd
        .as_deref()
        .map(Path::new)
        .filter(|d| d.is_dir())
    {
        std::env::set_current_dir(cwd).map_err(|source| crate::corpus::CorpusError::Io {
            path: cwd.to_path_buf(),
            source,
        })?;
    }
    let job = super::registry::find(&command).ok_or_else(|| {
        JobError::Input(format!(
            "{}: rerun does not support `{command}` runs yet (supported: {})",
            manifest_path.display(),
            super::registry::rerun_commands()
        ))
    })?;
    let new_folder = job.rerun(&super::registry::Replay {
        manifest_path: &manifest_path,
        config,
        located: &located,
        parent,
        run_folder: &args.run_folder,
    })?;
    let files = compare_outputs(&manifest, &args.run_folder, &new_folder)?;
    Ok(Outcome {
        folder: new_folder,
        files,
    })
}

/// Every output of the original run (and any the new run adds), compared
/// byte for byte; the manifest (clock times, command line) is not.
fn compare_outputs(
    manifest: &Manifest,
    original: &Path,
    new: &Path,
) -> Result<Vec<Compared>, JobError> {
    let mut names: Vec<String> = manifest.outputs.clone();
    let listing = std::fs::read_dir(new).map_err(|source| crate::corpus::CorpusError::Io {
        path: new.to_path_buf(),
        source,
    })?;
    for entry in listing.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names
        .into_iter()
        .filter(|n| !NOT_COMPARED.contains(&n.as_str()))
        .map(|name| {
            let a = std::fs::read(original.join(&name)).ok();
            let b = std::fs::read(new.join(&name)).ok();
            Compared {
                identical: a.is_some() && a == b,
                name,
            }
        })
        .collect())
}
