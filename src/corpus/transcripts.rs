//! Transcript corpora: chunks `{"page_content", "metadata": {"FILE"}}` grouped
//! by FILE into whole transcripts.

use super::packed::PackedText;
use super::tape::{Kind, Tape};
use super::CorpusError;
use rayon::prelude::*;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

/// One transcript: the chunks of one FILE joined in order with "\n".
///
/// Its text is held as is or, between the phases of a large run that read
/// it, compressed ([`Transcript::pack`]): [`Transcript::text`] reads it
/// either way.
///
/// ```
/// use corpus_eval::corpus::Transcript;
/// let mut t = Transcript::new("T1".into(), "Ana: hello.\nBo: hi.".into(), 2);
/// t.pack();
/// assert!(t.is_packed());
/// assert_eq!((t.text().unwrap().as_ref(), t.len()), ("Ana: hello.\nBo: hi.", 19));
/// ```
#[derive(Debug, Clone)]
pub struct Transcript {
    /// The FILE metadata value.
    pub file: String,
    text: Stored,
    /// Number of chunks joined (turns, for a transcript read from a
    /// caption, text or project file).
    pub chunks: usize,
    /// The format it was read from (None: corpus-eval's JSON chunks).
    format: Option<super::anchors::Format>,
    /// Its time anchors (byte offsets of the text), in order; empty when
    /// its format has no times.
    times: Vec<super::anchors::TimeAnchor>,
    /// Its turns as its reader found them (None: corpus-eval's JSON
    /// chunks, whose turns the speaker pattern finds).
    labels: Option<std::sync::Arc<[super::anchors::TurnLabel]>>,
    /// Where its text's lines stand in its file (byte offset, 1-based
    /// line), for a text file; empty otherwise.
    lines: Vec<(usize, usize)>,
}

/// A transcript's text as held.
#[derive(Debug, Clone)]
enum Stored {
    Plain(String),
    Packed(PackedText),
}

impl Transcript {
    /// A transcript of `chunks` chunks joined into `text`.
    pub fn new(file: String, text: String, chunks: usize) -> Transcript {
        Transcript {
            file,
            text: Stored::Plain(text),
            chunks,
            format: None,
            times: Vec::new(),
            lines: Vec::new(),
            labels: None,
        }
    }

    /// The transcript read from a file of `format`, with its time anchors.
    pub fn with_times(
        mut self,
        format: super::anchors::Format,
        times: Vec<super::anchors::TimeAnchor>,
    ) -> Transcript {
        self.format = Some(format);
        self.times = times;
        self
    }

    /// The same transcript with where its lines stand in its file (see
    /// [`Transcript::line_of`]).
    pub fn with_lines(mut self, lines: Vec<(usize, usize)>) -> Transcript {
        self.lines = lines;
        self
    }

    /// The 1-based line of its file where the text's byte `at` stands, for
    /// a transcript read from a text file; None for the other formats.
    pub fn line_of(&self, at: usize) -> Option<usize> {
        let k = self.lines.partition_point(|&(offset, _)| offset <= at);
        k.checked_sub(1).map(|k| self.lines[k].1)
    }

    /// The same transcript with the turns its reader found.
    pub fn with_labels(mut self, labels: Vec<super::anchors::TurnLabel>) -> Transcript {
        self.labels = Some(labels.into());
        self
    }

    /// Its turns as its reader found them (None: the speaker pattern finds
    /// them).
    pub fn labels(&self) -> Option<&[super::anchors::TurnLabel]> {
        self.labels.as_deref()
    }

    /// The format it was read from (None: corpus-eval's JSON chunks).
    pub fn format(&self) -> Option<super::anchors::Format> {
        self.format
    }

    /// Its time anchors, in order of their byte offset.
    pub fn times(&self) -> &[super::anchors::TimeAnchor] {
        &self.times
    }

    /// When the text's bytes `span` were said (see
    /// [`super::formats::time_of`]); None when its format has no times.
    pub fn time_of(&self, span: std::ops::Range<usize>) -> Option<super::anchors::QuoteTime> {
        super::anchors::time_of(&self.times, span)
    }

