//! Transcript files as researchers keep them: plain or Markdown text with
//! `Name:` labels and inline timestamps (`.txt`, `.md`, Otter exports),
//! WebVTT (`.vtt`: Zoom, Teams) and SubRip (`.srt`) captions, whisper and
//! whisperX JSON (`{"segments": [...]}`), Word documents (`.docx`) and
//! REFI-QDA projects (`.qdpx`: NVivo, ATLAS.ti, MAXQDA, QualCoder), alone or
//! in a folder. Each is read into one model ([`TimedTranscript`]: turns
//! with their speaker and times) and becomes a [`super::Transcript`] whose
//! text is one `Label: text` line per turn (timestamps and cue markup
//! taken out, as labels are from what was said) with its time anchors.

pub(crate) mod cues;
pub(crate) mod docx;
pub(crate) mod qdpx;
pub(crate) mod text;
pub(crate) mod whisper;

use super::{CorpusError, Transcript, TranscriptSet};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A transcript file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Plain text (`.txt`).
    Text,
    /// Markdown (`.md`), read as text.
    Markdown,
    /// WebVTT captions (`.vtt`).
    WebVtt,
    /// SubRip captions (`.srt`).
    Srt,
    /// whisper / whisperX JSON segments.
    Whisper,
    /// A Word document (`.docx`).
    Docx,
    /// A text source of a REFI-QDA project (`.qdpx`).
    Qdpx,
    /// corpus-eval's JSON chunks (`page_content`, `metadata.FILE`).
    Chunks,
}

impl Format {
    /// The name shown in `corpus-eval transcript --json` (`txt`, `md`,
    /// `vtt`, `srt`, `whisper`, `docx`, `qdpx`, `chunks`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Text => "txt",
            Format::Markdown => "md",
            Format::WebVtt => "vtt",
            Format::Srt => "srt",
            Format::Whisper => "whisper",
            Format::Docx => "docx",
            Format::Qdpx => "qdpx",
            Format::Chunks => "chunks",
        }
    }
}

/// A time anchor inside a turn's text: from byte `at` of the text on, what
/// was said started at `start` seconds (and the cue or segment it belongs
/// to ended at `end`), until the next anchor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cue {
    /// Byte offset in the turn's text.
    pub at: usize,
    /// Start, in seconds.
    pub start: Option<f64>,
    /// End, in seconds (None where the format has no end times).
    pub end: Option<f64>,
}

/// One turn as a file gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedTurn {
    /// Who speaks (None: the text is written as is, its labels in it).
    pub speaker: Option<String>,
    /// What was said, markup and timestamps taken out.
    pub text: String,
    /// Its time anchors, in order of `at`.
    pub cues: Vec<Cue>,
}

impl TimedTurn {
    /// The turn's first start time.
    pub fn start(&self) -> Option<f64> {
        self.cues.iter().find_map(|c| c.start)
    }

    /// The turn's last end time.
    pub fn end(&self) -> Option<f64> {
        self.cues.iter().rev().find_map(|c| c.end)
    }
}

/// A transcript read from a file: its id, format and turns.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedTranscript {
    /// The id quotes name it by (a path relative to the folder read, or a
    /// project's source name).
    pub id: String,
    /// The format it was read from.
    pub format: Format,
    /// Its turns, in order.
    pub turns: Vec<TimedTurn>,
}

/// A time anchor of a transcript's plain text (see [`Cue`]): `at` is a byte
/// offset of the text corpus-eval derives ([`TimedTranscript::plain`]).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TimeAnchor {
    /// Byte offset in the transcript's text.
    pub at: usize,
    /// Start, in seconds.
    pub start: Option<f64>,
    /// End, in seconds.
    pub end: Option<f64>,
}

/// When a quote was said: the start of the cue, segment or timestamp where
/// its span starts and the end of the one where it ends (seconds; `end` is
/// None where the format has no end times).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QuoteTime {
    /// Start, in seconds.
    pub start: Option<f64>,
    /// End, in seconds.
    pub end: Option<f64>,
}

/// The time of the byte span `span` of a text with anchors `times` (in
/// order of `at`): None when there are none.
pub fn time_of(times: &[TimeAnchor], span: std::ops::Range<usize>) -> Option<QuoteTime> {
    if times.is_empty() {
        return None;
    }
    let at = |offset: usize| {
        let i = times.partition_point(|a| a.at <= offset);
        i.checked_sub(1).map(|i| times[i])
    };
    let start = at(span.start).and_then(|a| a.start);
    let end = at(span.end.saturating_sub(1).max(span.start)).and_then(|a| a.end);
    // Before the first timestamp: no time.
    (start.is_some() || end.is_some()).then_some(QuoteTime { start, end })
}

