//! Run folders and how files are written into them: atomic and streamed
//! writes, manifests, CSV, the spill file, the PNG encoder. What a person
//! sees (terminal tables, report.html, charts) is in [`crate::views`].
//!
//! A run's files are written into a hidden staging folder that is renamed to
//! `DIR/<UTC timestamp>-<short id>/` once complete, so a run folder is
//! either whole or absent, and a run never overwrites another.

pub mod csv;
pub mod manifest;
#[cfg(feature = "charts")]
pub(crate) mod pngenc;
pub mod run;
pub(crate) mod spill;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Errors from writing outputs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A file or folder could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An output path names something that is not a regular file (a
    /// device, a FIFO, a folder): it is never replaced.
    #[error("{path}: is {what}, not a regular file; refusing to write over it")]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is ("a character device", ...).
        what: &'static str,
    },
    /// The folder for run folders (`--out`) names something that is not a
    /// folder.
    #[error("{path}: is {what}, not a folder for run folders")]
    NotAFolder {
        /// The path.
        path: PathBuf,
        /// What it is ("a regular file", "a character device", ...).
        what: &'static str,
    },
    /// A chart could not be drawn.
    #[error("cannot draw chart {path}: {message}")]
    Chart {
        /// The chart file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
    move |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

pub use crate::text::hash::{fnv1a, sha256_hex};

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so readers never see a half-written file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    write_file(path, bytes, true)
}

/// [`write_atomic`], where `sync_now` false leaves the flush to disk to the
/// caller (a run folder syncs all its files at once before it is renamed
/// into place: see [`run::RunWriter::finish`]).
pub fn write_file(path: &Path, bytes: &[u8], sync_now: bool) -> Result<(), ReportError> {
    let path = &destination(path)?;
    let (dir, tmp) = temporary(path);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if sync_now {
            f.sync_all()?;
        } else {
            start_writeback(&f);
        }
        std::fs::rename(&tmp, path)?;
        if sync_now {
            sync_dir(dir);
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io(path))
}

/// The folder of `path` and a temporary name beside it.
fn temporary(path: &Path) -> (&Path, PathBuf) {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    (dir, tmp)
}

/// Writes `value` as pretty JSON (and a newline) straight to `path`
/// through a buffer, atomically as [`write_file`] does, without holding
/// the whole text in memory; returns its SHA-256 (hex) and size.
pub fn write_json_streamed<T: serde::Serialize>(
    path: &Path,
    value: &T,
    sync_now: bool,
) -> Result<(String, u64), ReportError> {
    write_streamed(path, sync_now, |out| write_pretty_json(out, value))
}

/// Writes `value` to `out` as pretty JSON and a newline: the bytes
/// [`write_json_file`] writes (for a file streamed with others).
pub fn write_pretty_json<T: serde::Serialize + ?Sized>(
    out: &mut dyn std::io::Write,
    value: &T,
) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}

