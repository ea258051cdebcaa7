//! Test harness: runs the built binary in a temp dir named after the test,
//! and prints the command, cwd, stdout and stderr when an expectation fails.

#![allow(dead_code)]

pub mod judge_server;
pub mod rag_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Root of the repository (for sample data and fixtures).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub use rag_server::{encodings, escaped_encodings};

/// The sample questions and transcripts (paths as text): the main job's
/// bundled inputs.
pub fn sample() -> (String, String) {
    (
        repo()
            .join("evaluation/data_fixture.json")
            .display()
            .to_string(),
        repo().join("datasets/corpus.json").display().to_string(),
    )
}

/// A fixture path.
pub fn fixture(rel: &str) -> PathBuf {
    repo().join("fixtures").join(rel)
}

/// The commands that may load the embedding model (`rerun` and `merge`
/// run them again).
const MODEL_COMMANDS: [&str; 7] = [
    "similarity",
    "embed",
    "judge-answers",
    "threshold",
    "text-eval",
    "rerun",
    "merge",
];

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
        self.run_env(args, &[])
    }

    /// A `corpus-eval ARGS` command with the temp dir as cwd, the judge's
    /// and the model's environment variables cleared and `env` set.
    pub fn command<S: AsRef<std::ffi::OsStr>>(&self, args: &[S], env: &[(&str, &str)]) -> Command {
        // A command that may load the embedding model finds it in the
        // project's models/ folder: it is fetched first, once, through the
        // one helper (a fresh clone has none), so that no test passes or
        // fails by whether another test fetched it before.
        let first = args
            .first()
            .map(|a| a.as_ref().to_string_lossy().into_owned());
        if first
            .as_deref()
            .is_some_and(|c| MODEL_COMMANDS.contains(&c))
        {
            model_dir();
        }
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_corpus-eval"));
        cmd.args(args).current_dir(self.path());
        for k in [
            "CORPUS_EVAL_JUDGE_KEY",
            "OPENAI_API_KEY",
            "CORPUS_EVAL_JUDGE_URL",
            "CORPUS_EVAL_MODEL_DIR",
            "EVALUATION_API_AUTH",
            "EVALUATION_API_URL",
        ] {
            cmd.env_remove(k);
        }
        // Judge verdicts are cached per test, never in the user's cache.
        cmd.env("XDG_CACHE_HOME", self.path().join(".cache"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs `corpus-eval ARGS` with extra environment variables (see
    /// [`Dir::command`]).
    pub fn run_env<S: AsRef<std::ffi::OsStr>>(&self, args: &[S], env: &[(&str, &str)]) -> Run {
        let bin = env!("CARGO_BIN_EXE_corpus-eval");
        let mut cmd = self.command(args, env);
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

    /// Runs `corpus-eval ARGS` (which must write its run folder under
    /// `parent`), expects exit 0, and returns the one run folder it added.
    pub fn run_new_folder(&self, args: &[&str], parent: &str) -> PathBuf {
        let before = self.run_folders(parent);
        self.run(args).expect_code(0);
        let mut new: Vec<PathBuf> = self
            .run_folders(parent)
            .into_iter()
            .filter(|f| !before.contains(f))
            .collect();
        assert_eq!(new.len(), 1, "one new run folder");
        new.remove(0)
    }

    /// The run folders under `parent` (relative to the temp dir).
    /// (the `latest` link to the newest is not one of them).
    pub fn run_folders(&self, parent: &str) -> Vec<PathBuf> {
        let p = self.path().join(parent);
        let mut v: Vec<PathBuf> = match std::fs::read_dir(&p) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .filter(|e| !e.file_type().is_ok_and(|t| t.is_symlink()))
                .map(|e| e.path())
                .collect(),
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

/// The embedding model folder the tests use: `models/all-MiniLM-L6-v2` in
/// the repository, fetched with `scripts/fetch-model` when absent. A test
/// that needs the model fails (never skips) when it cannot be had.
pub fn model_dir() -> PathBuf {
    static MODEL: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    MODEL
        .get_or_init(|| {
            let dir = repo().join("models").join("all-MiniLM-L6-v2");
            let complete = |d: &Path| {
                ["config.json", "tokenizer.json", "model.safetensors"]
                    .iter()
                    .all(|f| d.join(f).is_file())
            };
            if !complete(&dir) {
                let status = Command::new("bash")
                    .arg(repo().join("scripts").join("fetch-model"))
                    .current_dir(repo())
                    .status()
                    .expect("run scripts/fetch-model");
                assert!(
                    status.success(),
                    "scripts/fetch-model failed: the model tests need all-MiniLM-L6-v2"
                );
            }
            assert!(complete(&dir), "{} is incomplete", dir.display());
            dir
        })
        .clone()
}

/// Reads a JSON Lines file.
pub fn read_jsonl(p: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", p.display())))
        .collect()
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The DOM of a page after its scripts ran, in headless Chromium (None,
/// with a note, when no Chromium is installed, unless
/// CORPUS_EVAL_REQUIRE_CHROMIUM is set); `fragment` is added to the URL.
pub fn chromium_dom(page: &Path, fragment: &str) -> Option<String> {
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    let Some(browser) = browser else {
        assert!(
            std::env::var_os("CORPUS_EVAL_REQUIRE_CHROMIUM").is_none(),
            "CORPUS_EVAL_REQUIRE_CHROMIUM is set but no chromium is installed"
        );
        eprintln!("skipping the browser check: no chromium installed (CI installs it)");
        return None;
    };
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}{fragment}", page.display()))
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The arguments of `check-report` on the bundled sample report `report`
/// (evaluation/check-report/) with its transcripts and sources map, run
/// folders under `out` in `dir`, then `extra`.
pub fn sample_report(dir: &Dir, report: &str, out: &str, extra: &[&str]) -> Vec<String> {
    let sample = |name: &str| {
        repo()
            .join("evaluation/check-report")
            .join(name)
            .display()
            .to_string()
    };
    let mut a: Vec<String> = vec![
        "check-report".into(),
        sample(report),
        sample("transcripts"),
        "--sources".into(),
        sample("sources.csv"),
        "--out".into(),
        dir.path().join(out).display().to_string(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}