impl TimedTranscript {
    /// The plain text corpus-eval derives (one `Label: text` line per turn,
    /// a turn without a speaker as written) and its time anchors.
    pub fn plain(&self) -> (String, Vec<TimeAnchor>) {
        let mut text = String::new();
        let mut times = Vec::new();
        for (i, turn) in self.turns.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let line_start = text.len();
            if let Some(s) = &turn.speaker {
                text.push_str(s);
                text.push_str(": ");
            }
            let base = text.len();
            text.push_str(&turn.text);
            for (k, c) in turn.cues.iter().enumerate() {
                // The first cue covers the label too.
                let at = if k == 0 && c.at == 0 {
                    line_start
                } else {
                    base + c.at
                };
                times.push(TimeAnchor {
                    at,
                    start: c.start,
                    end: c.end,
                });
            }
        }
        (text, times)
    }

    /// The transcript as corpus-eval matches it: its plain text and times.
    pub fn into_transcript(self) -> Transcript {
        let (text, times) = self.plain();
        let chunks = self.turns.len();
        Transcript::new(self.id, text, chunks).with_times(self.format, times)
    }
}

/// Speaker labels renamed (`--speaker-map`): diarized labels such as
/// `SPEAKER_00` to names; a label not in the map stays as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpeakerMap(pub BTreeMap<String, String>);

impl SpeakerMap {
    /// `LABEL=Name,LABEL=Name`, or the path of a CSV file of `label,name`
    /// rows (a `label,name` header is allowed). An empty label or name, or
    /// a label given twice, is an error.
    pub fn parse(spec: &str) -> Result<SpeakerMap, String> {
        let path = Path::new(spec);
        let (pairs, from): (Vec<(String, String)>, String) =
            if !spec.contains('=') && path.is_file() {
                let text = std::fs::read_to_string(path).map_err(|e| format!("{spec}: {e}"))?;
                let mut pairs = Vec::new();
                for (n, line) in text.trim_start_matches('\u{feff}').lines().enumerate() {
                    let line = line.trim();
                    if line.is_empty() || (n == 0 && line.eq_ignore_ascii_case("label,name")) {
                        continue;
                    }
                    let (a, b) = line
                        .split_once(',')
                        .ok_or_else(|| format!("{spec}:{}: expected `label,name`", n + 1))?;
                    pairs.push((unquote(a), unquote(b)));
                }
                (pairs, format!("{spec}: "))
            } else {
                let mut pairs = Vec::new();
                for item in spec.split(',').filter(|s| !s.trim().is_empty()) {
                    let (a, b) = item
                        .split_once('=')
                        .ok_or_else(|| format!("`{}`: expected LABEL=Name", item.trim()))?;
                    pairs.push((a.trim().to_string(), b.trim().to_string()));
                }
                (pairs, String::new())
            };
        let mut map = BTreeMap::new();
        for (a, b) in pairs {
            if a.is_empty() || b.is_empty() {
                return Err(format!("{from}an empty label or name in `{a}={b}`"));
            }
            if map.insert(a.clone(), b).is_some() {
                return Err(format!("{from}`{a}` is mapped twice"));
            }
        }
        Ok(SpeakerMap(map))
    }

    /// The name of `label` (itself when unmapped).
    pub fn name<'a>(&'a self, label: &'a str) -> &'a str {
        self.0.get(label).map_or(label, String::as_str)
    }
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
        .replace("\"\"", "\"")
}

