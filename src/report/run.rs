//! The one run writer: every run-producing command writes its folder through
//! [`RunWriter`].
//!
//! 1. [`RunWriter::create`] makes the hidden staging folder and writes
//!    `manifest.json` first, with `status: "running"`, the resolved config
//!    and the inputs with their sha256;
//! 2. each output is written atomically and recorded in the manifest's
//!    `files` with its sha256 and size, in the order written;
//! 3. [`RunWriter::finish`] writes the manifest again (`status:
//!    "complete"`, the end time, every output) and renames the folder into
//!    place. A writer dropped before `finish` (an error on the way) removes
//!    its staging folder: a run folder is whole or absent.
//!
//! ```
//! use corpus_eval::report::manifest::Manifest;
//! use corpus_eval::report::run::RunWriter;
//! use std::time::SystemTime;
//!
//! let parent = tempfile::tempdir().unwrap();
//! let started = SystemTime::now();
//! let manifest = Manifest::new("example", Default::default(), serde_json::json!({}), "sig".into(), started);
//! let mut run = RunWriter::create(parent.path(), started, manifest).unwrap();
//! run.write("a.txt", b"hello").unwrap();
//! let folder = run.finish().unwrap();
//! let m: serde_json::Value =
//!     serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
//! assert_eq!(m["status"], "complete");
//! assert_eq!(m["outputs"], serde_json::json!(["a.txt", "manifest.json"]));
//! assert_eq!(m["files"]["a.txt"]["bytes"], 5);
//! ```

use super::manifest::{Manifest, OutputFile};
use super::{write_file, write_json_array_file, write_json_file, ReportError, RunFolder};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A run folder being written (see the module documentation).
#[derive(Debug)]
pub struct RunWriter {
    folder: Option<RunFolder>,
    /// A live folder (written in place, never removed): `rag run`'s, which
    /// is its own journal and must survive a kill.
    live: Option<PathBuf>,
    manifest: Manifest,
    /// Staging folders: a thread that fsyncs each file once written.
    syncer: Option<Syncer>,
}

/// A thread that flushes each file sent to it to disk, while the run goes
/// on computing: by [`RunWriter::finish`], whose fsync of every file is
/// what makes the folder durable (and reports errors), most data is on
/// disk already and the journal commits it needed are done. Best effort:
/// its own errors are left for that fsync to meet.
#[derive(Debug)]
struct Syncer {
    files: std::sync::mpsc::Sender<PathBuf>,
    thread: std::thread::JoinHandle<()>,
}

impl Syncer {
    /// The thread, or None when it cannot be started.
    fn start() -> Option<Syncer> {
        let (files, received) = std::sync::mpsc::channel::<PathBuf>();
        let thread = std::thread::Builder::new()
            .name("run-folder-sync".into())
            .spawn(move || {
                for path in received {
                    if let Ok(file) = std::fs::File::open(&path) {
                        let _ = file.sync_all();
                    }
                }
            })
            .ok()?;
        Some(Syncer { files, thread })
    }

    /// Waits until every file sent so far is flushed.
    fn wait(self) {
        drop(self.files);
        let _ = self.thread.join();
    }
}

/// The manifest's own file name.
pub const MANIFEST: &str = "manifest.json";

/// How [`RunWriter::write_streamed_all`] writes one file: given the file's
/// (buffered, hashing) writer, possibly on another thread.
pub type StreamWrite<'a> =
    Box<dyn FnOnce(&mut dyn std::io::Write) -> std::io::Result<()> + Send + 'a>;

impl RunWriter {
    /// Creates the staging folder under `parent` and writes the manifest
    /// with status `running`.
    pub fn create(
        parent: &Path,
        started: SystemTime,
        manifest: Manifest,
    ) -> Result<RunWriter, ReportError> {
        let folder = RunFolder::create(parent, started)?;
        Self::start(Some(folder), None, manifest)
    }

    /// Writes the manifest (status `running`) into an existing, visible
    /// folder that is written in place (`rag run`'s). `finish` marks it
    /// complete; an interrupted session leaves it `running`, and nothing is
    /// ever removed.
    pub fn live(folder: &Path, manifest: Manifest) -> Result<RunWriter, ReportError> {
        Self::start(None, Some(folder.to_path_buf()), manifest)
    }

