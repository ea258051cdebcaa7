//! `corpus-eval similarity` and `corpus-eval embed`: the embedding model from
//! the command line.

use super::EXIT_OK;
use crate::semantic::Embedder;
use std::io::Write;
use std::path::PathBuf;

/// Where the sentence-embedding model comes from.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    /// Folder of the sentence-embedding model (Hugging Face layout:
    /// config.json, tokenizer.json, model.safetensors). Default:
    /// $CORPUS_EVAL_MODEL_DIR, then models/all-MiniLM-L6-v2, then the
    /// Hugging Face cache.
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// The forward pass: the fused one, or candle-transformers' BertModel
    /// unchanged (same numbers to ~1e-6, about half the speed) [default: fused].
    #[arg(long, value_parser = ENGINES)]
    pub engine: Option<String>,
}

/// `--engine` values.
pub(crate) use crate::jobs::ENGINES;

/// Finds and loads the model; a missing model is an input error (exit 2)
/// whose message says how to get one.
pub(crate) fn load_embedder(args: &ModelArgs) -> anyhow::Result<Embedder> {
    let engine = args.engine.as_deref().unwrap_or("fused");
    Ok(crate::jobs::judge_answers::load_embedder(
        args.model_dir.as_deref(),
        engine,
    )?)
}

/// Arguments of `similarity`.
#[derive(Debug, clap::Args)]
pub struct SimilarityArgs {
    /// The first text.
    pub text_a: String,
    /// The second text.
    pub text_b: String,
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
}

pub(crate) use crate::semantic::warn_truncation;

/// Runs `similarity`: prints the cosine alone.
pub fn run_similarity(args: SimilarityArgs) -> anyhow::Result<u8> {
    let embedder = load_embedder(&args.model)?;
    let v = embedder.embed(&[args.text_a.as_str(), args.text_b.as_str()])?;
    warn_truncation(&embedder);
    let cos = crate::semantic::cosine(&v[0], &v[1]);
    if args.json {
        let v = serde_json::json!({"similarity": cos + 0.0, "signature": embedder.signature()});
        outln!("{v}");
    } else {
        outln!("{cos:.6}");
    }
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
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
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
pub fn run_embed(args: EmbedArgs) -> anyhow::Result<u8> {
    // A device, FIFO or folder is refused before any work (exit 2).
    if let Some(path) = &args.output {
        crate::report::check_destination(path)?;
    }
    let items = crate::semantic::texts::load_texts(&args.file)?;
    let embedder = load_embedder(&args.model)?;
    let texts: Vec<&str> = items.iter().map(|t| t.text.as_str()).collect();
    let started = std::time::Instant::now();
    let vectors = args.progress.run(|| embedder.embed(&texts))?;
    let elapsed = started.elapsed().as_secs_f64();
    warn_truncation(&embedder);
    let out = crate::semantic::texts::embedding_lines(&items, &vectors);
    match &args.output {
        Some(path) => {
            crate::report::write_atomic(path, &out)?;
            if args.json {
                let v = serde_json::json!({
                    "count": items.len(),
                    "dims": embedder.dim(),
                    "output": path.display().to_string(),
                    "seconds": elapsed,
                    "signature": embedder.signature(),
                });
                outln!("{v}");
                return Ok(EXIT_OK);
            }
            errln!(
                "{} embeddings ({} dims, {}) -> {} in {elapsed:.2}s",
                items.len(),
                embedder.dim(),
                embedder.signature(),
                path.display()
            );
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            super::stdout_result(lock.write_all(&out))?;
            super::stdout_result(lock.flush())?;
        }
    }
    Ok(EXIT_OK)
}
