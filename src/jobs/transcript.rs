//! `transcript` as a typed job: a transcript file of any supported format
//! (or a REFI-QDA project, or a folder) read as corpus-eval reads it, with
//! the diarized speakers named as the configuration says.

use super::{ConfigError, JobConfig, JobError};
use crate::corpus::formats::TimedTranscript;
use crate::corpus::Loaded;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The settings of `transcript`: the reading options `evaluate` and
/// `check-report` read transcripts with, so a file can be previewed as a
/// run will read it.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Speaker labels: a regex whose first group is the label, matched at
    /// line starts; it replaces the labels the readers find (default: the
    /// readers' labels, see docs/input-formats.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "REGEX")]
    pub speaker_pattern: Option<String>,
    #[shared]
    pub interviewer_labels: Option<Vec<String>>,
    #[shared]
    pub speaker_aliases: Option<PathBuf>,
    #[shared]
    pub speaker_map: Option<String>,
    #[shared]
    pub allow_external_sources: bool,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "transcript";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        self.resolve().map(|_| ())
    }
}

/// A transcript configuration resolved once: the files it names read.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The names of diarized speakers (`--speaker-map`; empty when unset).
    pub speaker_map: crate::corpus::SpeakerMap,
    /// The speaker settings turns are read with.
    pub speakers: crate::citations::SpeakerConfig,
}

impl Config {
    /// Checks the configuration and reads what it names once: the speaker
    /// map and the aliases parse, the pattern compiles.
    pub fn resolve(&self) -> Result<Resolved, ConfigError> {
        let speaker_map = super::speakers::speaker_map(self.speaker_map.as_deref())?;
        let speakers = super::speakers::speaker_config(
            &self.speaker_pattern,
            &self.interviewer_labels,
            &speaker_map,
            self.speaker_aliases.as_deref(),
        )?;
        Ok(Resolved {
            speaker_map,
            speakers,
        })
    }
}

/// Every transcript `path` holds, in the order the loader reads them,
/// with the reader's notes (files read outside the input, files of a
/// folder skipped).
pub fn read(
    config: &Config,
    resolved: &Resolved,
    path: &Path,
) -> Result<Loaded<Vec<TimedTranscript>>, JobError> {
    Ok(crate::corpus::Loader::new()
        .speakers(resolved.speaker_map.clone())
        .external_sources(config.allow_external_sources)
        .timed_transcripts(path)?)
}
