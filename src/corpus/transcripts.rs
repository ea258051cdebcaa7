//! Transcript corpora: chunks `{"page_content", "metadata": {"FILE"}}` grouped
//! by FILE into whole transcripts.

use super::packed::PackedText;
use super::tape::{Kind, Tape};
use super::{read_text, CorpusError};
use rayon::prelude::*;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
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
    /// Number of chunks joined.
    pub chunks: usize,
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
        }
    }

    /// The joined text (read back when packed); a packed text that fails
    /// to decode is an error naming the transcript, never an empty text.
    pub fn text(&self) -> Result<Cow<'_, str>, CorpusError> {
        self.text_in(&mut String::new())
    }

    /// [`Transcript::text`], a packed text read back into the buffer of
    /// `spare` (taken; left empty for a plain text), which
    /// [`crate::citations::SourceText::into_spare`] gives back.
    pub fn text_in(&self, spare: &mut String) -> Result<Cow<'_, str>, CorpusError> {
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

/// All transcripts of a corpus, by FILE, in first-seen order.
#[derive(Debug, Clone, Default)]
pub struct TranscriptSet {
    /// The transcripts in the order their FILE first appears.
    pub transcripts: Vec<Transcript>,
    index: HashMap<String, usize>,
}

impl TranscriptSet {
    /// The transcript of a FILE.
    pub fn get(&self, file: &str) -> Option<&Transcript> {
        self.index.get(file).map(|&i| &self.transcripts[i])
    }