    /// The joined text (read back when packed); a packed text that fails
    /// to decode is an error naming the transcript, never an empty text.
    pub fn text(&self) -> Result<Cow<'_, str>, CorpusError> {
        self.text_in(&mut String::new())
    }

    /// [`Transcript::text`], a packed text read back into the buffer of
    /// `spare` (taken; left empty for a plain text), which
    /// a workspace (`citations::Workspace`) gives back.
    pub(crate) fn text_in(&self, spare: &mut String) -> Result<Cow<'_, str>, CorpusError> {
        match &self.text {
            Stored::Plain(s) => Ok(Cow::Borrowed(s)),
            Stored::Packed(p) => match p.unpack_into(std::mem::take(spare)) {
                Some(text) => Ok(Cow::Owned(text)),
                None => Err(CorpusError::Damaged {
                    file: self.file.clone(),
                }),
            },
        }
    }

    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        match &self.text {
            Stored::Plain(s) => s.len(),
            Stored::Packed(p) => p.len(),
        }
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the text is held compressed.
    pub fn is_packed(&self) -> bool {
        matches!(self.text, Stored::Packed(_))
    }

    /// Holds the text compressed (LZ4, ~2x for prose): each
    /// [`Transcript::text`] then decompresses it.
    pub fn pack(&mut self) {
        if let Stored::Plain(s) = &self.text {
            self.text = Stored::Packed(PackedText::pack(s));
        }
    }

    /// Holds the text as is again (an error, the text left packed, when it
    /// fails to decode).
    pub fn unpack(&mut self) -> Result<(), CorpusError> {
        if let Stored::Packed(_) = &self.text {
            self.text = Stored::Plain(self.text()?.into_owned());
        }
        Ok(())
    }

    /// The plain text, to append to (a packed one is unpacked first).
    #[cfg(test)]
    fn plain_mut(&mut self) -> Result<&mut String, CorpusError> {
        self.unpack()?;
        match &mut self.text {
            Stored::Plain(s) => Ok(s),
            Stored::Packed(_) => Err(CorpusError::Damaged {
                file: self.file.clone(),
            }),
        }
    }
}

/// The transcript ids without their extension that find a transcript:
/// `wave2/IS-004` for `wave2/IS-004.txt`, where that stem is unique and
/// not an id itself; each maps to the index of its id in `ids`. The one
/// rule of [`TranscriptSet::position`] (and of the Ray loader's routing,
/// through the binding).
///
/// ```
/// use corpus_eval::corpus::id_aliases;
/// let a = id_aliases(["a.txt", "b.vtt", "b.srt", "c", "c.txt", "d/e.f/g"]);
/// assert_eq!(a.get("a"), Some(&0));
/// assert!(!a.contains_key("b") && !a.contains_key("c") && !a.contains_key("d/e"));
/// ```
pub fn id_aliases<'a>(ids: impl IntoIterator<Item = &'a str>) -> HashMap<String, usize> {
    let mut known: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, id) in ids.into_iter().enumerate() {
        known.insert(id);
        let stem = match id.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() && !ext.contains('/') => stem,
            _ => continue,
        };
        counts.entry(stem).or_insert((i, 0)).1 += 1;
    }
    counts
        .into_iter()
        .filter(|(stem, (_, n))| *n == 1 && !known.contains(stem))
        .map(|(stem, (i, _))| (stem.to_string(), i))
        .collect()
}

/// All transcripts of a corpus, by FILE, in first-seen order.
#[derive(Debug, Clone, Default)]
pub struct TranscriptSet {
    /// The transcripts in the order their FILE first appears.
    pub transcripts: Vec<Transcript>,
    index: HashMap<String, usize>,
    /// Ids without their extension, where unique.
    aliases: HashMap<String, usize>,
    /// What the readers doubt (a line that looks like a label they did not
    /// accept, unlabelled cues between labelled ones): one warning each, for
    /// stderr and summary.json's `warnings`.
    pub doubts: Vec<String>,
}

impl TranscriptSet {
    /// The transcript of a FILE.
    pub fn get(&self, file: &str) -> Option<&Transcript> {
        self.position(file).map(|i| &self.transcripts[i])
    }

