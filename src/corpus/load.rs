//! The one corpus loader: a question file, or transcripts (a corpus-eval
//! JSON chunk file, a caption, text, Word or REFI-QDA file, or a folder of
//! them), from a path or from text in memory, with options (speaker names
//! for whisperX labels, packing, mapping) instead of one function per
//! combination.
//!
//! ```no_run
//! use corpus_eval::corpus::Loader;
//! use std::path::Path;
//!
//! let loader = Loader::new();
//! let questions = loader.questions(Path::new("evaluation/data_fixture.json"))?;
//! let transcripts = loader.transcripts(Path::new("datasets/corpus.json"))?;
//! println!("{} pairs, sha256 {}", questions.data.pairs.len(), questions.sha256);
//! println!("{} transcripts", transcripts.data.transcripts.len());
//! # Ok::<(), corpus_eval::corpus::CorpusError>(())
//! ```

use super::formats::{ReadOptions, SpeakerMap, TimedTranscript};
use super::{CorpusError, QuestionSet, TranscriptSet};
use std::path::Path;

/// Files smaller than this are read even when mapping is asked for (a
/// map costs more than it saves on them).
const MAP_AT_LEAST: u64 = 1 << 20;

/// How inputs are read. The defaults: whisperX labels kept as they are,
/// transcripts held as plain text, files read (not mapped).
#[derive(Debug, Clone, Default)]
pub struct Loader {
    read: ReadOptions,
    pack: bool,
    mmap: bool,
}

/// A loaded input and the digest a run's manifest records of it: the
/// file's SHA-256 and size, or for a folder the SHA-256 of its listing
/// (each file's relative path and SHA-256) and the files' total size.
#[derive(Debug)]
pub struct Loaded<T> {
    /// What was loaded.
    pub data: T,
    /// SHA-256, hex.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: u64,
    /// What the reader has to say (files read outside the input, files of
    /// a folder skipped), for stderr and the manifest.
    pub notes: Vec<String>,
}

/// An input file's bytes: memory-mapped when the file is large, read
/// otherwise (see `Loader::mapped`).
pub enum InputBytes {
    /// A mapped file.
    Mapped(memmap2::Mmap),
    /// Bytes read into memory.
    Read(Vec<u8>),
}

impl std::ops::Deref for InputBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            InputBytes::Mapped(m) => m,
            InputBytes::Read(v) => v,
        }
    }
}

/// A file's bytes: mapped (no copy; the page cache serves it) when `mmap`
/// is set and the file is a regular file of 1 MiB or more, read otherwise.
/// A failure names the file. The file is expected not to change while it
/// is mapped.
pub(crate) fn input_bytes(path: &Path, mmap: bool) -> Result<InputBytes, CorpusError> {
    let io_err = |source| CorpusError::Io {
        path: path.to_path_buf(),
        source,
    };
    if mmap {
        let (file, len) = super::input::open_regular(path)?;
        if len >= MAP_AT_LEAST {
            return crate::sys::io::map_readonly(&file)
                .map(InputBytes::Mapped)
                .map_err(io_err);
        }
    }
    super::input::read_bytes(path).map(InputBytes::Read)
}

/// The error of a file that is not UTF-8: the file and the first bad byte.
fn not_utf8(path: &Path, at: usize) -> CorpusError {
    CorpusError::Record {
        path: path.to_path_buf(),
        record: format!("byte {at}"),
        field: "(file)".into(),
        message: "the file is not valid UTF-8".into(),
    }
}

/// A digest of bytes as [`Loaded`] records it.
fn digest(bytes: &[u8]) -> (String, u64) {
    (crate::text::hash::sha256_hex(bytes), bytes.len() as u64)
}

impl Loader {
    /// A loader with the default options.
    pub fn new() -> Loader {
        Loader::default()
    }

    /// The names that whisperX speaker labels stand for.
    pub fn speakers(mut self, speakers: SpeakerMap) -> Loader {
        self.read.speakers = speakers;
        self
    }