/// Writes a file from `write`, which gets a buffered writer that hashes
/// what passes through it (atomically: a temporary file renamed into
/// place; fsynced when `sync_now`); returns the SHA-256 (hex) and the size.
pub fn write_streamed(
    path: &Path,
    sync_now: bool,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(String, u64), ReportError> {
    let path = &destination(path)?;
    let (dir, tmp) = temporary(path);
    let result = (|| {
        let file = EarlyWriteback {
            file: std::fs::File::create(&tmp)?,
            written: 0,
            started: 0,
        };
        // The bytes are hashed and written by a thread of their own while
        // the next ones are made (the caller's thread only fills buffers).
        let (digest, bytes, file) = std::thread::scope(|scope| -> std::io::Result<_> {
            let (mut out, sink) = Pipe::new(scope, file);
            let made = write(&mut out);
            out.finish(sink, made)
        })?;
        let file = file.file;
        if sync_now {
            file.sync_all()?;
        } else {
            start_writeback(&file);
        }
        std::fs::rename(&tmp, path)?;
        if sync_now {
            sync_dir(dir);
        }
        Ok((crate::text::hash::hex(&digest), bytes))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io(path))
}

/// Bytes of one buffer of a [`Pipe`].
const PIPE_BUFFER: usize = 1 << 20;
/// Filled buffers a [`Pipe`] may have waiting for its thread.
const PIPE_DEPTH: usize = 2;

/// What a [`Pipe`]'s thread returns: the SHA-256, the bytes written and the
/// file.
type Sunk = (sha2::digest::Output<sha2::Sha256>, u64, EarlyWriteback);

/// A [`Pipe`]'s thread.
type Sink<'scope> = std::thread::ScopedJoinHandle<'scope, std::io::Result<Sunk>>;

/// A writer that fills buffers and hands them to a thread that hashes
/// (SHA-256) and writes them to the file, handing each back to be filled
/// again: at most [`PIPE_DEPTH`] + 2 buffers exist (one being written,
/// [`PIPE_DEPTH`] waiting, one being filled).
struct Pipe {
    buffer: Vec<u8>,
    full: std::sync::mpsc::SyncSender<Vec<u8>>,
    empty: std::sync::mpsc::Receiver<Vec<u8>>,
    /// Whether the thread was found stopped (by its error) on a send.
    stopped: bool,
}

impl Pipe {
    /// The writer and its thread (in `scope`), which writes to `file`.
    fn new<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        mut file: EarlyWriteback,
    ) -> (Pipe, Sink<'scope>) {
        let (full, filled) = std::sync::mpsc::sync_channel::<Vec<u8>>(PIPE_DEPTH);
        let (emptied, empty) = std::sync::mpsc::channel::<Vec<u8>>();
        let sink = scope.spawn(move || {
            let mut hasher = <sha2::Sha256 as sha2::Digest>::new();
            let mut bytes = 0u64;
            for mut buffer in filled {
                sha2::Digest::update(&mut hasher, &buffer);
                file.write_all(&buffer)?;
                bytes += buffer.len() as u64;
                buffer.clear();
                // The writer may be gone (done, or failed): nothing to hand back.
                let _ = emptied.send(buffer);
            }
            file.flush()?;
            Ok((sha2::Digest::finalize(hasher), bytes, file))
        });
        let pipe = Pipe {
            buffer: Vec::with_capacity(PIPE_BUFFER),
            full,
            empty,
            stopped: false,
        };
        (pipe, sink)
    }

    /// Hands the buffer to the thread (waiting while [`PIPE_DEPTH`] are
    /// queued), then takes an empty one: one handed back, else a new one.
    fn send(&mut self) -> std::io::Result<()> {
        let full = std::mem::take(&mut self.buffer);
        if self.full.send(full).is_err() {
            self.stopped = true;
            return Err(std::io::Error::other("the file's writing thread stopped"));
        }
        self.buffer = self
            .empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(PIPE_BUFFER));
        Ok(())
    }

    /// Hands over what is left (unless the caller failed: `made`) and
    /// waits for the thread. The result: the caller's own error, else the
    /// thread's, else what the thread wrote.
    fn finish(mut self, sink: Sink<'_>, made: std::io::Result<()>) -> std::io::Result<Sunk> {
        let sent = match made {
            Ok(()) if !self.buffer.is_empty() => self.send(),
            other => other,
        };
        drop(self.full);
        let sunk = sink
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the file's writing thread panicked")));
        match (sent, sunk) {
            // Only that the thread stopped: its own error says why.
            (Err(_), Err(e)) if self.stopped => Err(e),
            (Err(e), _) | (Ok(()), Err(e)) => Err(e),
            (Ok(()), Ok(sunk)) => Ok(sunk),
        }
    }
}

impl Write for Pipe {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = PIPE_BUFFER - self.buffer.len();
        let n = buf.len().min(room);
        self.buffer.extend_from_slice(&buf[..n]);
        if self.buffer.len() == PIPE_BUFFER {
            self.send()?;
        }
        Ok(n)
    }

    /// Nothing to do: the thread writes each buffer as it comes, and what
    /// is left is handed over by [`Pipe::finish`].
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `x` with `digits` decimals, never `-0.000` (a value that rounds to zero
/// is shown as zero) and never NaN or inf (shown as `n/a`).
///
/// ```
/// use corpus_eval::report::fixed;
/// assert_eq!(fixed(-3e-17, 4), "0.0000");
/// assert_eq!(fixed(-0.0, 2), "0.00");
/// assert_eq!(fixed(0.12345, 3), "0.123");
/// assert_eq!(fixed(f64::NAN, 3), "n/a");
/// ```
pub fn fixed(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    let s = format!("{x:.digits$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => s,
    }
}

/// Where a write to `path` goes: `path` itself, or, when `path` is a
/// symbolic link, the file it points to (links followed to the end, a
/// relative target taken from the link's folder), checked by
/// [`check_destination`]. Writes go *through* a link: its target gets the
/// new bytes (atomically, renamed into place beside the target) and the
/// link stays a link, as for a write into an existing regular file.
pub fn destination(path: &Path) -> Result<PathBuf, ReportError> {
    let mut at = path.to_path_buf();
    // As many links as the kernel follows (ELOOP past 40).
    for _ in 0..40 {
        match at.symlink_metadata() {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&at).map_err(io(path))?;
                at = match at.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => {
                check_destination(&at)?;
                return Ok(at);
            }
        }
    }
    Err(io(path)(std::io::Error::other(
        "too many levels of symbolic links",
    )))
}

