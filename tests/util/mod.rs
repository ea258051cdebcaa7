//! Test harness: runs the built binary in a temp dir named after the test,
//! and prints the command, cwd, stdout and stderr when an expectation fails.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Root of the repository (for sample data and fixtures).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fixture path.
pub fn fixture(rel: &str) -> PathBuf {
    repo().join("fixtures").join(rel)
}

/// A temp folder for one test.
pub struct Dir {
    pub tmp: tempfile::TempDir,
}

/// Result of one run of the binary.
pub struct Run {
    pub cmd: String,
    pub out: Output,
}

impl Run {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
    pub fn code(&self) -> i32 {
        self.out.status.code().unwrap_or(-1)
    }
    fn report(&self) -> String {
        format!(
            "command: {}\nexit: {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.cmd,
            self.out.status,
            self.stdout(),
            self.stderr()
        )
    }
    /// Asserts the exit code and returns self.
    #[track_caller]
    pub fn expect_code(self, code: i32) -> Self {
        assert_eq!(self.code(), code, "unexpected exit code\n{}", self.report());
        self
    }
    /// Asserts stderr contains every needle.
    #[track_caller]
    pub fn expect_stderr(self, needles: &[&str]) -> Self {
        for n in needles {
            assert!(
                self.stderr().contains(n),
                "stderr lacks {n:?}\n{}",
                self.report()
            );
        }
        self
    }
}

impl Dir {
    pub fn new(name: &str) -> Dir {
        let tmp = tempfile::Builder::new()
            .prefix(&format!("corpus-eval-{name}-"))
            .tempdir()
            .expect("temp dir");
        Dir { tmp }
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Writes a file into the temp dir and returns its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let p = self.path().join(name);
        std::fs::write(&p, contents).expect("write fixture");
        p
    }

    /// Runs `corpus-eval ARGS` with the temp dir as cwd.
    pub fn run<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Run {
        let bin = env!("CARGO_BIN_EXE_corpus-eval");
        let mut cmd = Command::new(bin);
        cmd.args(args).current_dir(self.path());
        let shown = format!(
            "{bin} {} (cwd {})",
            args.iter()
                .map(|a| a.as_ref().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" "),
            self.path().display()
        );
        let out = cmd.output().expect("run binary");
        Run { cmd: shown, out }
    }

    /// The run folders under `parent` (relative to the temp dir).
    pub fn run_folders(&self, parent: &str) -> Vec<PathBuf> {
        let p = self.path().join(parent);
        let mut v: Vec<PathBuf> = match std::fs::read_dir(&p) {
            Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
            Err(_) => Vec::new(),
        };
        v.sort();
        v
    }
}

/// Reads a JSON file.
pub fn read_json(p: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", p.display()))
}

/// Decodes a PNG and returns (width, height).
pub fn png_size(p: &Path) -> (u32, u32) {
    let file = std::fs::File::open(p).unwrap_or_else(|e| panic!("open {}: {e}", p.display()));
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png frame decodes");
    // Not a blank image: more than one distinct byte value.
    let first = buf[0];
    assert!(buf.iter().any(|&b| b != first), "{} is blank", p.display());
    (info.width, info.height)
}