    fn start(
        folder: Option<RunFolder>,
        live: Option<PathBuf>,
        mut manifest: Manifest,
    ) -> Result<RunWriter, ReportError> {
        manifest.status = "running".into();
        manifest.finished_at = None;
        manifest.outputs.clear();
        manifest.files.clear();
        let syncer = if folder.is_some() {
            Syncer::start()
        } else {
            None
        };
        let writer = RunWriter {
            folder,
            live,
            manifest,
            syncer,
        };
        write_json_file(&writer.file(MANIFEST), &writer.manifest, writer.sync_now())?;
        Ok(writer)
    }

    /// Path of a file in the (staging) folder, for writers that need one.
    pub fn file(&self, name: &str) -> PathBuf {
        match (&self.folder, &self.live) {
            (Some(f), _) => f.file(name),
            (None, Some(dir)) => dir.join(name),
            // Only `finish` empties both, and it consumes the writer.
            (None, None) => PathBuf::from(name),
        }
    }

    /// The path the folder has, or will have once finished.
    pub fn final_path(&self) -> &Path {
        match (&self.folder, &self.live) {
            (Some(f), _) => f.final_path(),
            (None, Some(dir)) => dir,
            (None, None) => Path::new(""),
        }
    }

    /// The manifest, to record settings learned while the run went on.
    pub fn manifest_mut(&mut self) -> &mut Manifest {
        &mut self.manifest
    }

    /// Records a file already written into the folder (a chart drawn to
    /// [`RunWriter::file`]) with its sha256.
    pub fn record(&mut self, name: &str) -> Result<(), ReportError> {
        let path = self.file(name);
        let bytes = std::fs::read(&path).map_err(|source| ReportError::Io { path, source })?;
        self.note(name, &bytes);
        Ok(())
    }

    fn note(&mut self, name: &str, bytes: &[u8]) {
        let sha256 = crate::text::hash::sha256_hex(bytes);
        self.recorded(name, sha256, bytes.len() as u64);
    }

    /// Records a file just written (once in `outputs`, its hash and size in
    /// `files`) and hands it to the syncer.
    fn recorded(&mut self, name: &str, sha256: String, bytes: u64) {
        self.sync_later(name);
        if !self.manifest.outputs.iter().any(|o| o == name) {
            self.manifest.outputs.push(name.to_string());
        }
        self.manifest
            .files
            .insert(name.to_string(), OutputFile { sha256, bytes });
    }