/// Checks, before a run, that a file can be written at `path` as
/// [`write_atomic`] writes it: the destination (links followed) is a
/// regular file or new, it is not in `/proc`, `/dev` or `/sys`, and its
/// folder takes a new file (one is made and removed again: a staging file
/// stands there while the file is written). An error says what cannot be
/// written and why.
pub fn check_writable(path: &Path) -> Result<(), ReportError> {
    let at = destination(path)?;
    let (dir, tmp) = temporary(&at);
    let denied = |why: String| ReportError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(why),
    };
    let resolved = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if ["/proc", "/dev", "/sys"]
        .iter()
        .any(|root| resolved.starts_with(root))
    {
        return Err(denied(format!(
            "{} is a system folder (/proc, /dev, /sys): no file is written there",
            resolved.display()
        )));
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
    {
        Ok(f) => {
            drop(f);
            let _ = std::fs::remove_file(&tmp);
            Ok(())
        }
        Err(e) => Err(denied(format!(
            "the folder {} takes no new file (the file is written beside it first, then renamed): {e}",
            resolved.display()
        ))),
    }
}

/// An output destination must be a regular file or not exist yet: a
/// device, FIFO, socket or folder is refused (the rename of an atomic write
/// would replace it). A link is judged by what it points to.
pub fn check_destination(path: &Path) -> Result<(), ReportError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(m) => Err(ReportError::NotRegular {
            path: path.to_path_buf(),
            what: kind_of(&m.file_type()),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(path)(e)),
    }
}

fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Starts writing a whole file's data to disk without waiting
/// ([`crate::sys::io::start_writeback`]).
fn start_writeback(file: &std::fs::File) {
    crate::sys::io::start_writeback(file, 0, 0);
}

/// Bytes a streamed file's writeback is started for at a time, while the
/// rest is still being written.
const WRITEBACK_STEP: u64 = 4 << 20;

/// A file being written whose data starts going to disk every
/// [`WRITEBACK_STEP`] bytes, so that the fsync at the end of a large file
/// finds most of it on disk already.
struct EarlyWriteback {
    file: std::fs::File,
    written: u64,
    started: u64,
}

impl Write for EarlyWriteback {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= WRITEBACK_STEP {
            crate::sys::io::start_writeback(&self.file, self.started, self.written - self.started);
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Flushes a folder's entries (a rename into it) to disk; best effort (not
/// every file system can sync a folder).
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Serializes `value` as pretty JSON and writes it atomically.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), ReportError> {
    write_json_file(path, value, true)
}

/// [`write_json`], syncing now or leaving it to the caller (see
/// [`write_file`]).
pub fn write_json_file<T: serde::Serialize>(
    path: &Path,
    value: &T,
    sync_now: bool,
) -> Result<(), ReportError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| ReportError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    bytes.push(b'\n');
    write_file(path, &bytes, sync_now)
}

/// Writes `items` as a pretty JSON array (byte for byte what
/// [`write_json`] writes for the slice), serializing the items in parallel.
pub fn write_json_array<T: serde::Serialize + Sync>(
    path: &Path,
    items: &[T],
) -> Result<(), ReportError> {
    write_json_array_file(path, items, true)
}

