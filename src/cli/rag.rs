//! `corpus-eval rag ask` and `corpus-eval rag run`: [`crate::jobs::rag`]
//! from the command line, with the signals that stop a batch cleanly. The
//! auth string comes from $EVALUATION_API_AUTH only and is never printed
//! or written.

use super::{EXIT_OK, EXIT_RUNTIME};
use crate::jobs::rag::{ask, session, Config, Ended};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::SystemTime;

/// Exit code of an interrupted run (128 + SIGINT).
pub(super) const EXIT_INTERRUPTED: u8 = 130;

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

/// Arguments of `rag ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// The API settings' flags.
    #[command(flatten)]
    pub api: super::flags::Flags<Config, super::flags::Api>,
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
pub(super) fn run(args: RagArgs) -> anyhow::Result<u8> {
    match args.command {
        RagCommand::Ask(a) => {
            let answer = ask(&a.api.checked()?, &a.question)?;
            match a.json {
                true => outln!("{}", answer.json),
                false => outln!("{}", answer.text),
            }
            Ok(EXIT_OK)
        }
        RagCommand::Run(a) => run_batch(a),
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

fn run_batch(args: RunArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    let Some(config) = args.job.config()? else {
        return Ok(EXIT_OK);
    };
    let stop = stop_on_signals()?;
    let (questions, resume) = (args.questions.as_deref(), args.resume.as_deref());
    let ended = args
        .job
        .progress
        .run(|| session(config.clone(), questions, resume, &stop, started))?;
    let f = match ended {
        Ended::Interrupted(message) => {
            errln!("{message}");
            return Ok(EXIT_INTERRUPTED);
        }
        Ended::Finished(f) => f,
    };
    if args.job.json {
        // The session's figures go to stderr: stdout is the summary alone.
        errln!("{}", f.session);
    }
    args.job.print(Some(&f.folder), &f.summary, || f.text())?;
    if f.failed > 0 {
        errln!(
            "{} question(s) have no valid reply (listed in summary.json failed_ids); ask them again with: corpus-eval rag run --resume {}",
            f.failed,
            f.folder.display()
        );
        return Ok(EXIT_RUNTIME);
    }
    args.job
        .gates
        .finish::<Config>(&config.fail_under, &f.summary)
}
