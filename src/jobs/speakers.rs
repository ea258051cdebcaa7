//! The speaker settings the jobs share, checked: the speaker pattern and
//! interviewer labels, a `--speaker-map`, and a `--speaker-aliases` file.

use super::ConfigError;
use crate::citations::turns::SpeakerConfig;
use crate::corpus::formats::SpeakerMap;
use std::path::Path;

/// Speaker settings from a pattern and labels (the defaults where absent);
/// an invalid pattern is an error naming `--speaker-pattern`.
pub(crate) fn speakers(
    pattern: &Option<String>,
    labels: &Option<Vec<String>>,
) -> Result<SpeakerConfig, ConfigError> {
    use crate::citations::turns::{DEFAULT_INTERVIEWER_LABELS, DEFAULT_SPEAKER_PATTERN};
    let pattern = pattern.as_deref().unwrap_or(DEFAULT_SPEAKER_PATTERN);
    // Labels given add to the defaults (Zoom and Otter name the
    // interviewer by name); `none` first replaces them.
    let defaults = DEFAULT_INTERVIEWER_LABELS.iter().map(|s| s.to_string());
    let labels: Vec<String> = match labels {
        Some(l)
            if l.first()
                .is_some_and(|f| f.trim().eq_ignore_ascii_case("none")) =>
        {
            l[1..].to_vec()
        }
        Some(l) => {
            let mut all: Vec<String> = defaults.collect();
            for x in l {
                if !all.iter().any(|a| a.eq_ignore_ascii_case(x.trim())) {
                    all.push(x.clone());
                }
            }
            all
        }
        None => defaults.collect(),
    };
    SpeakerConfig::new(pattern, &labels).map_err(|message| ConfigError::Invalid {
        field: "--speaker-pattern".into(),
        message: format!(
            "{}: {}",
            crate::corpus::Preview(pattern),
            crate::corpus::bound_message(&message)
        ),
    })
}

/// The speaker settings of a configuration: its pattern and labels (the
/// defaults where absent), the speaker map already read (`map`), and the
/// aliases of its `--speaker-aliases` file.
pub(crate) fn speaker_config(
    pattern: &Option<String>,
    labels: &Option<Vec<String>>,
    map: &SpeakerMap,
    aliases: Option<&Path>,
) -> Result<SpeakerConfig, ConfigError> {
    let pairs: Vec<(String, String)> = map
        .0
        .iter()
        .map(|(label, name)| (label.clone(), name.clone()))
        .collect();
    with_aliases(speakers(pattern, labels)?.with_map(&pairs), aliases)
}

/// Speaker settings with the aliases of a `--speaker-aliases` CSV file
/// (`alias,label` rows, a header row `alias,label` optional); an
/// unreadable file or a row without both names is an error naming the
/// file and the line.
pub(crate) fn with_aliases(
    speakers: SpeakerConfig,
    path: Option<&Path>,
) -> Result<SpeakerConfig, ConfigError> {
    let Some(path) = path else {
        return Ok(speakers);
    };
    let fail = |message: String| ConfigError::Invalid {
        field: "--speaker-aliases".into(),
        message: format!("{}: {message}", path.display()),
    };
    let text = crate::corpus::read_text(path).map_err(|e| fail(e.to_string()))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let mut aliases = Vec::new();
    for (k, row) in reader.records().enumerate() {
        let row = row.map_err(|e| fail(e.to_string()))?;
        let line = row.position().map_or(k as u64 + 1, |p| p.line());
        let cells: Vec<&str> = row.iter().map(str::trim).collect();
        if k == 0
            && cells.len() >= 2
            && cells[0].eq_ignore_ascii_case("alias")
            && cells[1].eq_ignore_ascii_case("label")
        {
            continue;
        }
        if cells.iter().all(|c| c.is_empty()) {
            continue;
        }
        match cells.as_slice() {
            [alias, label, ..] if !alias.is_empty() && !label.is_empty() => {
                aliases.push((alias.to_string(), label.to_string()))
            }
            _ => {
                return Err(fail(format!(
                    "line {line}: expected `alias,label`, found {}",
                    crate::corpus::preview(&cells.join(","))
                )))
            }
        }
    }
    Ok(speakers.with_aliases(aliases))
}

/// The speaker map a `speaker_map` setting gives (empty when unset); a
/// bad one is named as `--speaker-map`.
pub(crate) fn speaker_map(spec: Option<&str>) -> Result<SpeakerMap, ConfigError> {
    match spec {
        None => Ok(SpeakerMap::default()),
        Some(spec) => SpeakerMap::parse(spec).map_err(|message| ConfigError::Invalid {
            field: "--speaker-map".into(),
            message,
        }),
    }
}