/// A part of a zip archive (`.docx`, `.qdpx`) as text; errors name the
/// file and the missing or unreadable part.
pub(crate) fn zip_part(
    archive: &mut zip::ZipArchive<std::fs::File>,
    path: &Path,
    part: &str,
) -> Result<String, CorpusError> {
    let bad = |message: String| CorpusError::Record {
        path: path.to_path_buf(),
        record: "(archive)".into(),
        field: part.to_string(),
        message,
    };
    let mut f = archive.by_name(part).map_err(|e| match e {
        zip::result::ZipError::FileNotFound => bad("missing from the archive".into()),
        other => bad(format!("cannot be read: {other}")),
    })?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).map_err(|e| bad(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "not valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Opens a zip archive; a file that is not one is an error naming it.
pub(crate) fn open_zip(
    path: &Path,
    what: &str,
) -> Result<zip::ZipArchive<std::fs::File>, CorpusError> {
    let file = std::fs::File::open(path).map_err(|source| CorpusError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    zip::ZipArchive::new(file).map_err(|e| CorpusError::Record {
        path: path.to_path_buf(),
        record: "(file)".into(),
        field: "(archive)".into(),
        message: format!("not a {what} (not a zip archive: {e})"),
    })
}

/// An XML error of `part`, naming the file, the part and the byte.
pub(crate) fn xml_error(
    path: &Path,
    part: &str,
    at: u64,
    e: impl std::fmt::Display,
) -> CorpusError {
    CorpusError::Record {
        path: path.to_path_buf(),
        record: format!("{part} byte {at}"),
        field: "(xml)".into(),
        message: e.to_string(),
    }
}

/// The text of an entity or character reference (`amp`, `#39`, ...).
pub(crate) fn reference(r: &quick_xml::events::BytesRef<'_>) -> String {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return c.to_string();
    }
    match r.decode().as_deref() {
        Ok("amp") => "&".into(),
        Ok("lt") => "<".into(),
        Ok("gt") => ">".into(),
        Ok("quot") => "\"".into(),
        Ok("apos") => "'".into(),
        Ok(other) => format!("&{other};"),
        Err(_) => String::new(),
    }
}

/// A speaker's name in a label: a capital, then up to 40 letters, digits,
/// `_`, spaces, `.`, `'`, `’` or `-` (the class of the default speaker
/// pattern).
pub(crate) const NAME: &str = r"\p{Lu}[\p{L}\p{N}_ .'’-]{0,40}?";

/// The `Name:` label a line opens with (the name is group 1; the text
/// follows the match). Only the label is matched: a long line is not
/// scanned to its end.
pub(crate) fn label() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(&format!(r"^\s*({NAME})\s*:\s+")).expect("the label pattern compiles")
    })
}

/// Appends a cue or segment to the turns: to the last turn when the same
/// speaker speaks (joined with a space), else as a new turn; its text is
/// anchored at `start`..`end`.
pub(crate) fn push_cue(
    turns: &mut Vec<TimedTurn>,
    speaker: Option<String>,
    text: String,
    start: f64,
    end: f64,
) {
    let cue = |at| Cue {
        at,
        start: Some(start),
        end: Some(end),
    };
    match turns.last_mut() {
        Some(t) if t.speaker == speaker => {
            t.text.push(' ');
            t.cues.push(cue(t.text.len()));
            t.text.push_str(&text);
        }
        _ => turns.push(TimedTurn {
            speaker,
            text,
            cues: vec![cue(0)],
        }),
    }
}