/// [`write_json_array`], syncing now or leaving it to the caller (see
/// [`write_file`]).
pub fn write_json_array_file<T: serde::Serialize + Sync>(
    path: &Path,
    items: &[T],
    sync_now: bool,
) -> Result<(), ReportError> {
    use rayon::prelude::*;
    let err = |e: serde_json::Error| ReportError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    if items.is_empty() {
        return write_file(path, b"[]\n", sync_now);
    }
    let parts: Vec<Vec<u8>> = items
        .par_iter()
        .map(|item| {
            let one = serde_json::to_vec_pretty(item)?;
            let mut out = Vec::with_capacity(one.len() + one.len() / 8);
            for (i, line) in one.split(|&b| b == b'\n').enumerate() {
                if i > 0 {
                    out.push(b'\n');
                }
                out.extend_from_slice(b"  ");
                out.extend_from_slice(line);
            }
            Ok(out)
        })
        .collect::<Result<_, serde_json::Error>>()
        .map_err(err)?;
    let mut bytes = Vec::with_capacity(parts.iter().map(|p| p.len() + 2).sum::<usize>() + 4);
    bytes.extend_from_slice(b"[\n");
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            bytes.extend_from_slice(b",\n");
        }
        bytes.extend_from_slice(p);
    }
    bytes.extend_from_slice(b"\n]\n");
    write_file(path, &bytes, sync_now)
}

pub use crate::text::clock::{folder_timestamp, rfc3339};

/// Age after which a staging folder whose process is gone is removed.
pub const STALE_PARTIAL_AGE: std::time::Duration = std::time::Duration::from_secs(86_400);

/// Removes hidden `.….partial` staging folders of killed runs from
/// `parent`: older than [`STALE_PARTIAL_AGE`] and whose process (the pid in
/// the name) is gone; staging folders named before the pid was recorded go
/// on age alone. Each removal is said on stderr. Best effort: whatever
/// cannot be read or removed is left.
pub fn sweep_stale_partials(parent: &Path, now: SystemTime) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(parent) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(staging_pid) else {
            continue;
        };
        // symlink_metadata: a link named like a staging folder is left alone.
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        let age = meta
            .modified()
            .ok()
            .and_then(|t| now.duration_since(t).ok());
        let old = age.is_some_and(|a| a >= STALE_PARTIAL_AGE);
        let gone = pid.is_none_or(|p| p != std::process::id() && !process_alive(p));
        if meta.is_dir() && old && gone && std::fs::remove_dir_all(entry.path()).is_ok() {
            errln!(
                "note: removed {} (the staging folder of a run killed {} h ago)",
                entry.path().display(),
                age.map_or(0, |a| a.as_secs() / 3600)
            );
            removed.push(entry.path());
        }
    }
    removed
}

/// `Some(Some(pid))` for `.<stamp>-<id>.<pid>.partial`, `Some(None)` for the
/// older `.<stamp>-<id>.partial`, `None` for anything else.
fn staging_pid(name: &str) -> Option<Option<u32>> {
    let inner = name.strip_prefix('.')?.strip_suffix(".partial")?;
    let (run, pid) = match inner.rsplit_once('.') {
        Some((run, pid)) => (run, Some(pid.parse::<u32>().ok()?)),
        None => (inner, None),
    };
    // <YYYYMMDDTHHMMSSZ>-<6 hex>
    let (stamp, id) = run.split_once('-')?;
    let ok = stamp.len() == 16
        && stamp.ends_with('Z')
        && id.len() == 6
        && id.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then_some(pid)
}

/// Whether a process with this pid exists (Linux: /proc; elsewhere assumed
/// alive, so nothing is removed by mistake).
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

/// A run folder being written: files go to a staging folder until
/// [`RunFolder::finish`] renames it into place.
#[derive(Debug)]
pub struct RunFolder {
    staging: PathBuf,
    final_path: PathBuf,
}