    /// Index of a FILE's transcript in [`TranscriptSet::transcripts`]: by
    /// its id, or by its id without the extension when that is unique.
    pub fn position(&self, file: &str) -> Option<usize> {
        self.index
            .get(file)
            .or_else(|| self.aliases.get(file))
            .copied()
    }

    /// A set of whole transcripts (ids unique, as the loaders check), each
    /// also found by its id without its extension (`wave2/IS-004` for
    /// `wave2/IS-004.txt`) where no other id or alias is the same.
    pub fn from_transcripts(transcripts: Vec<Transcript>) -> TranscriptSet {
        let index: HashMap<String, usize> = transcripts
            .iter()
            .enumerate()
            .map(|(i, t)| (t.file.clone(), i))
            .collect();
        let aliases = id_aliases(transcripts.iter().map(|t| t.file.as_str()));
        TranscriptSet {
            transcripts,
            index,
            aliases,
            doubts: Vec::new(),
        }
    }

    /// Builds a set from (FILE, text) chunks in order.
    pub fn from_chunks<I: IntoIterator<Item = (String, String)>>(chunks: I) -> TranscriptSet {
        let mut set = TranscriptSet::default();
        for (file, text) in chunks {
            match set.index.get(&file) {
                Some(&i) => {
                    let t = &mut set.transcripts[i];
                    // The set's own transcripts are plain (never packed
                    // here): appending cannot fail.
                    if let Stored::Plain(joined) = &mut t.text {
                        joined.push('\n');
                        joined.push_str(&text);
                        t.chunks += 1;
                    }
                }
                None => {
                    set.index.insert(file.clone(), set.transcripts.len());
                    set.transcripts.push(Transcript::new(file, text, 1));
                }
            }
        }
        set
    }

    /// Total bytes of transcript text.
    pub fn total_bytes(&self) -> usize {
        self.transcripts.iter().map(Transcript::len).sum()
    }

    /// Holds every transcript's text compressed (in parallel).
    pub fn pack(&mut self) {
        self.transcripts.par_iter_mut().for_each(Transcript::pack);
    }

    /// Holds every transcript's text as is (in parallel); the first that
    /// fails to decode is an error naming it.
    pub fn unpack(&mut self) -> Result<(), CorpusError> {
        self.transcripts
            .par_iter_mut()
            .map(Transcript::unpack)
            .collect::<Result<Vec<()>, _>>()
            .map(|_| ())
    }

    /// Every transcript's text, read back once (in parallel): for a reader
    /// that visits them in no particular order.
    pub fn texts(&self) -> Result<Vec<Cow<'_, str>>, CorpusError> {
        self.transcripts.par_iter().map(Transcript::text).collect()
    }
}

/// Parses a transcript corpus: an array of chunks or `{"documents": [...]}`.
pub(crate) fn parse_transcripts(path: &Path, text: &str) -> Result<TranscriptSet, CorpusError> {
    parse_transcripts_owned(path, text.to_string())
}

/// [`parse_transcripts`] taking the text: the chunks are read from the
/// document's tape (no value tree) and each FILE's text is built once at
/// its final size.
pub(crate) fn parse_transcripts_owned(
    path: &Path,
    text: String,
) -> Result<TranscriptSet, CorpusError> {
    parse_transcripts_with(path, text, |_| ()).map(|(set, ())| set)
}

/// [`parse_transcripts_owned`], running `alongside` over the file's text
/// on another thread while it is scanned (e.g. its SHA-256).
pub(crate) fn parse_transcripts_with<R: Send>(
    path: &Path,
    text: String,
    alongside: impl FnOnce(&[u8]) -> R + Send,
) -> Result<(TranscriptSet, R), CorpusError> {
    let (text, tape, extra) = super::parse_tape_with(path, text, alongside)?;
    build_transcripts(path, &text, &tape).map(|set| (set, extra))
}