/// Whether `path` is read by the transcript loaders here rather than as
/// corpus-eval's JSON chunks: a folder, a file of a supported extension
/// other than `.json`, or a `.json` file whose top-level object has
/// `segments` (whisper).
pub fn is_transcript_source(path: &Path) -> bool {
    if path.is_dir() {
        return true;
    }
    match extension(path).as_deref() {
        Some("txt" | "md" | "vtt" | "srt" | "docx" | "qdpx") => true,
        Some("json") => whisper::looks_like_whisper(path),
        _ => false,
    }
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// The files a folder holds that the loaders read, recursively, sorted by
/// their relative path (hidden files and folders skipped).
pub fn files_in(dir: &Path) -> Result<Vec<PathBuf>, CorpusError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|source| CorpusError::Io {
            path: d.clone(),
            source,
        })?;
        for e in entries {
            let e = e.map_err(|source| CorpusError::Io {
                path: d.clone(),
                source,
            })?;
            let p = e.path();
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            // Folders are walked as they are, never through a link (a link
            // to a parent would never end); a linked file is read.
            let kind = e.file_type().map_err(|source| CorpusError::Io {
                path: p.clone(),
                source,
            })?;
            if kind.is_dir() {
                stack.push(p);
            } else if (kind.is_file() || (kind.is_symlink() && p.is_file()))
                && matches!(
                    extension(&p).as_deref(),
                    Some("txt" | "md" | "vtt" | "srt" | "docx" | "qdpx" | "json")
                )
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `path` relative to `root`, with `/` between its parts.
fn relative_id(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A file's bytes as UTF-8 text; an error names the file and the byte.
fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, CorpusError> {
    String::from_utf8(bytes).map_err(|e| CorpusError::Record {
        path: path.to_path_buf(),
        record: format!("byte {}", e.utf8_error().valid_up_to()),
        field: "(file)".into(),
        message: "the file is not valid UTF-8".into(),
    })
}

/// Reads one file (any supported format) into its transcripts: one, or a
/// project's text sources, or a chunk file's FILEs (`id` is the id of a
/// single-transcript file), with the file's SHA-256 and size: every file is read
/// once (a Word or REFI-QDA archive's parts are then read from it again).
fn read_file_digested(
    path: &Path,
    id: &str,
    speakers: &SpeakerMap,
) -> Result<(Vec<TimedTranscript>, String, u64), CorpusError> {
    let bytes = std::fs::read(path).map_err(|source| CorpusError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let (sha, size) = (crate::text::hash::sha256_hex(&bytes), bytes.len() as u64);
    let one = |format: Format, turns: Vec<TimedTurn>| {
        vec![TimedTranscript {
            id: id.to_string(),
            format,
            turns,
        }]
    };
    let read = match extension(path).as_deref() {
        Some("txt") => one(Format::Text, text::parse(path, &utf8(path, bytes)?)?),
        Some("md") => one(Format::Markdown, text::parse(path, &utf8(path, bytes)?)?),
        Some("vtt") => one(Format::WebVtt, cues::parse_vtt(path, &utf8(path, bytes)?)?),
        Some("srt") => one(Format::Srt, cues::parse_srt(path, &utf8(path, bytes)?)?),
        Some("docx") => one(Format::Docx, docx::parse(path)?),
        Some("qdpx") => qdpx::read(path)?.transcripts,
        Some("json") => {
            let text = utf8(path, bytes)?;
            if whisper::is_whisper_text(&text) {
                one(Format::Whisper, whisper::parse(path, &text, speakers)?)
            } else {
                super::transcripts::parse_transcripts_owned(path, text)?
                    .transcripts
                    .iter()
                    .map(|t| {
                        Ok(TimedTranscript {
                            id: t.file.clone(),
                            format: Format::Chunks,
                            turns: vec![TimedTurn {
                                speaker: None,
                                text: t.text()?.into_owned(),
                                cues: Vec::new(),
                            }],
                        })
                    })
                    .collect::<Result<_, CorpusError>>()?
            }
        }
        _ => {
            return Err(CorpusError::Record {
                path: path.to_path_buf(),
                record: "(file)".into(),
                field: "(extension)".into(),
                message: "not a transcript format corpus-eval reads (.txt, .md, .vtt, .srt, .json, .docx, .qdpx)".into(),
            })
        }
    };
    Ok((read, sha, size))
}

/// Every transcript of `path`: a folder (every supported file in it,
/// recursively; ids are paths relative to it, with `/`), a single file of
/// any supported format (its id is its file name) or a `.qdpx` project
/// (ids are its sources' names). Two transcripts with one id are an error
/// naming both.
pub(crate) fn read_all(
    path: &Path,
    speakers: &SpeakerMap,
) -> Result<Vec<TimedTranscript>, CorpusError> {
    Ok(read_all_digested(path, speakers)?.0)
}

/// [`read_all`], with the digest [`digest`] gives of `path`, made from the
/// bytes read (no file is read twice).
pub(crate) fn read_all_digested(
    path: &Path,
    speakers: &SpeakerMap,
) -> Result<(Vec<TimedTranscript>, (String, u64)), CorpusError> {
    let folder = path.is_dir();
    let files: Vec<(PathBuf, String)> = if folder {
        files_in(path)?
            .into_iter()
            .map(|f| {
                let id = relative_id(path, &f);
                (f, id)
            })
            .collect()
    } else {
        let id = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        vec![(path.to_path_buf(), id)]
    };
    let read: Vec<(Vec<TimedTranscript>, String, u64)> = files
        .par_iter()
        .map(|(f, id)| read_file_digested(f, id, speakers))
        .collect::<Result<_, _>>()?;
    let digest = if folder {
        listing_digest(
            files
                .iter()
                .zip(&read)
                .map(|((_, id), (_, sha, size))| (id.as_str(), sha.as_str(), *size)),
        )
    } else {
        read.first()
            .map(|(_, sha, size)| (sha.clone(), *size))
            .unwrap_or_default()
    };
    let mut seen: BTreeMap<String, &Path> = BTreeMap::new();
    let mut out = Vec::new();
    for ((file, _), (ts, _, _)) in files.iter().zip(read) {
        for t in ts {
            if let Some(first) = seen.insert(t.id.clone(), file) {
                return Err(CorpusError::Record {
                    path: file.clone(),
                    record: format!("transcript {:?}", t.id),
                    field: "(id)".into(),
                    message: format!("the id is also a transcript of {}", first.display()),
                });
            }
            out.push(t);
        }
    }
    Ok((out, digest))
}

/// A folder's digest: the SHA-256 of its listing (`SHA256  ID` lines in
/// the files' order) and the files' total size.
fn listing_digest<'a>(files: impl Iterator<Item = (&'a str, &'a str, u64)>) -> (String, u64) {
    let mut listing = String::new();
    let mut total = 0;
    for (id, sum, size) in files {
        listing.push_str(&format!("{sum}  {id}\n"));
        total += size;
    }
    (crate::text::hash::sha256_hex(listing.as_bytes()), total)
}

/// [`read_all`] as a set of transcripts to match quotes against (each
/// packed once built, when `pack` is set; a quote's source names an id,
/// or an id without its extension when that is unique), with the digest
/// of `path` ([`digest`]) made from the bytes read.
pub(crate) fn load_digested(
    path: &Path,
    speakers: &SpeakerMap,
    pack: bool,
) -> Result<(TranscriptSet, (String, u64)), CorpusError> {
    let (read, digest) = read_all_digested(path, speakers)?;
    let mut transcripts: Vec<Transcript> = read
        .into_par_iter()
        .map(TimedTranscript::into_transcript)
        .collect();
    if pack {
        transcripts.par_iter_mut().for_each(Transcript::pack);
    }
    Ok((TranscriptSet::from_transcripts(transcripts), digest))
}

/// The SHA-256 and size that a run's manifest records of a transcripts
/// input: a file's own; for a folder, the digest of its listing (each
/// file's relative path and SHA-256, one per line, sorted) and the files'
/// total size.
pub fn digest(path: &Path) -> Result<(String, u64), CorpusError> {
    use crate::text::hash::sha256_hex;
    let read = |p: &Path| {
        std::fs::read(p).map_err(|source| CorpusError::Io {
            path: p.to_path_buf(),
            source,
        })
    };
    if !path.is_dir() {
        let bytes = read(path)?;
        return Ok((sha256_hex(&bytes), bytes.len() as u64));
    }
    let files = files_in(path)?;
    let sums: Vec<(String, String, u64)> = files
        .par_iter()
        .map(|f| {
            let bytes = read(f)?;
            Ok((relative_id(path, f), sha256_hex(&bytes), bytes.len() as u64))
        })
        .collect::<Result<_, CorpusError>>()?;
    Ok(listing_digest(
        sums.iter()
            .map(|(id, sum, size)| (id.as_str(), sum.as_str(), *size)),
    ))
}

/// A bad line of a text format: the file and line (1-based).
pub(crate) fn line_error(path: &Path, line: usize, message: impl Into<String>) -> CorpusError {
    CorpusError::Json {
        path: path.to_path_buf(),
        line,
        column: 1,
        message: message.into(),
    }
}

/// Seconds of `h:m:s.frac`, each checked for range (`m` and `s` below 60;
/// `m` may be any when there are no hours).
pub(crate) fn seconds(h: Option<u64>, m: u64, s: u64, frac: Option<&str>) -> Result<f64, String> {
    if s >= 60 || (h.is_some() && m >= 60) {
        return Err(format!(
            "timestamp out of range ({}{m:02}:{s:02})",
            h.map(|h| format!("{h:02}:")).unwrap_or_default()
        ));
    }
    let frac = match frac {
        Some(f) if !f.is_empty() => {
            f.parse::<u64>().map_err(|e| e.to_string())? as f64 / 10f64.powi(f.len() as i32)
        }
        _ => 0.0,
    };
    let whole = h
        .unwrap_or(0)
        .checked_mul(3600)
        .and_then(|h| m.checked_mul(60).and_then(|m| h.checked_add(m)))
        .and_then(|t| t.checked_add(s))
        .filter(|&t| t < 1 << 40)
        .ok_or_else(|| "timestamp out of range".to_string())?;
    Ok(whole as f64 + frac)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_read_gives_the_digest_a_second_read_gives() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/interview");
        let map = SpeakerMap::default();
        for path in [
            root.clone(),
            root.join("harbour.vtt"),
            root.join("harbour.json"),
            root.join("harbour.qdpx"),
        ] {
            let (set, digested) = load_digested(&path, &map, false).unwrap();
            assert_eq!(digested, digest(&path).unwrap(), "{}", path.display());
            assert!(!set.transcripts.is_empty());
        }
        // whisper JSON is told from chunks by its text.
        let whisper = std::fs::read_to_string(root.join("harbour.json")).unwrap();
        assert!(whisper::is_whisper_text(&whisper));
        assert!(!whisper::is_whisper_text(
            r#"{"documents": [{"segments": 1}]}"#
        ));
        assert!(!whisper::is_whisper_text(
            r#"[{"page_content": "segments"}]"#
        ));
    }

    #[test]
    fn huge_or_out_of_range_timestamps_are_errors_not_overflows() {
        assert_eq!(seconds(Some(1), 2, 3, Some("5")), Ok(3723.5));
        assert_eq!(seconds(None, 75, 3, None), Ok(4503.0));
        assert!(seconds(Some(1), 60, 0, None).is_err());
        assert!(seconds(Some(u64::MAX), 0, 0, None).is_err());
        assert!(seconds(None, u64::MAX, 0, None).is_err());
        let e = cues::parse_vtt(
            Path::new("h.vtt"),
            "WEBVTT\n\n99999999999999999999999:00:00.000 --> 99999999999999999999999:00:01.000\nx",
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("h.vtt:3:"), "{e}");
    }

    #[test]
    fn a_quote_takes_the_times_of_the_cues_it_starts_and_ends_in() {
        let times = [
            TimeAnchor {
                at: 0,
                start: Some(1.0),
                end: Some(2.0),
            },
            TimeAnchor {
                at: 10,
                start: Some(2.0),
                end: Some(3.5),
            },
        ];
        let t = |r: std::ops::Range<usize>| time_of(&times, r).map(|t| (t.start, t.end));
        assert_eq!(t(2..8), Some((Some(1.0), Some(2.0))));
        assert_eq!(t(2..12), Some((Some(1.0), Some(3.5))));
        // Ending right at a cue's start: still the cue before.
        assert_eq!(t(2..10), Some((Some(1.0), Some(2.0))));
        assert_eq!(time_of(&[], 0..3), None);
        // Before the first timestamp of a text transcript: no time.
        let text = [TimeAnchor {
            at: 10,
            start: Some(60.0),
            end: None,
        }];
        assert_eq!(time_of(&text, 2..8), None);
        assert_eq!(
            time_of(&text, 12..14).map(|t| (t.start, t.end)),
            Some((Some(60.0), None))
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_walk_never_follows_a_linked_folder() {
        let dir = std::env::temp_dir().join(format!("ce-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/a.txt"), "Ana: hi").unwrap();
        std::os::unix::fs::symlink(&dir, dir.join("sub/loop")).unwrap();
        std::os::unix::fs::symlink(dir.join("sub/a.txt"), dir.join("b.txt")).unwrap();
        let files = files_in(&dir).unwrap();
        let ids: Vec<String> = files.iter().map(|f| relative_id(&dir, f)).collect();
        assert_eq!(ids, ["b.txt", "sub/a.txt"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn speaker_maps_from_a_list_or_a_csv_file() {
        let m = SpeakerMap::parse("SPEAKER_00=Interviewer, SPEAKER_01=Tomas Berg").unwrap();
        assert_eq!(
            (m.name("SPEAKER_01"), m.name("SPEAKER_07")),
            ("Tomas Berg", "SPEAKER_07")
        );
        assert!(SpeakerMap::parse("A=B,A=C").is_err());
        assert!(SpeakerMap::parse("A=").is_err());
        let dir = std::env::temp_dir().join(format!("ce-map-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("map.csv");
        std::fs::write(&csv, "\u{feff}label,name\r\nSPEAKER_00,\"Ana, Lopez\"\r\n").unwrap();
        // A quoted name with a comma: the first comma splits.
        let m = SpeakerMap::parse(&csv.display().to_string()).unwrap();
        assert_eq!(m.name("SPEAKER_00"), "Ana, Lopez");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