    /// Reads a REFI-QDA project's text sources from outside the project's
    /// folder too (never from `/proc`, `/dev` or `/sys`); refused by
    /// default.
    pub fn external_sources(mut self, allow: bool) -> Loader {
        self.read.external_sources = allow;
        self
    }

    /// Holds each transcript compressed once built (read back on use):
    /// a large corpus's texts are then never all held as is.
    pub fn packed(mut self, pack: bool) -> Loader {
        self.pack = pack;
        self
    }

    /// Maps a JSON chunk corpus of 1 MiB or more instead of reading it
    /// (no copy: the page cache serves it while it is parsed). The file is
    /// expected not to change while it is read.
    pub fn mapped(mut self, mmap: bool) -> Loader {
        self.mmap = mmap;
        self
    }

    /// A question file (`{"qa_pairs": [...]}` or an array of pairs), its
    /// digest made while it is parsed.
    pub fn questions(&self, path: &Path) -> Result<Loaded<QuestionSet>, CorpusError> {
        let text = super::read_text(path)?;
        let (data, (sha256, bytes)) = super::questions::parse_questions_with(path, text, digest)?;
        Ok(Loaded {
            data,
            sha256,
            bytes,
            notes: Vec::new(),
        })
    }

    /// A question document given as text; `name` stands for its file in
    /// error messages.
    pub fn questions_text(&self, name: &Path, text: &str) -> Result<QuestionSet, CorpusError> {
        super::questions::parse_questions(name, text)
    }

    /// Transcripts: a JSON chunk corpus (an array of chunks or
    /// `{"documents": [...]}`), or anything `super::formats` reads (a
    /// folder, a caption, text, whisperX, Word or REFI-QDA file).
    pub fn transcripts(&self, path: &Path) -> Result<Loaded<TranscriptSet>, CorpusError> {
        if super::formats::is_transcript_source(path) {
            return super::formats::load_digested(path, &self.read, self.pack);
        }
        let (mut data, (sha256, bytes)) = match input_bytes(path, self.mmap)? {
            InputBytes::Read(b) => {
                let text = String::from_utf8(b)
                    .map_err(|e| not_utf8(path, e.utf8_error().valid_up_to()))?;
                let (mut set, d) = super::transcripts::parse_transcripts_with(path, text, digest)?;
                if self.pack {
                    set.pack();
                }
                (set, d)
            }
            mapped => {
                let text =
                    std::str::from_utf8(&mapped).map_err(|e| not_utf8(path, e.valid_up_to()))?;
                // Packed as each is joined, the pages of its chunks then
                // handed back; the map is dropped on return.
                let release = |part: &str| {
                    if let InputBytes::Mapped(map) = &mapped {
                        crate::sys::io::release_pages(map, part.as_bytes());
                    }
                };
                super::transcripts::parse_transcripts_borrowed(path, text, digest, &release)?
            }
        };
        if !self.pack {
            data.unpack()?;
        }
        Ok(Loaded {
            data,
            sha256,
            bytes,
            notes: Vec::new(),
        })
    }

    /// A JSON chunk corpus given as text; `name` stands for its file in
    /// error messages.
    pub fn transcripts_text(&self, name: &Path, text: &str) -> Result<TranscriptSet, CorpusError> {
        let mut set = super::transcripts::parse_transcripts(name, text)?;
        if self.pack {
            set.pack();
        }
        Ok(set)
    }