    /// Writes `bytes` as `name` (atomically) and records it.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        write_file(&self.file(name), bytes, self.sync_now())?;
        self.note(name, bytes);
        Ok(())
    }

    /// Writes `value` as pretty JSON and records it.
    pub fn write_json<T: serde::Serialize>(
        &mut self,
        name: &str,
        value: &T,
    ) -> Result<(), ReportError> {
        write_json_file(&self.file(name), value, self.sync_now())?;
        self.record(name)
    }

    /// Writes `value` as pretty JSON streamed to the file (for large
    /// documents: no copy of the text in memory, hashed as it is written)
    /// and records it; the same bytes as [`RunWriter::write_json`].
    pub fn write_json_streamed<T: serde::Serialize>(
        &mut self,
        name: &str,
        value: &T,
    ) -> Result<(), ReportError> {
        let (sha256, bytes) = super::write_json_streamed(&self.file(name), value, self.sync_now())?;
        self.recorded(name, sha256, bytes);
        Ok(())
    }

    /// Writes a file through `write` (a buffered writer that hashes as it
    /// goes) and records it.
    pub fn write_streamed(
        &mut self,
        name: &str,
        write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<(), ReportError> {
        let (sha256, bytes) = super::write_streamed(&self.file(name), self.sync_now(), write)?;
        self.recorded(name, sha256, bytes);
        Ok(())
    }

    /// Writes several files at once on the thread pool, each streamed
    /// through its `write` as [`RunWriter::write_streamed`] does, and records
    /// them in the order given. On error (the first failed file's, in that
    /// order) none of them is left in the folder. Names must differ.
    pub fn write_streamed_all(
        &mut self,
        files: Vec<(&str, StreamWrite<'_>)>,
    ) -> Result<(), ReportError> {
        use rayon::prelude::*;
        let sync_now = self.sync_now();
        let names: Vec<&str> = files.iter().map(|&(name, _)| name).collect();
        debug_assert!(
            names
                .iter()
                .enumerate()
                .all(|(i, n)| !names[..i].contains(n)),
            "one file per name: {names:?}"
        );
        let paths: Vec<PathBuf> = names.iter().map(|name| self.file(name)).collect();
        // Each file's (SHA-256, size), in the order given.
        let written: Vec<Result<(String, u64), ReportError>> = files
            .into_par_iter()
            .zip(paths.par_iter())
            .map(|((_, write), path)| super::write_streamed(path, sync_now, write))
            .collect();
        if written.iter().any(Result::is_err) {
            // Whole or absent: the files written are not left unrecorded.
            for (path, w) in paths.iter().zip(&written) {
                if w.is_ok() {
                    let _ = std::fs::remove_file(path);
                }
            }
        }
        let written = written.into_iter().collect::<Result<Vec<_>, _>>()?;
        for (name, (sha256, bytes)) in names.into_iter().zip(written) {
            self.recorded(name, sha256, bytes);
        }
        Ok(())
    }

    /// Writes a large array as pretty JSON (items serialized in parallel)
    /// and records it.
    pub fn write_json_array<T: serde::Serialize + Sync>(
        &mut self,
        name: &str,
        items: &[T],
    ) -> Result<(), ReportError> {
        write_json_array_file(&self.file(name), items, self.sync_now())?;
        self.record(name)
    }

    /// Draws a file with `draw` (given its path) and records it.
    pub fn render(
        &mut self,
        name: &str,
        draw: impl FnOnce(&Path) -> Result<(), ReportError>,
    ) -> Result<(), ReportError> {
        draw(&self.file(name))?;
        self.record(name)
    }

    /// Writes the final manifest (status `complete`, end time, outputs)
    /// and renames the folder into place; returns its path.
    pub fn finish(mut self) -> Result<PathBuf, ReportError> {
        // A staging folder whose rename fails is removed on drop.
        self.manifest.status = "complete".into();
        self.manifest.finished_at = Some(super::rfc3339(SystemTime::now()));
        self.manifest.outputs.push(MANIFEST.into());
        if let Some(syncer) = self.syncer.take() {
            syncer.wait();
        }
        if let Some(folder) = &self.folder {
            sync_files(folder.staging())?;
        }
        write_json_file(&self.file(MANIFEST), &self.manifest, true)?;
        if let Some(dir) = self.live.take() {
            point_latest(&dir);
            return Ok(dir);
        }
        match self.folder.take() {
            Some(folder) => folder.finish().inspect(|dir| point_latest(dir)),
            None => Err(ReportError::Io {
                path: PathBuf::from(MANIFEST),
                source: std::io::Error::other("run folder already finished"),
            }),
        }
    }
}

/// The name of the link in a folder of run folders (`--out`) to the run
/// folder finished last: `reports/latest` names the newest run, so a
/// command that names it (`compare a=runs/a/latest b=runs/b/latest`) is
/// safe to repeat however many runs the folder holds.
pub const LATEST: &str = "latest";

/// Points `<parent>/latest` at a finished run folder: a relative link,
/// replaced atomically (a new link renamed over it). Best effort (a run is
/// complete without it); an entry `latest` that is not a link is left
/// alone, and so is one that names a run started in a later second (run
/// folder names start with their UTC start time to the second, then a
/// random suffix: two runs of one second are told apart by which finishes
/// last, not by the suffix).
fn point_latest(folder: &Path) {
    #[cfg(unix)]
    {
        let (Some(parent), Some(name)) = (folder.parent(), folder.file_name()) else {
            return;
        };
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        let link = parent.join(LATEST);
        if let Ok(m) = link.symlink_metadata() {
            let newer =
                std::fs::read_link(&link).is_ok_and(|t| started(t.as_os_str()) > started(name));
            if !m.file_type().is_symlink() || newer {
                return;
            }
        }
        let tmp = parent.join(format!(".{LATEST}.{}.tmp", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        if std::os::unix::fs::symlink(name, &tmp).is_err() || std::fs::rename(&tmp, &link).is_err()
        {
            let _ = std::fs::remove_file(&tmp);
        }
    }
    #[cfg(not(unix))]
    let _ = folder;
}

/// The start time a run folder's name begins with (`20261128T190440Z` of
/// `20261128T190440Z-6ff19d`; the whole name when it has no suffix).
#[cfg(unix)]
fn started(name: &std::ffi::OsStr) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    let bytes = name.as_bytes();
    bytes.split(|&b| b == b'-').next().unwrap_or(bytes)
}

impl RunWriter {
    /// Whether each file is flushed to disk as it is written: in a live
    /// folder yes; a staging folder flushes all its files at once in
    /// [`RunWriter::finish`], before it becomes visible.
    fn sync_now(&self) -> bool {
        self.folder.is_none()
    }

    /// Hands a file just written to the syncer thread (staging folders).
    fn sync_later(&self, name: &str) {
        if let Some(syncer) = &self.syncer {
            let _ = syncer.files.send(self.file(name));
        }
    }
}

/// Flushes every file of `dir` to disk, in parallel.
fn sync_files(dir: &Path) -> Result<(), ReportError> {
    use rayon::prelude::*;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReportError::Io { path, source }
    };
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.par_iter().try_for_each(|p| {
        std::fs::File::open(p)
            .and_then(|f| f.sync_all())
            .map_err(io(p))
    })
}

impl Drop for RunWriter {
    fn drop(&mut self) {
        if let Some(folder) = self.folder.take() {
            folder.abandon();
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    #[test]
    fn latest_is_the_run_finished_last_within_a_second_and_never_an_older_second() {
        let dir = tempfile::tempdir().unwrap();
        let named = |n: &str| {
            let p = dir.path().join(n);
            std::fs::create_dir_all(&p).unwrap();
            super::point_latest(&p);
            std::fs::read_link(dir.path().join(super::LATEST)).unwrap()
        };
        assert_eq!(
            named("20260101T000000Z-ffffff"),
            Path::new("20260101T000000Z-ffffff")
        );
        // Same second, a suffix that sorts lower: it finished last.
        assert_eq!(
            named("20260101T000000Z-000000"),
            Path::new("20260101T000000Z-000000")
        );
        // An earlier second finishing later keeps the link where it is.
        assert_eq!(
            named("20251231T235959Z-aaaaaa"),
            Path::new("20260101T000000Z-000000")
        );
        assert_eq!(
            named("20260101T000001Z-111111"),
            Path::new("20260101T000001Z-111111")
        );
    }

    use super::*;

    fn manifest() -> Manifest {
        Manifest::new(
            "t",
            Default::default(),
            serde_json::json!({}),
            "sig".into(),
            SystemTime::now(),
        )
    }

    #[test]
    fn manifest_first_then_complete() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = RunWriter::create(dir.path(), SystemTime::now(), manifest()).unwrap();
        let first: serde_json::Value =
            serde_json::from_slice(&std::fs::read(w.file(MANIFEST)).unwrap()).unwrap();
        assert_eq!(first["status"], "running");
        assert!(first["finished_at"].is_null());
        w.write_json("s.json", &serde_json::json!({"a": 1}))
            .unwrap();
        let bytes = std::fs::read(w.file("s.json")).unwrap();
        let path = w.finish().unwrap();
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path.join(MANIFEST)).unwrap()).unwrap();
        assert_eq!(m["status"], "complete");
        assert!(m["finished_at"].is_string());
        assert_eq!(
            m["files"]["s.json"]["sha256"],
            crate::text::hash::sha256_hex(&bytes)
        );
    }

    #[test]
    fn files_written_together_are_recorded_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = RunWriter::create(dir.path(), SystemTime::now(), manifest()).unwrap();
        let big = "row,1\n".repeat(200_000);
        w.write_streamed_all(vec![
            ("b.csv", Box::new(|o| o.write_all(big.as_bytes()))),
            ("a.json", Box::new(|o| o.write_all(b"{}\n"))),
            ("c.txt", Box::new(|_| Ok(()))),
        ])
        .unwrap();
        assert_eq!(std::fs::read(w.file("b.csv")).unwrap(), big.as_bytes());
        // A failing writer fails the call, and leaves none of its files.
        let failed = w.write_streamed_all(vec![
            ("d.txt", Box::new(|o| o.write_all(b"d"))),
            ("e.txt", Box::new(|_| Err(std::io::Error::other("no room")))),
        ]);
        assert!(failed.is_err());
        assert!(!w.file("d.txt").exists() && !w.file("e.txt").exists());
        let path = w.finish().unwrap();
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path.join(MANIFEST)).unwrap()).unwrap();
        let outputs: Vec<&str> = m["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|o| o.as_str())
            .filter(|o| *o != MANIFEST)
            .collect();
        assert_eq!(outputs, ["b.csv", "a.json", "c.txt"]);
        assert_eq!(
            m["files"]["b.csv"]["sha256"],
            crate::text::hash::sha256_hex(big.as_bytes())
        );
        assert_eq!(m["files"]["c.txt"]["bytes"], 0);
    }

    #[test]
    fn dropped_writer_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut w = RunWriter::create(dir.path(), SystemTime::now(), manifest()).unwrap();
            w.write("x", b"1").unwrap();
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