/// [`parse_transcripts_with`] over borrowed text (e.g. a mapped file),
/// `alongside` running over the whole text on another thread while the
/// tape is scanned. Transcripts are joined in parallel, each held
/// compressed ([`Transcript::pack`]) as soon as it is joined, so that the
/// corpus's joined texts are never all held as is; `release` is then
/// handed the stretches of `text` that held its chunks (read no more: a
/// mapped file's pages can go back).
pub(crate) fn parse_transcripts_borrowed<R: Send>(
    path: &Path,
    text: &str,
    alongside: impl FnOnce(&[u8]) -> R + Send,
    release: &(dyn Fn(&str) + Sync),
) -> Result<(TranscriptSet, R), CorpusError> {
    let (doc, tape, extra) = super::parse_tape_borrowed(path, text, alongside)?;
    Ok((build(path, &doc, &tape, Some(release))?, extra))
}

/// The transcripts of a corpus document's tape.
fn build_transcripts(path: &Path, text: &str, tape: &Tape) -> Result<TranscriptSet, CorpusError> {
    build(path, text, tape, None)
}

/// Chunks closer than this (bytes) are released as one stretch.
const RELEASE_GAP: usize = 4096;

/// The transcripts of a corpus document's tape; with `packed`, each packed
/// once joined, and the stretches of `text` that held its chunks handed
/// to the function given.
fn build(
    path: &Path,
    text: &str,
    tape: &Tape,
    packed: Option<&(dyn Fn(&str) + Sync)>,
) -> Result<TranscriptSet, CorpusError> {
    let record_err = |record: String, field: &str, message: &str| CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.to_string(),
        message: message.to_string(),
    };
    let shape = "expected an array of chunks or an object with a \"documents\" array";
    let root = tape.root();
    let chunks = match tape.kind(root) {
        Kind::Array => root,
        Kind::Object => match tape.field(text, root, "documents") {
            Some(a) if tape.kind(a) == Kind::Array => a,
            _ => return Err(record_err("top level".into(), "documents", shape)),
        },
        _ => return Err(record_err("top level".into(), "(root)", shape)),
    };
    // Each chunk's FILE and content node, checked; FILEs by first sight.
    let mut set = TranscriptSet::default();
    let mut sizes: Vec<usize> = Vec::new();
    // Each transcript's chunks, in order.
    let mut chunks_of: Vec<Vec<usize>> = Vec::new();
    for (i, chunk) in tape.children(chunks).enumerate() {
        if tape.kind(chunk) != Kind::Object {
            return Err(record_err(
                format!("chunk {i}"),
                "(chunk)",
                "expected an object",
            ));
        }
        let content = match tape.field(text, chunk, "page_content") {
            Some(c) if matches!(tape.kind(c), Kind::Str | Kind::StrEscaped) => c,
            Some(_) => {
                return Err(record_err(
                    format!("chunk {i}"),
                    "page_content",
                    "expected a string",
                ))
            }
            None => return Err(record_err(format!("chunk {i}"), "page_content", "missing")),
        };
        let file_node = tape
            .field(text, chunk, "metadata")
            .and_then(|m| tape.field(text, m, "FILE"));
        let file = match file_node.map(|f| (f, tape.kind(f))) {
            Some((f, Kind::Str | Kind::StrEscaped)) => {
                let s = tape.str_value(text, f).unwrap_or_default();
                if s.trim().is_empty() {
                    return Err(record_err(
                        format!("chunk {i}"),
                        "metadata.FILE",
                        "is empty",
                    ));
                }
                s
            }
            Some((f, Kind::Number)) => match tape.value(text, f) {
                Value::Number(n) => n.to_string().into(),
                _ => tape.raw(text, f).to_string().into(),
            },
            Some(_) => {
                return Err(record_err(
                    format!("chunk {i}"),
                    "metadata.FILE",
                    "expected a string",
                ))
            }
            None => return Err(record_err(format!("chunk {i}"), "metadata.FILE", "missing")),
        };
        let t = match set.index.get(file.as_ref()) {
            Some(&t) => t,
            None => {
                set.index.insert(file.to_string(), set.transcripts.len());
                set.transcripts
                    .push(Transcript::new(file.into_owned(), String::new(), 0));
                sizes.push(0);
                chunks_of.push(Vec::new());
                set.transcripts.len() - 1
            }
        };
        // The raw length bounds the decoded one; joined with "\n".
        let n = tape.node(content);
        sizes[t] += (n.end - n.start) as usize - 2 + usize::from(set.transcripts[t].chunks > 0);
        set.transcripts[t].chunks += 1;
        chunks_of[t].push(content);
    }
    // Transcripts joined in parallel, each at its final size (and packed).
    let stored: Vec<Stored> = chunks_of
        .par_iter()
        .zip(sizes)
        .map_init(Vec::new, |scratch, (contents, size)| {
            let mut joined = String::with_capacity(size);
            for (i, &content) in contents.iter().enumerate() {
                if i > 0 {
                    joined.push('\n');
                }
                push_content(tape, text, content, &mut joined);
            }
            let Some(release) = packed else {
                return Stored::Plain(joined);
            };
            let stored = Stored::Packed(PackedText::pack_with(&joined, scratch));
            release_chunks(tape, text, contents, release);
            stored
        })
        .collect();
    for (tr, s) in set.transcripts.iter_mut().zip(stored) {
        tr.text = s;
    }
    Ok(set)
}