    /// Every transcript of `path` turn by turn, with the times of its cues
    /// (see `super::formats::read_all_digested`), its digest and the reader's notes.
    pub fn timed_transcripts(
        &self,
        path: &Path,
    ) -> Result<Loaded<Vec<TimedTranscript>>, CorpusError> {
        let read = super::formats::read_all_digested(path, &self.read)?;
        Ok(Loaded {
            data: read.transcripts,
            sha256: read.digest.0,
            bytes: read.digest.1,
            notes: read.notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHUNKS: &str = r#"[{"page_content": "We grew potatoes.", "metadata": {"FILE": "a.txt"}},
        {"page_content": "And leeks.", "metadata": {"FILE": "a.txt"}},
        {"page_content": "Rain.", "metadata": {"FILE": "b.txt"}}]"#;

    fn texts(set: &TranscriptSet) -> Vec<(String, String)> {
        set.transcripts
            .iter()
            .map(|t| (t.file.clone(), t.text().unwrap().into_owned()))
            .collect()
    }

    #[test]
    fn every_option_reads_the_same_corpus() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.json");
        std::fs::write(&small, CHUNKS).unwrap();
        // Large enough to be mapped.
        let mut big = String::from("[");
        for k in 0..30_000 {
            big.push_str(&format!(
                "{{\"page_content\": \"chunk {k} of a long interview\", \"metadata\": {{\"FILE\": \"f{}.txt\"}}}},",
                k % 7
            ));
        }
        big.push_str("{\"page_content\": \"end\", \"metadata\": {\"FILE\": \"last.txt\"}}]");
        let large = dir.path().join("large.json");
        std::fs::write(&large, &big).unwrap();
        for path in [&small, &large] {
            let bytes = std::fs::read(path).unwrap();
            let want = texts(
                &Loader::new()
                    .transcripts_text(path, &String::from_utf8(bytes.clone()).unwrap())
                    .unwrap(),
            );
            for (pack, mmap) in [(false, false), (true, false), (false, true), (true, true)] {
                let got = Loader::new()
                    .packed(pack)
                    .mapped(mmap)
                    .transcripts(path)
                    .unwrap();
                assert_eq!(
                    got.data.transcripts.iter().all(|t| t.is_packed()),
                    pack,
                    "{path:?}"
                );
                assert_eq!(texts(&got.data), want, "{path:?} pack={pack} mmap={mmap}");
                assert_eq!(got.sha256, crate::text::hash::sha256_hex(&bytes));
                assert_eq!(got.bytes, bytes.len() as u64);
            }
        }
    }

    #[test]
    fn a_folder_and_its_digest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("one.txt"),
            "I: Hello.\nR: We grew potatoes.\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("two.srt"),
            "1\n00:00:01,000 --> 00:00:02,000\nRain.\n",
        )
        .unwrap();
        let got = Loader::new().transcripts(dir.path()).unwrap();
        let ids: Vec<&str> = got
            .data
            .transcripts
            .iter()
            .map(|t| t.file.as_str())
            .collect();
        assert_eq!(ids, ["one.txt", "two.srt"]);
        assert_eq!(
            (got.sha256, got.bytes),
            super::super::formats::digest(dir.path()).unwrap()
        );
    }

    #[test]
    fn questions_and_their_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path().join("q.json");
        let doc = r#"{"qa_pairs": [{"id": "1", "question": {"text": "Crop?", "type": "ListOne",
            "metric": {"potato": 1}}, "answers": []}]}"#;
        std::fs::write(&q, doc).unwrap();
        let got = Loader::new().questions(&q).unwrap();
        assert_eq!(got.data.pairs.len(), 1);
        assert_eq!(got.sha256, crate::text::hash::sha256_hex(doc.as_bytes()));
        std::fs::write(&q, b"{\"qa_pairs\": [\xff]}").unwrap();
        let e = Loader::new().questions(&q).unwrap_err().to_string();
        assert!(e.contains("q.json") && e.contains("byte 14"), "{e}");
        let bad = dir.path().join("t.json");
        std::fs::write(&bad, b"[\xfe]").unwrap();
        for mmap in [false, true] {
            let e = Loader::new()
                .mapped(mmap)
                .transcripts(&bad)
                .unwrap_err()
                .to_string();
            assert!(e.contains("t.json") && e.contains("byte 1"), "{e}");
        }
        let e = Loader::new()
            .transcripts(&dir.path().join("none.json"))
            .unwrap_err();
        assert!(e.to_string().contains("none.json"), "{e}");
    }
}
