//! `corpus-eval rag ask` and `corpus-eval rag run`: flags into
//! [`crate::jobs::rag::Config`], the batch's signals and progress bar, and
//! the terminal output. The auth string comes from $EVALUATION_API_AUTH only
//! and is never printed or written.

use super::{InputError, EXIT_OK, EXIT_RUNTIME};
use crate::jobs::rag::{client, finish_run, open_batch, resume, session_settings, Config, Resumed};
use crate::jobs::JobConfig;
use crate::rag::request_body;
use crate::rag::verify::check_citations;
use crate::report::rfc3339;
use crate::views::text::{mean_with_ci, rag_checks};
use serde_json::json;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

/// Exit code of an interrupted run (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The `rag` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum RagCommand {
    /// Ask one question; print the answer, each citation's verdict and the existence score.
    Ask(AskArgs),
    /// Ask every question of a file, journaling each outcome; resumable.
    Run(RunArgs),
}

/// Arguments of `rag`.
#[derive(Debug, clap::Args)]
pub struct RagArgs {
    /// ask or run.
    #[command(subcommand)]
    pub command: RagCommand,
}

/// The settings `rag ask` takes: those tagged `api`.
#[derive(Debug, Clone)]
pub struct Api;

impl super::flags::Pick for Api {
    fn pick(s: &crate::jobs::settings::Setting) -> bool {
        s.tag == Some("api")
    }
}

/// Arguments of `rag ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// The API settings' flags.
    #[command(flatten)]
    pub api: super::flags::Flags<Config, Api>,
    /// Print the reply and the checks as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `rag run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The main job's question file, or JSON/JSONL rows {"id", "question",
    /// "k"?, "filter"?, "model"?}. Not needed with --resume.
    pub questions: Option<PathBuf>,
    /// Continue the run in this folder: ask only the questions without a
    /// valid reply in its responses.jsonl.
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// Settings, `--junit`, `--no-progress`, `--json`.
    #[command(flatten)]
    pub job: super::JobArgs<Config>,
}

/// Runs `rag`.
pub fn run(args: RagArgs) -> anyhow::Result<u8> {
    match args.command {
        RagCommand::Ask(a) => ask(a),
        RagCommand::Run(a) => run_batch_command(a),
    }
}

fn ask(args: AskArgs) -> anyhow::Result<u8> {
    let config = args.api.over(Config::default())?;
    config.validate()?;
    let client = client(&config, None)?;
    let body = request_body(&args.question, config.k, &config.filters()?, &config.model);
    let outcome = client.ask(&body);
    let Some(reply) = &outcome.reply else {
        errln!(
            "error: {} ({} attempt(s))",
            outcome.error.as_deref().unwrap_or("no reply"),
            outcome.attempts
        );
        return Ok(EXIT_RUNTIME);
    };
    let level = config.match_level;
    let (checks, existence) = check_citations(reply, &config.check());
    // Checked on the reply as received; printed with the secrets redacted.
    let redactor = client.redactor();
    if args.json {
        let mut citations = serde_json::to_value(&checks)?;
        redactor.redact_value(&mut citations);
        outln!(
            "{}",
            json!({"request": body, "response": outcome.response, "attempts": outcome.attempts,
                   "elapsed_ms": outcome.elapsed_ms, "citations": citations, "existence_score": existence})
        );
        return Ok(EXIT_OK);
    }
    outln!(
        "{}",
        rag_checks(
            &redactor.redact(&reply.answer),
            &checks,
            existence,
            level,
            redactor
        )
    );
    Ok(EXIT_OK)
}

/// The question file and, on resume, what run.json holds.
fn questions_of(args: &RunArgs, config: &mut Config) -> anyhow::Result<(PathBuf, Option<Resumed>)> {
    match &args.resume {
        Some(dir) => {
            let r = resume(dir, config, args.questions.is_some())?;
            if !r.ignored.is_empty() {
                errln!(
                    "warning: resuming keeps the run's settings from {}; ignored: {}",
                    dir.join("run.json").display(),
                    r.ignored.join(", ")
                );
            }
            Ok((r.questions.clone(), Some(r)))
        }
        None => {
            let q = args.questions.clone().ok_or_else(|| {
                InputError("rag run needs QUESTIONS (or --resume RUN_DIR)".into())
            })?;
            Ok((q, None))
        }
    }
}

/// Ctrl-C and SIGTERM set the returned flag (the batch stops cleanly); a
/// second signal exits at once (130), whatever the run is doing.
fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(
            sig,
            i32::from(EXIT_INTERRUPTED),
            Arc::clone(&stop),
        )?;
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    Ok(stop)
}

fn run_batch_command(args: RunArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    let Some(mut config) = args.job.config()? else {
        return Ok(EXIT_OK);
    };
    let (questions, resumed) = questions_of(&args, &mut config)?;
    let mut batch = open_batch(&config, &questions, resumed, started)?;
    if batch.torn_bytes > 0 {
        errln!(
            "note: cut a torn last line ({} bytes) from responses.jsonl",
            batch.torn_bytes
        );
    }
    let (folder, n_todo) = (batch.folder.clone(), batch.todo.len());
    if batch.resumed {
        let skipped = batch.questions.len() - n_todo;
        errln!(
            "resuming {}: {skipped} answered, {n_todo} to ask",
            folder.display()
        );
    }
    let stop = stop_on_signals()?;
    let bar = super::progress::bar(n_todo as u64, "asking", !args.job.progress.enabled());
    let t0 = Instant::now();
    let (tally, secs) = batch.ask(&config, &stop, |done, failed| {
        let rate = done as f64 / t0.elapsed().as_secs_f64().max(1e-9);
        bar.set_position(done as u64);
        bar.set_message(format!("failed {failed}, {rate:.0} req/s"));
    })?;
    bar.finish_and_clear();
    if tally.interrupted {
        errln!(
            "interrupted: {} of {n_todo} asked in this session ({} failed); every outcome so far is in {}\nresume with: corpus-eval rag run --resume {}",
            tally.done,
            tally.failed,
            batch.journal.path().display(),
            folder.display()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    let session = session_settings(&config, &batch, &tally, secs);
    let summary = finish_run(&config, &batch, session, started)?;
    let failed = summary["failed"].as_u64().unwrap_or(0);
    let session_line = format!(
        "this session: {} asked in {secs:.2} s ({:.0} req/s), finished {}",
        tally.done,
        tally.done as f64 / secs.max(1e-9),
        rfc3339(SystemTime::now())
    );
    if args.job.json {
        // The session's figures go to stderr: stdout is the summary alone.
        errln!("{session_line}");
    }
    args.job.print(Some(&folder), &summary, || {
        format!(
            "{} questions: {} answered, {failed} failed; existence {}; score {}\n{session_line}",
            summary["questions"],
            summary["answered"],
            mean_with_ci(&summary["existence"]),
            mean_with_ci(&summary["score"])
        )
    })?;
    if failed > 0 {
        errln!(
            "{failed} question(s) have no valid reply (listed in summary.json failed_ids); ask them again with: corpus-eval rag run --resume {}",
            folder.display()
        );
        return Ok(EXIT_RUNTIME);
    }
    args.job
        .gates
        .finish::<Config>(&config.fail_under, &summary, EXIT_OK)
}
