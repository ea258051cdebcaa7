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
pub(crate) mod labels;
pub(crate) mod markdown;
pub(crate) mod qdpx;
pub(crate) mod text;
pub(crate) mod utterances;
pub(crate) mod whisper;

pub use super::anchors::{time_of, CitedPlace, Format, Location, QuoteTime, TimeAnchor, TurnLabel};
use super::{CorpusError, Transcript, TranscriptSet};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one file holds once read: its transcripts (one, a project's text
/// sources, or a chunk file's FILEs), and the files read outside it.
pub(crate) struct Read {
    transcripts: Vec<TimedTranscript>,
    outside: Vec<PathBuf>,
}

/// A file's reader: its path, the id of a one-transcript file, its bytes
/// (read once) and the reading options.
type ReadFn = fn(&Path, &str, Vec<u8>, &ReadOptions) -> Result<Read, CorpusError>;

/// One row of the table of transcript formats: what `--help`, errors and
/// the docs call it, the extensions it takes, and its reader. The folder
/// walk, the dispatch, the error for another extension and Python's list
/// all come from [`READERS`].
pub struct Reader {
    /// Its name in messages (`WebVTT captions`).
    pub name: &'static str,
    /// The file extensions it takes (lower case, without the dot).
    pub extensions: &'static [&'static str],
    read: ReadFn,
}

/// Every transcript format, by extension (`.json` is told apart by its
/// content: whisper's segments, a service's utterance export, or
/// corpus-eval's chunks).
pub const READERS: [Reader; 7] = [
    Reader {
        name: "text with speaker labels",
        extensions: &["txt"],
        read: read_txt,
    },
    Reader {
        name: "Markdown with speaker labels",
        extensions: &["md", "markdown"],
        read: read_md,
    },
    Reader {
        name: "WebVTT captions",
        extensions: &["vtt"],
        read: read_vtt,
    },
    Reader {
        name: "SubRip captions",
        extensions: &["srt"],
        read: read_srt,
    },
    Reader {
        name: "a Word document",
        extensions: &["docx"],
        read: read_docx,
    },
    Reader {
        name: "a REFI-QDA project",
        extensions: &["qdpx"],
        read: read_qdpx,
    },
    Reader {
        name: "JSON: whisper/whisperX segments, AssemblyAI, Rev.ai, AWS Transcribe or Deepgram utterances, a list of {speaker, text, start, end}, or corpus-eval's chunks",
        extensions: &["json"],
        read: read_json,
    },
];

/// The reader of a file's extension.
fn reader_of(path: &Path) -> Option<&'static Reader> {
    let ext = extension(path)?;
    READERS
        .iter()
        .find(|r| r.extensions.contains(&ext.as_str()))
}

/// The transcripts a command reads, for `--help`: a folder (every file of
/// a format below in it, recursively), one file, or a project, by format.
pub fn help() -> String {
    let mut out = String::from(
        "Transcripts: a folder (every file of a format below in it, recursively), one file, or a REFI-QDA project:",
    );
    for r in &READERS {
        let ext: Vec<String> = r.extensions.iter().map(|e| format!(".{e}")).collect();
        out.push_str(&format!("\n  {}: {}", ext.join(", "), r.name));
    }
    out
}

