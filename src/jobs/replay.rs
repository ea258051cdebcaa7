//! A finished run read back, for `rerun` and `merge`: the configuration
//! its manifest records, checked as the command checks its own, and the
//! inputs it names, found and checked against their SHA-256.

use super::{JobConfig, JobError};
use crate::report::manifest::Manifest;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The configuration a manifest records (`value`, its `config`), read as
/// command `C`'s: its version must be this tool's, and it is validated as
/// the command line's would be.
pub(crate) fn config_of<C: JobConfig>(manifest: &Path, value: Value) -> Result<C, JobError> {
    let config: C = recorded_config(manifest, value)?;
    config.validate()?;
    Ok(config)
}

/// [`config_of`] unchecked: for a caller that changes it (merge's
/// unsharded configuration) and then resolves it once itself.
pub(crate) fn recorded_config<C: JobConfig>(manifest: &Path, value: Value) -> Result<C, JobError> {
    let version = value.get("version").and_then(Value::as_u64);
    if version != Some(u64::from(C::VERSION)) {
        return Err(JobError::Input(format!(
            "{}: field `config.version`: {version:?} is not this tool's {} config version {}",
            manifest.display(),
            C::COMMAND,
            C::VERSION
        )));
    }
    let config: C = serde_json::from_value(value)
        .map_err(|e| JobError::Input(format!("{}: field `config`: {e}", manifest.display())))?;
    Ok(config)
}

/// The input recorded under `role`: at its absolute path, at its path as
/// given, or by file name under `--inputs`; its SHA-256 must be the one
/// recorded (exit 2 naming the file and both digests).
pub(crate) fn locate_input(
    manifest_path: &Path,
    manifest: &Manifest,
    role: &str,
    inputs_dir: Option<&Path>,
) -> Result<PathBuf, JobError> {
    let entry = manifest.inputs.get(role).ok_or_else(|| {
        JobError::Input(format!(
            "{}: field `inputs.{role}` is missing",
            manifest_path.display()
        ))
    })?;
    let recorded = entry.path.as_str();
    let want = entry.sha256.as_str();
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(abs) = &entry.absolute {
        candidates.push(PathBuf::from(abs));
    }
    // A relative path is relative to the folder the run ran in.
    match manifest.cwd.as_deref() {
        Some(cwd) if Path::new(recorded).is_relative() => {
            candidates.push(Path::new(cwd).join(recorded));
        }
        _ => candidates.push(PathBuf::from(recorded)),
    }
    if let (Some(dir), Some(name)) = (inputs_dir, Path::new(recorded).file_name()) {
        candidates.insert(0, dir.join(name));
    }
    // A transcripts folder is an input too (its listing's digest).
    let Some(found) = candidates.into_iter().find(|p| p.is_file() || p.is_dir()) else {
        return Err(JobError::Input(format!(
            "{recorded}: the {role} input of this run is missing (sha256 {want}); pass --inputs DIR holding it"
        )));
    };
    let (got, _) = crate::corpus::formats::digest(&found)?;
    if got != want {
        return Err(JobError::Input(format!(
            "{}: the {role} input changed since the run (sha256 recorded {want}, now {got})",
            found.display()
        )));
    }
    Ok(found)
}
