//! `build-lexicon` as a job: a WordNet dict folder made into the compact
//! lexicon (gzipped when the output's name ends in `.gz`), checked by
//! loading it back before it is written.

use super::JobError;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// A written lexicon, as `build-lexicon --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Built {
    /// The output file.
    pub output: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// Its SHA-256.
    pub sha256: String,
    /// Lemmas in the lexicon.
    pub lemmas: usize,
    /// Synsets in the lexicon.
    pub synsets: usize,
}

/// Builds the compact lexicon of `dict_dir` and writes it atomically to
/// `out` (a device, FIFO or folder is refused before any work).
pub fn build(dict_dir: &Path, out: &Path) -> Result<Built, JobError> {
    crate::report::check_destination(out)?;
    let text = crate::lexicon::build::build_compact(dict_dir)?;
    let check = crate::lexicon::Lexicon::from_compact(text.clone(), "built lexicon", "")?;
    let io = |source: std::io::Error| crate::report::ReportError::Io {
        path: out.to_path_buf(),
        source,
    };
    let bytes = if out.extension().is_some_and(|e| e == "gz") {
        let mut enc = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::best());
        enc.write_all(text.as_bytes()).map_err(io)?;
        enc.finish().map_err(io)?
    } else {
        text.into_bytes()
    };
    crate::report::write_atomic(out, &bytes)?;
    Ok(Built {
        output: out.display().to_string(),
        bytes: bytes.len(),
        sha256: crate::report::sha256_hex(&bytes),
        lemmas: check.lemma_count(),
        synsets: check.synset_count(),
    })
}