impl RunFolder {
    /// Creates `parent/.<timestamp>-<id>.partial/`, choosing an id that no
    /// existing run uses.
    pub fn create(parent: &Path, started: SystemTime) -> Result<RunFolder, ReportError> {
        if let Ok(m) = std::fs::metadata(parent) {
            if !m.is_dir() {
                let what = if m.is_file() {
                    "a regular file"
                } else {
                    kind_of(&m.file_type())
                };
                return Err(ReportError::NotAFolder {
                    path: parent.to_path_buf(),
                    what,
                });
            }
        }
        std::fs::create_dir_all(parent).map_err(io(parent))?;
        sweep_stale_partials(parent, SystemTime::now());
        let stamp = folder_timestamp(started);
        let nanos = started
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        for attempt in 0u32..1000 {
            let seed = format!("{nanos}-{}-{attempt}", std::process::id());
            let id = format!("{:06x}", fnv1a(seed.as_bytes()) & 0xff_ffff);
            let name = format!("{stamp}-{id}");
            let final_path = parent.join(&name);
            let staging = parent.join(format!(".{name}.{}.partial", std::process::id()));
            if final_path.exists() {
                continue;
            }
            match std::fs::create_dir(&staging) {
                Ok(()) => {
                    return Ok(RunFolder {
                        staging,
                        final_path,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(&staging)(e)),
            }
        }
        Err(io(parent)(std::io::Error::other("no free run folder name")))
    }

    /// Path of a file inside the (staging) folder.
    pub fn file(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// The staging folder (where files are written until it is finished).
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// The path the folder will have once finished.
    pub fn final_path(&self) -> &Path {
        &self.final_path
    }

    /// Renames the staging folder into place and returns its path.
    pub fn finish(self) -> Result<PathBuf, ReportError> {
        if self.final_path.exists() {
            return Err(io(&self.final_path)(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "run folder already exists",
            )));
        }
        // The folder's files are durable before it becomes visible, and its
        // new name is durable before the run reports it.
        sync_dir(&self.staging);
        std::fs::rename(&self.staging, &self.final_path).map_err(io(&self.final_path))?;
        if let Some(parent) = self.final_path.parent() {
            sync_dir(parent);
        }
        Ok(self.final_path)
    }

    /// Removes the staging folder (after a failure).
    pub fn abandon(self) {
        let _ = std::fs::remove_dir_all(&self.staging);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_through_the_writing_thread_in_many_buffers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        // Writes of odd sizes, over many more buffers than the pipe holds.
        let piece: Vec<u8> = (0..7_919u32).map(|i| (i % 251) as u8).collect();
        let mut want = Vec::new();
        let (sha, bytes) = write_streamed(&path, false, |out| {
            for k in 0..800 {
                let part = &piece[..piece.len() - k % 17];
                out.write_all(part)?;
                want.extend_from_slice(part);
            }
            Ok(())
        })
        .unwrap();
        assert!(want.len() > 6 * PIPE_BUFFER);
        assert_eq!(std::fs::read(&path).unwrap(), want);
        assert_eq!(bytes, want.len() as u64);
        assert_eq!(sha, crate::text::hash::sha256_hex(&want));
        // The caller's error, after buffers went to the thread: reported
        // as it is, and no file (nor temporary) is left.
        let failed = dir.path().join("failed.txt");
        let err = write_streamed(&failed, false, |out| {
            for _ in 0..3 * PIPE_BUFFER / piece.len() {
                out.write_all(&piece)?;
            }
            Err(std::io::Error::other("no more rows"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("no more rows"), "{err}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from("big.txt")]);
    }

    #[test]
    fn parallel_array_matches_serde_pretty() {
        let dir = tempfile::tempdir().unwrap();
        let items = vec![
            serde_json::json!({"a": 1, "b": [1, 2, {"c": "x\ny"}], "d": {}}),
            serde_json::json!({"e": []}),
        ];
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        write_json(&a, &items).unwrap();
        write_json_array(&b, &items).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let empty: Vec<serde_json::Value> = Vec::new();
        write_json(&a, &empty).unwrap();
        write_json_array(&b, &empty).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    }
    use std::time::Duration;

    #[test]
    fn utc_formatting() {
        let t = UNIX_EPOCH + Duration::from_secs(1_795_411_260) + Duration::from_millis(5);
        assert_eq!(rfc3339(t), "2026-11-23T05:21:00.005Z");
        assert_eq!(folder_timestamp(UNIX_EPOCH), "19700101T000000Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00.000Z"
        );
    }

    #[test]
    fn sha256_known_value() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn run_folders_never_collide() {
        let dir = tempfile::tempdir().unwrap();
        let t = SystemTime::now();
        let a = RunFolder::create(dir.path(), t).unwrap();
        write_atomic(&a.file("x.json"), b"1").unwrap();
        let a = a.finish().unwrap();
        let b = RunFolder::create(dir.path(), t).unwrap().finish().unwrap();
        assert_ne!(a, b);
        assert_eq!(std::fs::read(a.join("x.json")).unwrap(), b"1");
    }
}
