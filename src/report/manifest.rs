//! Run manifests: what is needed to reproduce a run.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// An input file and its SHA-256.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InputFile {
    /// Path as given on the command line.
    pub path: String,
    /// SHA-256, hex.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: u64,
    /// The absolute path when it could be resolved (what `rerun` looks at
    /// first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute: Option<String>,
    /// What the reader said of it: files read outside it (a REFI-QDA
    /// project's external sources) and files of a folder skipped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl InputFile {
    /// Describes an input whose digest and size are known (a folder's:
    /// see `corpus::formats::digest`).
    pub fn digested(path: &Path, sha256: String, bytes: u64) -> InputFile {
        InputFile {
            path: path.display().to_string(),
            sha256,
            bytes,
            absolute: std::fs::canonicalize(path)
                .ok()
                .map(|p| p.display().to_string()),
            notes: Vec::new(),
        }
    }

    /// The same, with the reader's notes (secrets scrubbed).
    pub fn with_notes(mut self, notes: &[String]) -> InputFile {
        self.notes = notes.iter().map(|n| crate::secrets::scrub(n)).collect();
        self
    }

    /// Describes a file from its bytes.
    pub fn new(path: &Path, bytes: &[u8]) -> InputFile {
        InputFile {
            path: path.display().to_string(),
            sha256: crate::text::hash::sha256_hex(bytes),
            bytes: bytes.len() as u64,
            absolute: std::fs::canonicalize(path)
                .ok()
                .map(|p| p.display().to_string()),
            notes: Vec::new(),
        }
    }
}

/// The process's command line as it may be stored: URLs without user info,
/// query values or fragments, and no registered secret in any encoding.
pub fn command_line() -> Vec<String> {
    std::env::args_os()
        .map(|a| crate::secrets::scrub(&a.to_string_lossy()))
        .collect()
}

/// The process's working folder, as the manifest records it.
pub fn working_dir() -> Option<String> {
    std::env::current_dir()
        .ok()
        .map(|d| d.display().to_string())
}

/// The manifest of a run (manifest.json), written by the run writer and
/// read back, typed, by `rerun`, `merge` and `compare` ([`Manifest::read`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// Manifest format version.
    pub manifest_version: u32,
    /// "corpus-eval".
    pub tool: String,
    /// The crate version.
    pub tool_version: String,
    /// The subcommand.
    pub command: String,
    /// The full command line.
    pub command_line: Vec<String>,
    /// The working folder the command ran in (relative paths in the
    /// command line and the config are relative to it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The inputs with their hashes, by role.
    pub inputs: BTreeMap<String, InputFile>,
    /// The job's resolved configuration (what `--config` takes and what
    /// `rerun` executes again), for commands that are typed jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Value>,
    /// Every setting.
    pub settings: Value,
    /// The WordNet source and digest, when used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wordnet: Option<Value>,
    /// Signature of the metrics.
    pub signature: String,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// End time, RFC 3339 UTC (`null` while the run is running).
    pub finished_at: Option<String>,
    /// `running` (the manifest written first) or `complete`.
    pub status: String,
    /// The files of the run folder, in the order written.
    pub outputs: Vec<String>,
    /// Each output (the manifest aside) with its sha256 and size.
    pub files: BTreeMap<String, OutputFile>,
}

/// An output file of a run, as recorded in the manifest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct OutputFile {
    /// SHA-256 of the bytes, hex.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// The manifest format this version writes and reads.
pub const MANIFEST_VERSION: u32 = 1;

impl Manifest {
    /// Reads a run folder's manifest.json back. A field missing or of the
    /// wrong type is an error naming the file and the field (exit 2), never
    /// a default; so is another `manifest_version`. Only the fields the
    /// writer leaves out when empty (`cwd`, `config`, `wordnet`, an input's
    /// `absolute`) may be absent.
    pub fn read(path: &Path) -> Result<Manifest, crate::corpus::CorpusError> {
        use crate::corpus::CorpusError;
        let text = crate::corpus::read_text(path)?;
        let value = crate::corpus::strict_json::parse_str(&text)
            .map_err(|e| crate::corpus::json_error(path, &e))?;
        let record = |field: String, message: String| CorpusError::Record {
            path: path.to_path_buf(),
            record: "manifest".into(),
            field,
            message,
        };
        let m: Manifest = serde_path_to_error::deserialize(value).map_err(|e| {
            let field = e.path().to_string();
            let field = if field == "." {
                "(top level)".into()
            } else {
                field
            };
            record(field, e.inner().to_string())
        })?;
        if m.manifest_version != MANIFEST_VERSION {
            return Err(record(
                "manifest_version".into(),
                format!(
                    "{} is not a version this corpus-eval reads ({MANIFEST_VERSION})",
                    m.manifest_version
                ),
            ));
        }
        Ok(m)
    }

    /// Records the WordNet lexicon a run used (its source and digest).
    pub fn with_lexicon(mut self, lexicon: &crate::lexicon::Lexicon) -> Manifest {
        self.wordnet =
            Some(serde_json::json!({"source": lexicon.source(), "digest": lexicon.digest()}));
        self
    }

    /// Records the job's resolved configuration (URLs redacted; `rerun`
    /// executes it again, so nothing else is rewritten).
    pub fn with_config(mut self, mut config: Value) -> Manifest {
        crate::secrets::scrub_urls_value(&mut config);
        self.config = Some(config);
        self
    }

    /// What reproduces a run's numbers, for reports that must come out
    /// identical when the run is executed again: tool, version, command,
    /// inputs by role (digest and size, no paths), the configuration and
    /// the settings without the output folder, the WordNet digest and the
    /// signature. No clock time, path or command line.
    pub fn reproducible_view(&self) -> Value {
        let inputs: BTreeMap<&String, Value> = self
            .inputs
            .iter()
            .map(|(role, f)| {
                (
                    role,
                    serde_json::json!({"sha256": f.sha256, "bytes": f.bytes}),
                )
            })
            .collect();
        // Where the outputs went, and the shard folders a merged run was
        // joined from, do not change the numbers: a merged run and its
        // rerun as one run show the same view.
        let without_out = |v: &Value| {
            let mut v = v.clone();
            if let Value::Object(m) = &mut v {
                m.shift_remove("merged_from");
                m.remove("out");
            }
            v
        };
        serde_json::json!({
            "tool": self.tool,
            "tool_version": self.tool_version,
            "command": self.command,
            "inputs": inputs,
            "config": self.config.as_ref().map(without_out),
            "settings": without_out(&self.settings),
            "wordnet": self.wordnet,
            "signature": self.signature,
        })
    }

    /// A manifest for a run of `command` started at `started`, with the
    /// process's command line; [`super::run::RunWriter`] records its
    /// outputs, status and end time.
    pub fn new(
        command: &str,
        inputs: BTreeMap<String, InputFile>,
        settings: Value,
        signature: String,
        started: std::time::SystemTime,
    ) -> Manifest {
        Manifest {
            manifest_version: MANIFEST_VERSION,
            tool: "corpus-eval".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            command: command.into(),
            command_line: command_line(),
            cwd: working_dir(),
            inputs,
            config: None,
            settings: {
                let mut settings = settings;
                crate::secrets::scrub_value(&mut settings);
                settings
            },
            wordnet: None,
            signature,
            started_at: super::rfc3339(started),
            finished_at: None,
            status: "running".into(),
            outputs: Vec::new(),
            files: BTreeMap::new(),
        }
    }
}