/// Every extension the readers take, with a dot (`.txt, .md, ...`).
pub fn extensions() -> String {
    READERS
        .iter()
        .flat_map(|r| r.extensions.iter())
        .map(|e| format!(".{e}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn one(id: &str, format: Format, turns: Vec<TimedTurn>, doubts: Vec<String>) -> Read {
    Read {
        transcripts: vec![TimedTranscript {
            id: id.to_string(),
            format,
            turns,
            doubts,
        }],
        outside: Vec::new(),
    }
}

fn read_txt(path: &Path, id: &str, bytes: Vec<u8>, _: &ReadOptions) -> Result<Read, CorpusError> {
    let text = lines(path, bytes)?;
    let p = text::parse(path, &text, text::holds_markdown(&text))?;
    Ok(one(id, Format::Text, p.turns, doubt_of(path, p.doubt)))
}

fn read_md(path: &Path, id: &str, bytes: Vec<u8>, _: &ReadOptions) -> Result<Read, CorpusError> {
    let p = text::parse(path, &lines(path, bytes)?, true)?;
    Ok(one(id, Format::Markdown, p.turns, doubt_of(path, p.doubt)))
}

fn read_vtt(path: &Path, id: &str, bytes: Vec<u8>, _: &ReadOptions) -> Result<Read, CorpusError> {
    let (turns, doubts) = cues::parse_vtt(path, &lines(path, bytes)?)?;
    Ok(one(id, Format::WebVtt, turns, doubts))
}

fn read_srt(path: &Path, id: &str, bytes: Vec<u8>, _: &ReadOptions) -> Result<Read, CorpusError> {
    let (turns, doubts) = cues::parse_srt(path, &lines(path, bytes)?)?;
    Ok(one(id, Format::Srt, turns, doubts))
}

fn read_docx(path: &Path, id: &str, _: Vec<u8>, _: &ReadOptions) -> Result<Read, CorpusError> {
    let p = docx::parse(path)?;
    Ok(one(id, Format::Docx, p.turns, doubt_of(path, p.doubt)))
}

fn read_qdpx(path: &Path, _: &str, _: Vec<u8>, options: &ReadOptions) -> Result<Read, CorpusError> {
    let project = qdpx::read(path, options)?;
    Ok(Read {
        transcripts: project.transcripts,
        outside: project.outside,
    })
}

fn read_json(path: &Path, id: &str, bytes: Vec<u8>, _: &ReadOptions) -> Result<Read, CorpusError> {
    let text = utf8(path, bytes)?;
    let format_of = |export: utterances::Export| match export {
        utterances::Export::AssemblyAi => Format::AssemblyAi,
        utterances::Export::RevAi => Format::RevAi,
        utterances::Export::Aws => Format::Aws,
        utterances::Export::Deepgram => Format::Deepgram,
        utterances::Export::List => Format::Utterances,
    };
    // An object that is not corpus-eval's `{"documents"}`: parsed once,
    // told by its top-level keys (a service's export, else whisper).
    if whisper::whisper_head(&text) {
        let doc = crate::corpus::strict_json::parse_str(text.trim_start_matches('\u{feff}'))
            .map_err(|e| crate::corpus::json_error(path, &e))?;
        if let Some(export) = utterances::export_of(&doc) {
            let turns = utterances::parse_doc(path, &doc, export)?;
            return Ok(one(id, format_of(export), turns, Vec::new()));
        }
        if doc.get("segments").is_some() {
            let (turns, doubts) = whisper::parse_doc(path, &doc)?;
            return Ok(one(id, Format::Whisper, turns, doubts));
        }
        // Neither: the chunk loader says what it expected.
        return chunks(path, text);
    }
    // An array: a list of utterances, or corpus-eval's chunks.
    let mut cut = text.len().min(64 << 10);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if utterances::sniff(&text[..cut]) == Some(utterances::Export::List) {
        let doc = crate::corpus::strict_json::parse_str(text.trim_start_matches('\u{feff}'))
            .map_err(|e| crate::corpus::json_error(path, &e))?;
        let turns = utterances::parse_doc(path, &doc, utterances::Export::List)?;
        return Ok(one(id, Format::Utterances, turns, Vec::new()));
    }
    chunks(path, text)
}

/// corpus-eval's JSON chunks, each FILE a transcript of one unlabelled turn.
fn chunks(path: &Path, text: String) -> Result<Read, CorpusError> {
    let transcripts = super::transcripts::parse_transcripts_owned(path, text)?
        .transcripts
        .iter()
        .map(|t| {
            Ok(TimedTranscript {
                id: t.file.clone(),
                format: Format::Chunks,
                turns: vec![TimedTurn {
                    speaker: None,
                    role: None,
                    uncertain: false,
                    text: t.text()?.into_owned(),
                    cues: Vec::new(),
                    lines: Vec::new(),
                }],
                doubts: Vec::new(),
            })
        })
        .collect::<Result<_, CorpusError>>()?;
    Ok(Read {
        transcripts,
        outside: Vec::new(),
    })
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
    /// Who speaks (None: no label says).
    pub speaker: Option<String>,
    /// The role written beside the speaker's name (`SL` of `Ashlee Kupor
    /// (SL):`, `Interviewer` of `Dana - Interviewer:`).
    pub role: Option<String>,
    /// The speaker is in doubt: an unlabelled cue between labelled ones,
    /// a whisperX segment whose words' speakers disagree.
    pub uncertain: bool,
    /// What was said, markup and timestamps taken out.
    pub text: String,
    /// Its time anchors, in order of `at`.
    pub cues: Vec<Cue>,
    /// Where its lines stand in the file, for a text file: (byte offset of
    /// `text`, 1-based line of the file), in order; empty for the formats
    /// whose text is not the file's lines (captions, JSON, `.docx`).
    pub lines: Vec<(usize, usize)>,
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
    /// What the reader doubts (a line that looks like a label it did not
    /// accept, unlabelled cues between labelled ones), with the first such
    /// line: said on stderr and in summary.json's `warnings`.
    pub doubts: Vec<String>,
}

/// How many of a transcript's turns carry a recognised label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LabelCoverage {
    /// Turns with a speaker.
    pub recognised: usize,
    /// All turns.
    pub turns: usize,
}

impl TimedTranscript {
    /// How many turns carry a recognised label.
    pub fn coverage(&self) -> LabelCoverage {
        LabelCoverage {
            recognised: self.turns.iter().filter(|t| t.speaker.is_some()).count(),
            turns: self.turns.len(),
        }
    }

    /// The plain text corpus-eval derives (one `Label: text` line per turn,
    /// `Name (Role): ` where a role is written, a turn without a speaker as
    /// written) and its time anchors.
    pub fn plain(&self) -> (String, Vec<TimeAnchor>) {
        let (text, times, _) = self.plain_labelled();
        (text, times)
    }

    /// Where the lines of [`TimedTranscript::plain`]'s text stand in the
    /// file: (byte offset, 1-based file line), in order; empty for a
    /// format whose text is not the file's lines.
    pub fn line_anchors(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        for (i, turn) in self.turns.iter().enumerate() {
            if i > 0 {
                at += 1;
            }
            let line_start = at;
            if let Some(s) = &turn.speaker {
                at += s.len() + 2;
                if let Some(r) = &turn.role {
                    at += r.len() + 3;
                }
            }
            for (k, &(offset, line)) in turn.lines.iter().enumerate() {
                // The first line holds the label too.
                let here = if k == 0 && offset == 0 {
                    line_start
                } else {
                    at + offset
                };
                out.push((here, line));
            }
            at += turn.text.len();
        }
        out
    }

    /// [`TimedTranscript::plain`], with each turn's label in the text.
    pub fn plain_labelled(&self) -> (String, Vec<TimeAnchor>, Vec<TurnLabel>) {
        let size: usize = self
            .turns
            .iter()
            .map(|t| {
                t.text.len()
                    + t.speaker.as_ref().map_or(0, |s| s.len() + 2)
                    + t.role.as_ref().map_or(0, |r| r.len() + 3)
                    + 1
            })
            .sum();
        let mut text = String::with_capacity(size);
        let mut times = Vec::new();
        let mut labels = Vec::with_capacity(self.turns.len());
        for (i, turn) in self.turns.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let line_start = text.len();
            if let Some(s) = &turn.speaker {
                text.push_str(s);
                if let Some(r) = &turn.role {
                    text.push_str(" (");
                    text.push_str(r);
                    text.push(')');
                }
                text.push_str(": ");
            }
            let base = text.len();
            labels.push(TurnLabel {
                at: line_start..base,
                speaker: turn.speaker.clone(),
                role: turn.role.clone(),
                uncertain: turn.uncertain,
            });
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
        (text, times, labels)
    }

    /// The transcript as corpus-eval matches it: its plain text, times and
    /// the turns its reader found.
    pub fn into_transcript(self) -> Transcript {
        let (text, times, labels) = self.plain_labelled();
        let lines = self.line_anchors();
        let chunks = self.turns.len();
        let t = Transcript::new(self.id, text, chunks)
            .with_times(self.format, times)
            .with_lines(lines);
        match self.format {
            // corpus-eval's chunks have no reader's turns: the speaker
            // pattern finds them.
            Format::Chunks => t,
            _ => t.with_labels(labels),
        }
    }
}

/// How transcript files are read: the same options for every format and
/// every command (`evaluate`, `check-report`, `rag`, `transcript`, Python).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Speaker labels renamed (`--speaker-map`).
    pub speakers: SpeakerMap,
    /// Whether a REFI-QDA project's text sources may be read from outside
    /// the project's folder (`--allow-external-sources`; never from
    /// `/proc`, `/dev` or `/sys`).
    pub external_sources: bool,
}

