//! `corpus-eval similarity` and `corpus-eval embed`: [`crate::jobs::embed`]
//! from the command line.

use super::EXIT_OK;
use crate::jobs::embed::{embed, similarity, Config};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `similarity`.
#[derive(Debug, clap::Args)]
pub struct SimilarityArgs {
    /// The first text.
    pub text_a: String,
    /// The second text.
    pub text_b: String,
    /// `--model-dir`, `--engine`.
    #[command(flatten)]
    pub settings: super::flags::Flags<Config>,
    /// Print one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
}

/// Runs `similarity`: prints the cosine alone.
pub(super) fn run_similarity(args: SimilarityArgs) -> anyhow::Result<u8> {
    let out = similarity(&args.settings.checked()?, &args.text_a, &args.text_b)?;
    let text = || format!("{:.6}", out.similarity);
    super::print_run(args.json, None, &out, text)?;
    Ok(EXIT_OK)
}

/// Arguments of `embed`.
#[derive(Debug, clap::Args)]
pub struct EmbedArgs {
    /// The texts: a .json array (of strings or {"id", "text"}), .jsonl lines
    /// of the same, or any other file as plain text, one text per line.
    pub file: PathBuf,
    /// Write the JSONL here (atomically) instead of to stdout.
    #[arg(long, short = 'o', value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// `--model-dir`, `--engine`.
    #[command(flatten)]
    pub settings: super::flags::Flags<Config>,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
    /// With `--output`: print a JSON object (count, dims, output,
    /// signature) on stdout. Without `--output` the JSON Lines are stdout.
    #[arg(long, requires = "output")]
    pub json: bool,
}

/// Runs `embed`: one JSON line per text, `{"index", "id"?, "text",
/// "embedding"}`, in input order.
pub(super) fn run_embed(args: EmbedArgs) -> anyhow::Result<u8> {
    let config = args.settings.checked()?;
    let out = args
        .progress
        .run(|| embed(&config, &args.file, args.output.as_deref()))?;
    match &out.output {
        Some(_) if args.json => outln!("{}", serde_json::to_string(&out)?),
        Some(_) => errln!("{}", out.line()),
        None => {
            let mut lock = std::io::stdout().lock();
            super::stdout_result(lock.write_all(&out.lines))?;
            super::stdout_result(lock.flush())?;
        }
    }
    Ok(EXIT_OK)
}