/// Hands `release` the stretches of `text` that the string nodes
/// `contents` (in document order) stand in, those less than
/// [`RELEASE_GAP`] apart as one.
fn release_chunks(tape: &Tape, text: &str, contents: &[usize], release: &(dyn Fn(&str) + Sync)) {
    let mut spans = contents.iter().map(|&c| {
        let n = tape.node(c);
        n.start as usize..n.end as usize
    });
    let Some(mut run) = spans.next() else {
        return;
    };
    for s in spans {
        if s.start >= run.end && s.start - run.end <= RELEASE_GAP {
            run.end = s.end;
        } else {
            release(&text[run.clone()]);
            run = s;
        }
    }
    release(&text[run]);
}

/// Appends a string node's value to `out` (escapes decoded).
fn push_content(tape: &Tape, text: &str, node: usize, out: &mut String) {
    let n = tape.node(node);
    let inner = &text[n.start as usize + 1..n.end as usize - 1];
    match tape.kind(node) {
        Kind::StrEscaped => super::tape::unescape_into(inner, out),
        _ => out.push_str(inner),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_chunks_by_file() {
        let json = r#"[{"page_content":"a","metadata":{"FILE":"x"}},
            {"page_content":"b","metadata":{"FILE":"y"}},
            {"page_content":"c","metadata":{"FILE":"x"}}]"#;
        let set = parse_transcripts(Path::new("t.json"), json).unwrap();
        assert_eq!(set.get("x").unwrap().text().unwrap(), "a\nc");
        assert_eq!(set.get("y").unwrap().text().unwrap(), "b");
        assert_eq!(set.transcripts[0].file, "x");
        let wrapped = format!(r#"{{"documents": {json}}}"#);
        assert_eq!(
            parse_transcripts(Path::new("t.json"), &wrapped)
                .unwrap()
                .transcripts
                .len(),
            2
        );
    }

    #[test]
    fn packing_keeps_every_text_and_appending_unpacks() {
        let mut set = TranscriptSet::from_chunks([
            ("a".to_string(), "Ana: é\u{1F600} and more".to_string()),
            ("b".to_string(), String::new()),
            ("a".to_string(), "Bo: second chunk".to_string()),
        ]);
        let before: Vec<String> = set
            .texts()
            .unwrap()
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        set.pack();
        assert!(set.transcripts.iter().all(Transcript::is_packed));
        let after: Vec<String> = set
            .texts()
            .unwrap()
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        assert_eq!(before, after);
        assert_eq!(
            set.total_bytes(),
            before.iter().map(String::len).sum::<usize>()
        );
        assert!(set.get("b").is_some_and(Transcript::is_empty));
        set.unpack().unwrap();
        assert!(set.transcripts.iter().all(|t| !t.is_packed()));
        assert_eq!(
            set.get("a").map(|t| t.text().unwrap().into_owned()),
            Some(before[0].clone())
        );
        // A chunk appended to a packed transcript lands after its text.
        set.pack();
        let t = &mut set.transcripts[0];
        t.plain_mut().unwrap().push_str("\nx");
        assert_eq!(t.text().unwrap(), format!("{}\nx", before[0]));
    }

    #[test]
    fn borrowed_parse_equals_the_owned_one_and_packs_each_transcript() {
        // Chunks of four FILEs, ~3 MB in all, one of them interleaved with
        // the others, a byte-order mark, escapes.
        let mut json = String::from("\u{feff}[");
        for i in 0..3000 {
            if i > 0 {
                json.push(',');
            }
            let file = if i % 7 == 3 { 9 } else { i / 1000 };
            let line = format!("Q{i}: \\\"line\\\" {}", "word ".repeat(200));
            json.push_str(&format!(
                r#"{{"page_content": "{line}", "metadata": {{"FILE": "f{file}"}}}}"#
            ));
        }
        json.push(']');
        let owned = parse_transcripts(Path::new("t.json"), &json).unwrap();
        // The stretches handed back: each chunk's content lies in one,
        // and chunks of one FILE next to each other are one stretch.
        let released = std::sync::Mutex::new(Vec::new());
        let release = |part: &str| {
            let at = part.as_ptr() as usize - json.as_ptr() as usize;
            released.lock().unwrap().push(at..at + part.len());
        };
        let (borrowed, len) =
            parse_transcripts_borrowed(Path::new("t.json"), &json, |b| b.len(), &release).unwrap();
        assert_eq!(len, json.len());
        let released = released.into_inner().unwrap();
        let mut from = 0;
        for i in 0..3000 {
            let at = from + json[from..].find(&format!("\"Q{i}: ")).unwrap();
            let end = at + json[at..].find("\", \"metadata").unwrap();
            assert!(
                released.iter().any(|r| r.start <= at && end <= r.end),
                "chunk {i}"
            );
            from = end;
        }
        // f9's 429 chunks stand between the others': one stretch each.
        assert!(
            released.len() > 429 && released.len() < 3000,
            "{}",
            released.len()
        );
        assert_eq!(borrowed.transcripts.len(), 4);
        for (a, b) in owned.transcripts.iter().zip(&borrowed.transcripts) {
            // Held compressed once read, as is by the plain parse.
            assert!(b.is_packed() && !a.is_packed());
            assert_eq!(a.len(), b.len());
            assert_eq!(
                (&a.file, a.text().unwrap(), a.chunks),
                (&b.file, b.text().unwrap(), b.chunks)
            );
        }
        assert_eq!(owned.total_bytes(), borrowed.total_bytes());
        assert_eq!(owned.get("f9").map(|t| t.chunks), Some(429));
        assert!(owned
            .get("f0")
            .unwrap()
            .text()
            .unwrap()
            .starts_with("Q0: \"line\" word"));
        // An invalid document is the same error either way.
        let bad = "[\n{\"page_content\": }]";
        let e1 = parse_transcripts(Path::new("t.json"), bad)
            .unwrap_err()
            .to_string();
        let e2 = parse_transcripts_borrowed(Path::new("t.json"), bad, |_| (), &|_| ())
            .unwrap_err()
            .to_string();
        assert_eq!(e1, e2);
    }

    #[test]
    fn errors_name_the_chunk() {
        let err = parse_transcripts(
            Path::new("t.json"),
            r#"[{"page_content":"a","metadata":{}}]"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("chunk 0") && err.contains("metadata.FILE"),
            "{err}"
        );
        let err = parse_transcripts(Path::new("t.json"), "[\n{\"page_content\": }]").unwrap_err();
        assert!(err.to_string().starts_with("t.json:2:"), "{err}");
    }

    #[test]
    fn issue_40_a_damaged_packed_text_is_an_error_naming_the_transcript() {
        let text = "Ana: we sold the farm in the spring of 1987. ".repeat(50);
        let mut t = Transcript::new("IS-004.txt".into(), text, 1);
        t.pack();
        if let Stored::Packed(p) = &mut t.text {
            p.damage();
        }
        let err = t.text().unwrap_err();
        assert!(matches!(err, CorpusError::Damaged { .. }));
        assert!(err.to_string().contains("IS-004.txt"), "{err}");
        assert!(t.unpack().is_err());
        assert!(t.is_packed(), "left packed, not emptied");
    }
}