    /// Index of a FILE's transcript in [`TranscriptSet::transcripts`].
    pub fn position(&self, file: &str) -> Option<usize> {
        self.index.get(file).copied()
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

/// Reads a transcript corpus file.
pub fn load_transcripts(path: &Path) -> Result<TranscriptSet, CorpusError> {
    let text = read_text(path)?;
    parse_transcripts(path, &text)
}

/// Parses a transcript corpus: an array of chunks or `{"documents": [...]}`.
pub fn parse_transcripts(path: &Path, text: &str) -> Result<TranscriptSet, CorpusError> {
    parse_transcripts_owned(path, text.to_string())
}

/// [`parse_transcripts`] taking the text: the chunks are read from the
/// document's tape (no value tree) and each FILE's text is built once at
/// its final size.
pub fn parse_transcripts_owned(path: &Path, text: String) -> Result<TranscriptSet, CorpusError> {
    parse_transcripts_with(path, text, |_| ()).map(|(set, ())| set)
}

/// [`parse_transcripts_owned`], running `alongside` over the file's text
/// on another thread while it is scanned (e.g. its SHA-256).
pub fn parse_transcripts_with<R: Send>(
    path: &Path,
    text: String,
    alongside: impl FnOnce(&[u8]) -> R + Send,
) -> Result<(TranscriptSet, R), CorpusError> {
    let (text, tape, extra) = super::parse_tape_with(path, text, alongside)?;
    build_transcripts(path, &text, &tape).map(|set| (set, extra))
}

/// [`parse_transcripts_with`] over borrowed text (e.g. a mapped file),
/// calling `release(range)` where the memory of a byte range of `text`
/// can be given back (for a mapped file: its pages dropped, read again
/// from the file if touched again), so that the file's pages need not
/// stay resident: behind each pass over the text (the tape's scan beside
/// `alongside`, which is told the offset it has read so far; the check of
/// repeated keys; the reading of the chunks' fields), then, once a
/// transcript is joined, each run of its chunks that no other transcript's
/// chunk interrupts. Transcripts are joined in parallel, each held
/// compressed ([`Transcript::pack`]) as soon as it is joined, so that the
/// corpus's joined texts are never all held as is.
pub fn parse_transcripts_released<R: Send>(
    path: &Path,
    text: &str,
    release: impl Fn(Range<usize>) + Sync,
    alongside: impl FnOnce(&[u8], &dyn Fn(usize)) -> R + Send,
) -> Result<(TranscriptSet, R), CorpusError> {
    let (doc, tape, extra) = super::parse_tape_released(path, text, &release, alongside)?;
    crate::timings::phase("transcripts: tape");
    let set = match &doc {
        // Offsets into `text`: past its byte-order mark.
        std::borrow::Cow::Borrowed(d) => {
            let bom = text.len() - d.len();
            build_released(path, (d, bom), &tape, &release, true)?
        }
        std::borrow::Cow::Owned(d) => build_released(path, (d, 0), &tape, &|_| (), true)?,
    };
    Ok((set, extra))
}

/// The transcripts of a corpus document's tape.
fn build_transcripts(path: &Path, text: &str, tape: &Tape) -> Result<TranscriptSet, CorpusError> {
    build_released(path, (text, 0), tape, &|_| (), false)
}

/// [`build_transcripts`], calling `release(range)` behind the reading of
/// the chunks' fields, with the whole of `text` once the chunks are found,
/// and with each transcript's runs of chunks once it is joined, each
/// transcript packed once joined when `pack` is set. `text` starts `base` bytes into its file (past a
/// byte-order mark): `release` is given ranges of the file.
fn build_released(
    path: &Path,
    (text, base): (&str, usize),
    tape: &Tape,
    release: &(dyn Fn(Range<usize>) + Sync),
    pack: bool,
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
    // Each transcript's chunks, in order, and the bytes of each run of its
    // chunks that no other transcript's chunk interrupts.
    let mut chunks_of: Vec<Vec<usize>> = Vec::new();
    let mut runs: Vec<Vec<Range<usize>>> = Vec::new();
    let mut previous = None;
    // The chunks are read front to back: given back behind.
    let behind = super::Behind::new(release, 1);
    for (i, chunk) in tape.children(chunks).enumerate() {
        if i % 256 == 0 {
            behind.reached(0, base + tape.node(chunk).start as usize);
        }
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
                runs.push(Vec::new());
                set.transcripts.len() - 1
            }
        };
        // The raw length bounds the decoded one; joined with "\n".
        let n = tape.node(content);
        sizes[t] += (n.end - n.start) as usize - 2 + usize::from(set.transcripts[t].chunks > 0);
        set.transcripts[t].chunks += 1;
        chunks_of[t].push(content);
        let (start, end) = (n.start as usize, n.end as usize);
        match runs[t].last_mut() {
            Some(run) if previous == Some(t) => run.end = end,
            _ => runs[t].push(start..end),
        }
        previous = Some(t);
    }
    // The whole text was read for the tape and the chunks' fields: given
    // back now, read again (from the page cache) as the texts are joined.
    release(base..base + text.len());
    // Transcripts joined in parallel, each at its final size, packed and
    // its bytes given back once done.
    let stored: Vec<Stored> = chunks_of
        .par_iter()
        .zip(sizes)
        .zip(&runs)
        .map_init(Vec::new, |scratch, ((contents, size), runs)| {
            let mut joined = String::with_capacity(size);
            for (i, &content) in contents.iter().enumerate() {
                if i > 0 {
                    joined.push('\n');
                }
                push_content(tape, text, content, &mut joined);
            }
            for run in runs {
                release(base + run.start..base + run.end);
            }
            if pack {
                Stored::Packed(PackedText::pack_with(&joined, scratch))
            } else {
                Stored::Plain(joined)
            }
        })
        .collect();
    for (tr, s) in set.transcripts.iter_mut().zip(stored) {
        tr.text = s;
    }
    Ok(set)
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
    fn released_parse_equals_the_owned_one_and_releases_each_transcripts_bytes() {
        // Chunks of four FILEs, ~3 MB in all, one of them interleaved with
        // the others, a byte-order mark, escapes.
        let mut json = String::from("\u{feff}[");
        // Each FILE's span: its first content string's opening quote to its
        // last one's closing quote.
        let mut spans: std::collections::BTreeMap<usize, Range<usize>> = Default::default();
        // Runs of consecutive chunks of one FILE.
        let (mut runs, mut previous) = (0, None);
        for i in 0..3000 {
            if i > 0 {
                json.push(',');
            }
            let file = if i % 7 == 3 { 9 } else { i / 1000 };
            if previous != Some(file) {
                runs += 1;
                previous = Some(file);
            }
            let line = format!("Q{i}: \\\"line\\\" {}", "word ".repeat(200));
            json.push_str("{\"page_content\": ");
            let start = json.len();
            json.push_str(&format!("\"{line}\""));
            let span = spans.entry(file).or_insert(start..0);
            span.end = json.len();
            json.push_str(&format!(r#", "metadata": {{"FILE": "f{file}"}}}}"#));
        }
        json.push(']');
        let owned = parse_transcripts(Path::new("t.json"), &json).unwrap();
        let calls: std::sync::Mutex<Vec<Range<usize>>> = Default::default();
        let (released, len) = parse_transcripts_released(
            Path::new("t.json"),
            &json,
            |r| calls.lock().unwrap().push(r),
            |b, progress| {
                for at in (0..=b.len()).step_by(100_000) {
                    progress(at);
                }
                progress(b.len());
                b.len()
            },
        )
        .unwrap();
        let calls = calls.into_inner().unwrap();
        // Behind each pass (the scan beside `alongside`, the keys' check, the
        // chunks' fields), whole 64 KiB blocks: the first two passes give
        // back every whole block, each once.
        let bom = "\u{feff}".len();
        let whole = calls.iter().position(|r| *r == (bom..json.len())).unwrap();
        let behind = &calls[..whole];
        let blocks = json.len() / (64 << 10) * (64 << 10);
        for r in behind {
            assert!(r.start < r.end && r.end <= blocks, "{r:?}");
            assert_eq!((r.start % (64 << 10), r.end % (64 << 10)), (0, 0), "{r:?}");
        }
        // The scan beside the digest and the keys' check each give back
        // every whole block once; the chunks' pass, those its chunks passed
        // (the same ranges may interleave: passes overlap in time).
        let mut times = vec![0; blocks / (64 << 10)];
        for r in behind {
            for t in &mut times[r.start / (64 << 10)..r.end / (64 << 10)] {
                *t += 1;
            }
        }
        assert!(times.iter().all(|&t| t == 2 || t == 3), "{times:?}");
        assert!(
            times.iter().filter(|&&t| t == 3).count() >= times.len() / 2,
            "{times:?}"
        );
        let calls = &calls[whole..];
        assert_eq!(len, json.len());
        assert_eq!(released.transcripts.len(), 4);
        for (a, b) in owned.transcripts.iter().zip(&released.transcripts) {
            // Held compressed once read, as is by the plain parse.
            assert!(b.is_packed() && !a.is_packed());
            assert_eq!(a.len(), b.len());
            assert_eq!(
                (&a.file, a.text().unwrap(), a.chunks),
                (&b.file, b.text().unwrap(), b.chunks)
            );
        }
        assert_eq!(owned.total_bytes(), released.total_bytes());
        assert_eq!(owned.get("f9").map(|t| t.chunks), Some(429));
        // The whole text once its chunks are found (offsets past the
        // byte-order mark), then each run of a transcript's consecutive
        // chunks: together, every chunk's bytes once, no two runs touching
        // (f9's chunks interrupt the others').
        assert_eq!(calls[0], "\u{feff}".len()..json.len());
        let mut got: Vec<Range<usize>> = calls[1..].to_vec();
        got.sort_by_key(|r| r.start);
        assert_eq!(got.len(), runs);
        assert!(got.windows(2).all(|w| w[0].end < w[1].start));
        assert_eq!(got[0].start, spans[&0].start);
        let last = spans.values().map(|r| r.end).max();
        assert_eq!(got.last().map(|r| r.end), last);
        for r in &got {
            assert!(json[r.clone()].starts_with("\"Q") && json[r.clone()].ends_with('"'));
        }
        // An invalid document is the same error either way.
        let bad = "[\n{\"page_content\": }]";
        let e1 = parse_transcripts(Path::new("t.json"), bad)
            .unwrap_err()
            .to_string();
        let e2 = parse_transcripts_released(Path::new("t.json"), bad, |_| (), |_, _| ())
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
