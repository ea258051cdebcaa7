//! How every input file is opened: only a regular file, never a device,
//! a FIFO, a socket or a file of `/proc`, `/dev` or `/sys` (whose reported
//! size is no bound: `/dev/zero` never ends, `/proc/self/environ` holds the
//! process's secrets), and never more than a size bound. The bounds:
//!
//! - an input file: at most [`MAX_INPUT_BYTES`] (64 GiB);
//! - one entry of a zip archive (`.docx`, `.qdpx`) inflated: at most
//!   [`MAX_ENTRY_BYTES`] (256 MiB), counted while it is inflated, whatever
//!   its header claims;
//! - all the text read for one archive (its entries inflated, and a
//!   project's text sources each time a source names them, external files
//!   included): at most [`MAX_ARCHIVE_BYTES`] (1 GiB).
//!
//! A FIFO is opened without blocking (`O_NONBLOCK`), so that it is refused,
//! not waited on.

use super::CorpusError;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest input file read, in bytes (64 GiB).
pub(crate) const MAX_INPUT_BYTES: u64 = 64 << 30;

/// Largest zip archive entry read, inflated, in bytes (256 MiB): a Word
/// document's XML or a project's source text is far smaller; a zip bomb
/// stops here.
pub(crate) const MAX_ENTRY_BYTES: u64 = 256 << 20;

/// Most text read for one archive, in bytes (1 GiB): every entry inflated
/// and every text source a project names (one entry named by 2,000
/// sources counts 2,000 times).
pub(crate) const MAX_ARCHIVE_BYTES: u64 = 1 << 30;

/// The pseudo-file systems no input is read from.
const PSEUDO: [&str; 3] = ["/proc", "/dev", "/sys"];

fn refused(path: &Path, message: impl Into<String>) -> CorpusError {
    CorpusError::Record {
        path: path.to_path_buf(),
        record: "(file)".into(),
        field: "(path)".into(),
        message: message.into(),
    }
}

/// Whether `path` (made absolute, links resolved) lies in `/proc`, `/dev`
/// or `/sys`.
pub(crate) fn is_pseudo(path: &Path) -> bool {
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    [path, resolved.as_path()]
        .iter()
        .any(|p| PSEUDO.iter().any(|root| p.starts_with(root)))
}

/// What kind of file a non-regular file is, for a message.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if meta.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Opens an input file for reading: a regular file (links followed) of at
/// most [`MAX_INPUT_BYTES`], outside `/proc`, `/dev` and `/sys`; with its
/// size. Anything else is an error naming the file and why.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), CorpusError> {
    if is_pseudo(path) {
        return Err(refused(
            path,
            "a file of /proc, /dev or /sys is not read as an input",
        ));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A FIFO opened for reading would wait for a writer.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let io = |source| CorpusError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = options.open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        let kind = kind_of(&meta);
        return Err(refused(
            path,
            format!("{kind}: only a regular file is read as an input"),
        ));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(refused(
            path,
            format!(
                "{} bytes: over the {} GiB bound of an input file",
                meta.len(),
                MAX_INPUT_BYTES >> 30
            ),
        ));
    }
    Ok((file, meta.len()))
}

/// Reads at most `limit` bytes of `reader`; more is `Err(read)` with the
/// bytes read so far counted.
pub(crate) fn read_bounded(reader: impl Read, limit: u64) -> std::io::Result<Result<Vec<u8>, u64>> {
    let mut bytes = Vec::new();
    let read = reader.take(limit + 1).read_to_end(&mut bytes)? as u64;
    Ok(if read > limit { Err(read) } else { Ok(bytes) })
}

/// An input file's bytes ([`open_regular`]; a file that grows past the
/// bound while read is refused too).
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, CorpusError> {
    let (file, len) = open_regular(path)?;
    let io = |source| CorpusError::Io {
        path: path.to_path_buf(),
        source,
    };
    // The size as a hint, capped (a sparse file may claim far more than
    // memory holds; the vector grows as the bytes come).
    let mut bytes = Vec::with_capacity(usize::try_from(len.min(1 << 30)).unwrap_or(0));
    let read = file
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if read as u64 > MAX_INPUT_BYTES {
        return Err(refused(
            path,
            format!(
                "over the {} GiB bound of an input file",
                MAX_INPUT_BYTES >> 30
            ),
        ));
    }
    Ok(bytes)
}

/// How much text an archive has given so far, against
/// [`MAX_ARCHIVE_BYTES`].
#[derive(Debug)]
pub(crate) struct Budget {
    path: PathBuf,
    used: u64,
    limit: u64,
}

impl Budget {
    /// A fresh budget for the archive at `path`.
    pub(crate) fn new(path: &Path) -> Budget {
        Budget {
            path: path.to_path_buf(),
            used: 0,
            limit: MAX_ARCHIVE_BYTES,
        }
    }

    /// A budget with another limit (tests).
    #[cfg(test)]
    pub(crate) fn with_limit(path: &Path, limit: u64) -> Budget {
        Budget {
            limit,
            ..Budget::new(path)
        }
    }

    /// What is left.
    pub(crate) fn left(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    /// Counts `bytes` more read for `what` (an entry, a source); past the
    /// limit, an error naming the archive and `what`.
    pub(crate) fn spend(&mut self, what: &str, bytes: u64) -> Result<(), CorpusError> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(CorpusError::Record {
                path: self.path.clone(),
                record: "(archive)".into(),
                field: what.to_string(),
                message: format!(
                    "the text read from the archive passes {} MiB (the bound of one archive): refused as a zip bomb",
                    self.limit >> 20
                ),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_53_devices_fifos_and_proc_files_are_refused() {
        for p in [
            "/dev/zero",
            "/dev/null",
            "/proc/self/environ",
            "/proc/version",
        ] {
            let e = read_bytes(Path::new(p)).unwrap_err().to_string();
            assert!(e.contains(p), "{e}");
        }
        let dir = tempfile::tempdir().unwrap();
        let e = read_bytes(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("a folder") || e.contains("Is a directory"),
            "{e}"
        );
        #[cfg(target_os = "linux")]
        {
            let fifo = dir.path().join("pipe.txt");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.unwrap().success());
            // Refused at once, not waited on.
            let e = read_bytes(&fifo).unwrap_err().to_string();
            assert!(e.contains("a FIFO") && e.contains("pipe.txt"), "{e}");
            // A link to a device is the device.
            let link = dir.path().join("zero.txt");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            let e = read_bytes(&link).unwrap_err().to_string();
            assert!(e.contains("zero.txt"), "{e}");
        }
        let ok = dir.path().join("a.txt");
        std::fs::write(&ok, "Ana: hi").unwrap();
        assert_eq!(read_bytes(&ok).unwrap(), b"Ana: hi");
    }

    #[test]
    fn a_budget_names_the_archive_and_the_part() {
        let mut b = Budget::with_limit(Path::new("p.qdpx"), 10);
        b.spend("sources/a.txt", 6).unwrap();
        assert_eq!(b.left(), 4);
        let e = b.spend("sources/b.txt", 6).unwrap_err().to_string();
        assert!(e.contains("p.qdpx") && e.contains("sources/b.txt"), "{e}");
        assert_eq!(
            read_bounded(&b"abcdef"[..], 6).unwrap(),
            Ok(b"abcdef".to_vec())
        );
        assert_eq!(read_bounded(&b"abcdefg"[..], 6).unwrap(), Err(7));
    }
}