/// Speaker labels renamed (`--speaker-map`): diarized labels such as
/// `SPEAKER_00` to names; a label not in the map stays as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpeakerMap(pub BTreeMap<String, String>);

impl SpeakerMap {
    /// `LABEL=Name,LABEL=Name`, or the path of a CSV file of `label,name`
    /// rows (read as CSV: a cell may be quoted, `""` is a quote inside one;
    /// a `label,name` header is allowed). An empty label or name, a label
    /// given twice, a pair with a second `=`, a row of other than two
    /// cells, an unbalanced quote and a name holding a line break or a
    /// control character are errors naming the file and the line.
    pub fn parse(spec: &str) -> Result<SpeakerMap, String> {
        let path = Path::new(spec);
        let mut pairs: Vec<(String, String, String)> = Vec::new();
        if !spec.contains('=') && path.is_file() {
            let bytes = crate::corpus::input::read_bytes(path).map_err(|e| e.to_string())?;
            let text = String::from_utf8(bytes).map_err(|e| {
                format!(
                    "{spec}: not valid UTF-8 (byte {})",
                    e.utf8_error().valid_up_to()
                )
            })?;
            let text = crate::text::lone_cr_to_lf(text);
            if let Some(line) = unbalanced_quote(&text) {
                return Err(format!("{spec}:{line}: a quotation mark is never closed"));
            }
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
            for (k, row) in reader.records().enumerate() {
                let row = row.map_err(|e| format!("{spec}:{}: {e}", k + 1))?;
                let line = row.position().map_or(k as u64 + 1, |p| p.line());
                let cells: Vec<&str> = row.iter().map(str::trim).collect();
                if cells.iter().all(|c| c.is_empty()) {
                    continue;
                }
                if k == 0
                    && cells.len() == 2
                    && cells[0].eq_ignore_ascii_case("label")
                    && cells[1].eq_ignore_ascii_case("name")
                {
                    continue;
                }
                match cells.as_slice() {
                    [a, b] => pairs.push((a.to_string(), b.to_string(), format!("{spec}:{line}: "))),
                    _ => {
                        return Err(format!(
                            "{spec}:{line}: {} cells: expected `label,name` (quote a name that holds a comma)",
                            cells.len()
                        ))
                    }
                }
            }
        } else {
            for item in spec.split(',').filter(|s| !s.trim().is_empty()) {
                let (a, b) = item
                    .split_once('=')
                    .ok_or_else(|| format!("`{}`: expected LABEL=Name", item.trim()))?;
                if b.contains('=') {
                    return Err(format!(
                        "`{}`: expected LABEL=Name, with one `=` (a name cannot hold `=`; use a CSV file)",
                        item.trim()
                    ));
                }
                pairs.push((a.trim().to_string(), b.trim().to_string(), String::new()));
            }
        }
        let mut map = BTreeMap::new();
        for (a, b, from) in pairs {
            if a.is_empty() || b.is_empty() {
                return Err(format!("{from}an empty label or name in `{a}={b}`"));
            }
            if a.chars().chain(b.chars()).any(char::is_control) {
                return Err(format!(
                    "{from}`{}`: a label or name holds a line break or a control character",
                    crate::text::printable(&format!("{a}={b}"))
                ));
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

/// The line of a CSV text's quoted cell that is never closed, if one is
/// (the csv crate would read it as a cell running to the file's end). A
/// quotation mark opens a quoted cell only at a cell's start (a line's
/// start or after a comma, spaces aside); inside one, `""` is a quote and
/// a lone `"` closes it; elsewhere a quotation mark is a character
/// (`5'11" tall`).
pub(crate) fn unbalanced_quote(text: &str) -> Option<usize> {
    let mut open: Option<usize> = None;
    let mut line = 1;
    let mut at_cell_start = true;
    let mut bytes = text.bytes().peekable();
    while let Some(b) = bytes.next() {
        match (open, b) {
            (Some(_), b'"') if bytes.peek() == Some(&b'"') => {
                bytes.next();
            }
            (Some(_), b'"') => open = None,
            (None, b'"') if at_cell_start => {
                open = Some(line);
                at_cell_start = false;
            }
            (_, b'\n') => {
                line += 1;
                if open.is_none() {
                    at_cell_start = true;
                }
            }
            (None, b',') => at_cell_start = true,
            (None, b' ' | b'\t' | b'\r') => {}
            (None, _) => at_cell_start = false,
            (Some(_), _) => {}
        }
    }
    open
}

/// A zip archive (`.docx`, `.qdpx`) read part by part, each part streamed
/// through the bounds of [`crate::corpus::input`] (one entry inflated, and
/// all the text read for the archive), whatever the entries' headers claim.
pub(crate) struct Archive {
    zip: zip::ZipArchive<std::fs::File>,
    path: PathBuf,
    budget: crate::corpus::input::Budget,
}

impl Archive {
    /// Opens a zip archive (a regular file); a file that is not one is an
    /// error naming it.
    pub(crate) fn open(path: &Path, what: &str) -> Result<Archive, CorpusError> {
        let (file, _) = crate::corpus::input::open_regular(path)?;
        let zip = zip::ZipArchive::new(file).map_err(|e| CorpusError::Record {
            path: path.to_path_buf(),
            record: "(file)".into(),
            field: "(archive)".into(),
            message: format!("not a {what} (not a zip archive: {e})"),
        })?;
        Ok(Archive {
            zip,
            path: path.to_path_buf(),
            budget: crate::corpus::input::Budget::new(path),
        })
    }

    /// The entries' names.
    pub(crate) fn names(&self) -> Vec<String> {
        self.zip
            .file_names()
            .flatten()
            .map(|n| n.into_owned())
            .collect()
    }

    /// The text read for this archive so far, against its bound.
    pub(crate) fn budget(&mut self) -> &mut crate::corpus::input::Budget {
        &mut self.budget
    }

    /// A part as text; errors name the file and the missing, unreadable or
    /// oversized part.
    pub(crate) fn part(&mut self, part: &str) -> Result<String, CorpusError> {
        use crate::corpus::input::{read_bounded, MAX_ENTRY_BYTES};
        let path = &self.path;
        let bad = |message: String| CorpusError::Record {
            path: path.to_path_buf(),
            record: "(archive)".into(),
            field: part.to_string(),
            message,
        };
        let f = self.zip.by_name(part).map_err(|e| match e {
            zip::result::ZipError::FileNotFound => bad("missing from the archive".into()),
            other => bad(format!("cannot be read: {other}")),
        })?;
        let limit = MAX_ENTRY_BYTES.min(self.budget.left());
        let bytes = match read_bounded(f, limit).map_err(|e| bad(e.to_string()))? {
            Ok(bytes) => bytes,
            Err(_) if limit < MAX_ENTRY_BYTES => {
                self.budget.spend(part, limit.saturating_add(1))?;
                return Err(bad("over the archive's bound".into()));
            }
            Err(_) => {
                return Err(bad(format!(
                    "inflates to over {} MiB (the bound of one entry): refused as a zip bomb",
                    MAX_ENTRY_BYTES >> 20
                )))
            }
        };
        self.budget.spend(part, bytes.len() as u64)?;
        String::from_utf8(bytes).map_err(|e| {
            bad(format!(
                "not valid UTF-8 (byte {})",
                e.utf8_error().valid_up_to()
            ))
        })
    }
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

/// Names the turns' speakers by a speaker map (a label not in it stays),
/// joining consecutive turns that come to one speaker.
pub(crate) fn name_speakers(turns: &mut Vec<TimedTurn>, map: &SpeakerMap) {
    for t in turns.iter_mut() {
        if let Some(s) = &t.speaker {
            let named = map.name(s);
            if named != s {
                t.speaker = Some(named.to_string());
            }
        }
    }
    let mut out: Vec<TimedTurn> = Vec::with_capacity(turns.len());
    for t in turns.drain(..) {
        match out.last_mut() {
            Some(last)
                if t.speaker.is_some()
                    && last.speaker == t.speaker
                    && last.role == t.role
                    && !t.uncertain
                    && !last.uncertain =>
            {
                last.text.push(' ');
                let base = last.text.len();
                last.text.push_str(&t.text);
                last.cues.extend(t.cues.into_iter().map(|c| Cue {
                    at: base + c.at,
                    ..c
                }));
            }
            _ => out.push(t),
        }
    }
    *turns = out;
}

/// Appends a cue or segment to the turns: to the last turn when the same
/// speaker speaks (joined with a space), else as a new turn; its text is
/// anchored at `start`..`end`.
pub(crate) fn push_cue(
    turns: &mut Vec<TimedTurn>,
    speaker: Option<String>,
    role: Option<String>,
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
        Some(t) if t.speaker == speaker && !t.uncertain && (role.is_none() || t.role == role) => {
            t.text.push(' ');
            t.cues.push(cue(t.text.len()));
            t.text.push_str(&text);
        }
        _ => turns.push(TimedTurn {
            speaker,
            role,
            uncertain: false,
            text,
            cues: vec![cue(0)],
            lines: Vec::new(),
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
    match reader_of(path) {
        Some(r) if r.extensions.contains(&"json") => {
            utterances::looks_like_export(path) || whisper::looks_like_whisper(path)
        }
        Some(_) => true,
        None => false,
    }
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// A folder walked: the files read, and the entries skipped with why.
#[derive(Debug, Default)]
pub struct Walk {
    /// The files read, sorted by their relative path.
    pub files: Vec<PathBuf>,
    /// What was skipped and why (one line each, for stderr and the
    /// manifest).
    pub skipped: Vec<String>,
}

/// The files a folder holds that the loaders read, recursively, sorted by
/// their relative path. The rules (docs/input-formats.md):
/// - hidden files and folders (a name starting with `.`) are skipped;
/// - a linked folder is never followed (a link to a parent would never
///   end): skipped, with a note;
/// - a linked file is read when its target lies inside the folder, else
///   skipped, with a note (a folder cannot reach outside itself);
/// - a name that is not UTF-8 (it could not be cited) and an entry that is
///   not a regular file (a FIFO, a device) are skipped, with a note;
/// - two names that are the same text once Unicode-normalized (NFC; `é`
///   as one code point or as `e` and an accent) are an error naming both:
///   they print alike, so a quote could not tell them apart.
pub fn files_in(dir: &Path) -> Result<Walk, CorpusError> {
    use unicode_normalization::UnicodeNormalization;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CorpusError::Io { path, source }
    };
    let root = std::fs::canonicalize(dir).map_err(io(dir))?;
    let mut walk = Walk::default();
    let mut stack = vec![dir.to_path_buf()];
    let rel = |p: &Path| relative_id(dir, p);
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(io(&d))?;
        for e in entries {
            let e = e.map_err(io(&d))?;
            let p = e.path();
            let name = e.file_name();
            if name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let kind = e.file_type().map_err(io(&p))?;
            let readable = reader_of(&p).is_some();
            if name.to_str().is_none() {
                if kind.is_dir() || readable {
                    walk.skipped
                        .push(format!("{}: skipped: its name is not UTF-8", rel(&p)));
                }
                continue;
            }
            if kind.is_dir() {
                stack.push(p);
                continue;
            }
            if kind.is_symlink() {
                let target = std::fs::metadata(&p);
                if target.as_ref().is_ok_and(|m| m.is_dir()) {
                    walk.skipped.push(format!(
                        "{}: skipped: a linked folder is not followed",
                        rel(&p)
                    ));
                    continue;
                }
                if !readable {
                    continue;
                }
                let inside = std::fs::canonicalize(&p).is_ok_and(|t| t.starts_with(&root));
                if !inside {
                    walk.skipped.push(format!(
                        "{}: skipped: a link to a file outside the folder",
                        rel(&p)
                    ));
                    continue;
                }
                if !target.is_ok_and(|m| m.is_file()) {
                    walk.skipped
                        .push(format!("{}: skipped: not a regular file", rel(&p)));
                    continue;
                }
                walk.files.push(p);
            } else if readable {
                if kind.is_file() {
                    walk.files.push(p);
                } else {
                    walk.skipped
                        .push(format!("{}: skipped: not a regular file", rel(&p)));
                }
            }
        }
    }
    walk.files.sort();
    walk.skipped.sort();
    let mut seen: BTreeMap<String, &PathBuf> = BTreeMap::new();
    for f in &walk.files {
        let id: String = rel(f).nfc().collect();
        if let Some(first) = seen.insert(id, f) {
            return Err(CorpusError::Record {
                path: f.clone(),
                record: "(file)".into(),
                field: "(name)".into(),
                message: format!(
                    "its name and {}'s are the same text in two Unicode forms (NFC and NFD): rename one",
                    first.display()
                ),
            });
        }
    }
    Ok(walk)
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

/// One file read: its transcripts, SHA-256 and size, and the files read
/// outside it (a project's external sources).
struct FileRead {
    transcripts: Vec<TimedTranscript>,
    sha256: String,
    size: u64,
    outside: Vec<PathBuf>,
}

/// The reader's doubt about a file as a warning: its first line that
/// looks like a speaker label the reader did not accept.
pub(crate) fn doubt_of(path: &Path, doubt: Option<(usize, String)>) -> Vec<String> {
    doubt
        .map(|(line, text)| {
            format!(
                "{}:{line}: {} looks like a speaker label but is not one the reader accepts (its words are read as speech; the label styles: docs/input-formats.md)",
                path.display(),
                crate::corpus::preview(&text)
            )
        })
        .into_iter()
        .collect()
}

/// A text format's bytes as UTF-8 text whose lines end in `\n` (a lone
/// `\r`, as WebVTT allows and old Mac files have, is a line end too).
fn lines(path: &Path, bytes: Vec<u8>) -> Result<String, CorpusError> {
    Ok(crate::text::lone_cr_to_lf(utf8(path, bytes)?))
}

/// Reads one file (any supported format) into its transcripts: one, or a
/// project's text sources, or a chunk file's FILEs (`id` is the id of a
/// single-transcript file), with the file's SHA-256 and size: every file is read
/// once (a Word or REFI-QDA archive's parts are then read from it again).
fn read_file_digested(
    path: &Path,
    id: &str,
    options: &ReadOptions,
) -> Result<FileRead, CorpusError> {
    let reader = reader_of(path).ok_or_else(|| CorpusError::Record {
        path: path.to_path_buf(),
        record: "(file)".into(),
        field: "(extension)".into(),
        message: format!(
            "not a transcript format corpus-eval reads ({})",
            extensions()
        ),
    })?;
    let bytes = crate::corpus::input::read_bytes(path)?;
    let (sha, size) = (crate::text::hash::sha256_hex(&bytes), bytes.len() as u64);
    let Read {
        transcripts: mut read,
        outside,
    } = (reader.read)(path, id, bytes, options)?;
    // Diarized labels named (`--speaker-map`), once, for every format.
    if !options.speakers.0.is_empty() {
        for t in &mut read {
            name_speakers(&mut t.turns, &options.speakers);
        }
    }
    Ok(FileRead {
        transcripts: read,
        sha256: sha,
        size,
        outside,
    })
}

/// Everything read of a transcripts input: the transcripts, the digest
/// [`digest`] gives of it, and what the reader has to say (files read
/// outside the input, files of a folder skipped).
#[derive(Debug)]
pub(crate) struct ReadAll {
    /// The transcripts, in order.
    pub transcripts: Vec<TimedTranscript>,
    /// SHA-256 and size.
    pub digest: (String, u64),
    /// Notes for stderr and the manifest.
    pub notes: Vec<String>,
}

impl ReadAll {
    /// Every transcript's doubts, in order.
    pub(crate) fn doubts(&self) -> Vec<String> {
        self.transcripts
            .iter()
            .flat_map(|t| t.doubts.iter().cloned())
            .collect()
    }
}

/// Every transcript of `path`: a folder (every supported file in it,
/// recursively, as [`files_in`] walks it; ids are paths relative to it,
/// with `/`), a single file of any supported format (its id is its file
/// name) or a `.qdpx` project (ids are its sources' names), with the
/// digest [`digest`] gives of `path`, made from the bytes read (no file is
/// read twice), and the reader's notes. Two transcripts with one id are an
/// error naming both.
pub(crate) fn read_all_digested(
    path: &Path,
    options: &ReadOptions,
) -> Result<ReadAll, CorpusError> {
    let folder = path.is_dir();
    let mut notes = Vec::new();
    let files: Vec<(PathBuf, String)> = if folder {
        let walk = files_in(path)?;
        notes.extend(
            walk.skipped
                .iter()
                .map(|s| format!("{}: {s}", path.display())),
        );
        walk.files
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
    let read: Vec<FileRead> = files
        .par_iter()
        .map(|(f, id)| read_file_digested(f, id, options))
        .collect::<Result<_, _>>()?;
    let digest = if folder {
        listing_digest(
            files
                .iter()
                .zip(&read)
                .map(|((_, id), r)| (id.as_str(), r.sha256.as_str(), r.size)),
        )
    } else {
        read.first()
            .map(|r| (r.sha256.clone(), r.size))
            .unwrap_or_default()
    };
    let mut seen: BTreeMap<String, &Path> = BTreeMap::new();
    let mut out = Vec::new();
    for ((file, _), r) in files.iter().zip(read) {
        for o in &r.outside {
            notes.push(format!(
                "{} read a text source outside the archive: {}",
                file.display(),
                o.display()
            ));
        }
        for t in r.transcripts {
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
    Ok(ReadAll {
        transcripts: out,
        digest,
        notes,
    })
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

/// [`read_all_digested`] as a set of transcripts to match quotes against (each
/// packed once built, when `pack` is set; a quote's source names an id,
/// or an id without its extension when that is unique), with the digest
/// of `path` ([`digest`]) made from the bytes read.
pub(crate) fn load_digested(
    path: &Path,
    options: &ReadOptions,
    pack: bool,
) -> Result<crate::corpus::Loaded<TranscriptSet>, CorpusError> {
    let all = read_all_digested(path, options)?;
    let doubts = all.doubts();
    let ReadAll {
        transcripts: read,
        digest,
        notes,
    } = all;
    let mut transcripts: Vec<Transcript> = read
        .into_par_iter()
        .map(TimedTranscript::into_transcript)
        .collect();
    if pack {
        transcripts.par_iter_mut().for_each(Transcript::pack);
    }
    let mut data = TranscriptSet::from_transcripts(transcripts);
    data.doubts = doubts;
    Ok(crate::corpus::Loaded {
        data,
        sha256: digest.0,
        bytes: digest.1,
        notes,
    })
}

/// The SHA-256 and size that a run's manifest records of a transcripts
/// input: a file's own; for a folder, the digest of its listing (each
/// file's relative path and SHA-256, one per line, sorted) and the files'
/// total size.
pub fn digest(path: &Path) -> Result<(String, u64), CorpusError> {
    use crate::text::hash::sha256_hex;
    let read = crate::corpus::input::read_bytes;
    if !path.is_dir() {
        let bytes = read(path)?;
        return Ok((sha256_hex(&bytes), bytes.len() as u64));
    }
    let files = files_in(path)?.files;
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
        let map = ReadOptions::default();
        for path in [
            root.clone(),
            root.join("harbour.vtt"),
            root.join("harbour.json"),
            root.join("harbour.qdpx"),
        ] {
            let loaded = load_digested(&path, &map, false).unwrap();
            assert_eq!(
                (loaded.sha256, loaded.bytes),
                digest(&path).unwrap(),
                "{}",
                path.display()
            );
            assert!(!loaded.data.transcripts.is_empty());
        }
        // whisper JSON is told from chunks by its start.
        let whisper = std::fs::read_to_string(root.join("harbour.json")).unwrap();
        assert!(whisper::whisper_head(&whisper));
        assert!(!whisper::whisper_head(
            r#"{"documents": [{"segments": 1}]}"#
        ));
        assert!(!whisper::whisper_head(r#"[{"page_content": "segments"}]"#));
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
        let files = files_in(&dir).unwrap().files;
        let ids: Vec<String> = files.iter().map(|f| relative_id(&dir, f)).collect();
        assert_eq!(ids, ["b.txt", "sub/a.txt"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn issue_53_09_an_unclosed_quoted_cell_is_found_by_the_csv_rules() {
        assert_eq!(unbalanced_quote("a,\"b\n"), Some(1));
        assert_eq!(unbalanced_quote("a,b\nc, \"d"), Some(2));
        assert_eq!(unbalanced_quote("a,\"b, \"\"c\"\"\"\n"), None);
        // A quotation mark inside an unquoted cell is a character.
        assert_eq!(unbalanced_quote("S0,5'11\" tall\n"), None);
        assert_eq!(unbalanced_quote("a,\"two\nlines\"\n"), None);
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
