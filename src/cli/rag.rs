//! `corpus-eval rag ask` and `corpus-eval rag run`: the RAG API from the
//! command line. The auth string comes from $EVALUATION_API_AUTH only and is
//! never printed or written.

use super::evaluate::{level_of, MatchArg};
use super::{
    check_count, check_range, load_lexicon, read_input, InputError, WordnetArgs, EXIT_OK,
    EXIT_RUNTIME,
};
use crate::rag::batch::{run_batch, CheckConfig, Prepared, Workers};
use crate::rag::client::{ClientConfig, RagClient, AUTH_ENV, URL_ENV};
use crate::rag::journal::{last_outcomes, Journal};
use crate::rag::questions::{parse_rag_questions, RagQuestion};
use crate::rag::summary::summarize_run;
use crate::rag::verify::check_citations;
use crate::rag::{parse_filter, request_body};
use crate::report::charts::{render_bar_chart, Bar, BarChart};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use crate::report::{rfc3339, sha256_hex, write_json, RunFolder};
use crate::secrets::redact_url;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

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

/// Settings shared by `ask` and `run`.
#[derive(Debug, Clone, clap::Args)]
pub struct ApiArgs {
    /// The API endpoint (default: $EVALUATION_API_URL).
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    /// Documents to retrieve (1 to 10000).
    #[arg(long)]
    pub k: Option<u64>,
    /// Metadata filter KEY=VALUE (PROJECT, YEAR, MONTH, NAME, COUNTRY,
    /// GEOGRAPHY, FILE, TYPE, RECORD LANG); repeatable; numbers stay numbers.
    #[arg(long = "filter", value_name = "KEY=VALUE")]
    pub filter: Vec<String>,
    /// The LangChain-style model name (e.g. openai:gpt-4o-mini, groq:...).
    #[arg(long)]
    pub model: Option<String>,
    /// Per-request timeout in seconds (0.001 to 3600).
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Retries after the first attempt, 0 to 100 (connection errors, timeouts, 429,
    /// 5xx, replies that break the contract).
    #[arg(long, default_value_t = 5)]
    pub max_retries: u32,
    /// First backoff in milliseconds, 0 to 60000 (doubled per retry, +-25% jitter;
    /// Retry-After wins when the server sends it).
    #[arg(long, default_value_t = 500)]
    pub backoff_ms: u64,
    /// The weakest citation verdict that counts as found.
    #[arg(long = "match", value_enum, default_value = "normalized")]
    pub match_level: MatchArg,
    /// Similarity (0..1) a fuzzy match needs.
    #[arg(long, default_value_t = crate::citations::DEFAULT_FUZZY_THRESHOLD)]
    pub fuzzy_threshold: f64,
}

/// Arguments of `rag ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// API settings.
    #[command(flatten)]
    pub api: ApiArgs,
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
    /// Parent folder of the run folder.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
    /// Continue the run in this folder: ask only the questions without a
    /// valid reply in its responses.jsonl.
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// Requests in flight at once (1 to 256).
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Seed of the bootstrap confidence intervals.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// No progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// API settings.
    #[command(flatten)]
    pub api: ApiArgs,
    /// WordNet (for scoring answers).
    #[command(flatten)]
    pub wordnet: WordnetArgs,
}

/// Runs `rag`.
pub fn run(args: RagArgs) -> anyhow::Result<u8> {
    match args.command {
        RagCommand::Ask(a) => ask(a),
        RagCommand::Run(a) => run_batch_command(a),
    }
}

const DEFAULT_K: u64 = 10;
/// Longest `--timeout`, seconds.
pub const MAX_TIMEOUT_S: f64 = 3600.0;
/// Most `--max-retries`.
pub const MAX_RETRIES: u64 = 100;
/// Longest `--backoff-ms` (a retry never waits more than a minute anyway).
pub const MAX_BACKOFF_MS: u64 = 60_000;
const DEFAULT_MODEL: &str = "openai:gpt-4o-mini";

fn filters(args: &[String]) -> anyhow::Result<Map<String, Value>> {
    let mut m = Map::new();
    for f in args {
        let (k, v) = parse_filter(f).map_err(InputError)?;
        m.insert(k, v);
    }
    Ok(m)
}

/// The client, with the URL from the flag or the environment and the auth
/// string from the environment.
fn client(api: &ApiArgs, fallback_url: Option<&str>) -> anyhow::Result<RagClient> {
    let url = api
        .api_url
        .clone()
        .or_else(|| std::env::var(URL_ENV).ok().filter(|u| !u.trim().is_empty()))
        .or_else(|| fallback_url.map(str::to_string))
        .ok_or_else(|| InputError(format!("no API URL: pass --api-url or set ${URL_ENV}")))?;
    check_range("--timeout", api.timeout, 0.001, MAX_TIMEOUT_S)?;
    check_count("--max-retries", api.max_retries.into(), 0, MAX_RETRIES)?;
    check_count("--backoff-ms", api.backoff_ms, 0, MAX_BACKOFF_MS)?;
    if let Some(k) = api.k {
        check_count("--k", k, 1, crate::rag::questions::MAX_K)?;
    }
    if !(0.0..=1.0).contains(&api.fuzzy_threshold) {
        return Err(InputError(format!(
            "--fuzzy-threshold {} is outside 0..1",
            api.fuzzy_threshold
        ))
        .into());
    }
    let auth = std::env::var(AUTH_ENV).ok().filter(|a| !a.is_empty());
    if auth.is_none() {
        errln!("warning: ${AUTH_ENV} is not set; requests carry no auth");
    }
    let config = ClientConfig {
        url,
        timeout: Duration::try_from_secs_f64(api.timeout)
            .map_err(|_| InputError(format!("--timeout {} is out of range", api.timeout)))?,
        max_retries: api.max_retries,
        backoff_base: Duration::from_millis(api.backoff_ms),
        max_wait: Duration::from_secs(60),
    };
    Ok(RagClient::new(config, auth).map_err(InputError)?)
}

fn ask(args: AskArgs) -> anyhow::Result<u8> {
    let client = client(&args.api, None)?;
    let body = request_body(
        &args.question,
        args.api.k.unwrap_or(DEFAULT_K),
        &filters(&args.api.filter)?,
        args.api.model.as_deref().unwrap_or(DEFAULT_MODEL),
    );
    let outcome = client.ask(&body);
    let Some(reply) = &outcome.reply else {
        errln!(
            "error: {} ({} attempt(s))",
            outcome.error.as_deref().unwrap_or("no reply"),
            outcome.attempts
        );
        return Ok(EXIT_RUNTIME);
    };
    let level = level_of(args.api.match_level);
    let (checks, existence) = check_citations(reply, level, args.api.fuzzy_threshold);
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
    outln!("answer: {}", redactor.redact(&reply.answer));
    for (i, c) in checks.iter().enumerate() {
        let span = c
            .span
            .map_or(String::new(), |[a, b]| format!(" chars {a}..{b}"));
        outln!(
            "[{}] source {} {} (similarity {:.3}{span}): {:?}",
            i + 1,
            c.source_index,
            c.verdict,
            c.similarity,
            redactor.redact(&c.quote)
        );
    }
    match existence {
        Some(e) => outln!(
            "existence score: {e:.4} ({} of {} citations found, match {})",
            checks.iter().filter(|c| c.found).count(),
            checks.len(),
            level.as_str()
        ),
        None => outln!("existence score: n/a (no citations)"),
    }
    Ok(EXIT_OK)
}

/// What a run folder's run.json records (no secret: the URL without
/// credentials).
fn run_settings(args: &RunArgs, questions: &Path, digest: &str, url: &str) -> Value {
    json!({
        "questions": questions.display().to_string(),
        "questions_sha256": digest,
        "api_url": redact_url(url),
        "api_url_redacted": redact_url(url) != url,
        "k": args.api.k.unwrap_or(DEFAULT_K),
        "model": args.api.model.as_deref().unwrap_or(DEFAULT_MODEL),
        "filter": args.api.filter,
        "timeout_s": args.api.timeout,
        "max_retries": args.api.max_retries,
        "backoff_ms": args.api.backoff_ms,
        "concurrency": args.concurrency,
        "match": level_of(args.api.match_level).as_str(),
        "fuzzy_threshold": args.api.fuzzy_threshold,
        "seed": args.seed,
    })
}

/// What a resume reads back from run.json.
struct Resumed {
    /// The question file.
    questions: PathBuf,
    /// Its SHA-256 when the run started.
    digest: String,
    /// The stored API URL, unless it was stored without credentials.
    url: Option<String>,
    /// run.json itself (the manifest's settings).
    settings: Value,
}

/// Reads a run folder's run.json back into the arguments (flags given on
/// the command line win for the API URL, timeout, retries and concurrency).
fn resume_args(dir: &Path, args: &mut RunArgs) -> anyhow::Result<Resumed> {
    let path = dir.join("run.json");
    let text = super::as_text(&path, read_input(&path)?)?;
    let s: Value = serde_json::from_str(&text).map_err(|e| crate::corpus::json_error(&path, &e))?;
    let bad = |f: &str| {
        InputError(format!(
            "{}: field `{f}` is missing or malformed",
            path.display()
        ))
    };
    let questions = PathBuf::from(s["questions"].as_str().ok_or_else(|| bad("questions"))?);
    let digest = s["questions_sha256"]
        .as_str()
        .ok_or_else(|| bad("questions_sha256"))?
        .to_string();
    // The run's answers must stay comparable: what shapes a request or a
    // verdict comes from run.json; a conflicting flag is ignored, loudly.
    let k = s["k"].as_u64().ok_or_else(|| bad("k"))?;
    let model = s["model"].as_str().ok_or_else(|| bad("model"))?.to_string();
    let filter: Vec<String> =
        serde_json::from_value(s["filter"].clone()).map_err(|_| bad("filter"))?;
    let level = match s["match"].as_str() {
        Some("exact") => MatchArg::Exact,
        Some("fuzzy") => MatchArg::Fuzzy,
        _ => MatchArg::Normalized,
    };
    let threshold = s["fuzzy_threshold"]
        .as_f64()
        .ok_or_else(|| bad("fuzzy_threshold"))?;
    let mut ignored = Vec::new();
    if args.api.k.is_some_and(|given| given != k) {
        ignored.push("--k");
    }
    if args.api.model.as_ref().is_some_and(|given| *given != model) {
        ignored.push("--model");
    }
    if !args.api.filter.is_empty() && args.api.filter != filter {
        ignored.push("--filter");
    }
    if args.questions.is_some() {
        ignored.push("QUESTIONS");
    }
    if !ignored.is_empty() {
        errln!(
            "warning: resuming keeps the run's settings from {}; ignored: {}",
            path.display(),
            ignored.join(", ")
        );
    }
    args.api.k = Some(k);
    args.api.model = Some(model);
    args.api.filter = filter;
    args.api.match_level = level;
    args.api.fuzzy_threshold = threshold;
    args.seed = s["seed"].as_u64().unwrap_or(args.seed);
    // A URL stored without its credentials or query cannot be used as is.
    let url = if s["api_url_redacted"].as_bool() == Some(true) {
        None
    } else {
        s["api_url"].as_str().map(str::to_string)
    };
    Ok(Resumed {
        questions,
        digest,
        url,
        settings: s,
    })
}

fn run_batch_command(mut args: RunArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    check_count(
        "--concurrency",
        args.concurrency as u64,
        1,
        crate::rag::batch::MAX_CONCURRENCY as u64,
    )?;
    // The run folder, the questions and, on resume, what run.json holds.
    let (folder, questions_path, resumed) = match args.resume.clone() {
        Some(dir) => {
            if !dir.join("run.json").exists() {
                return Err(InputError(format!(
                    "{}: not a rag run folder (no run.json)",
                    dir.display()
                ))
                .into());
            }
            let resumed = resume_args(&dir, &mut args)?;
            (dir, resumed.questions.clone(), Some(resumed))
        }
        None => {
            let q = args.questions.clone().ok_or_else(|| {
                InputError("rag run needs QUESTIONS (or --resume RUN_DIR)".into())
            })?;
            (PathBuf::new(), q, None)
        }
    };
    // The question file is read once: digest, resume check, questions and
    // the manifest all come from these bytes.
    let q_bytes = read_input(&questions_path)?;
    let q_digest = sha256_hex(&q_bytes);
    if let Some(r) = &resumed {
        if q_digest != r.digest {
            return Err(InputError(format!(
                "{}: the question file changed since the run started (sha256 {} -> {}); start a new run",
                questions_path.display(),
                r.digest.get(..12).unwrap_or(&r.digest),
                q_digest.get(..12).unwrap_or(&q_digest)
            ))
            .into());
        }
    }
    let q_text = super::as_text(&questions_path, q_bytes)?;
    let questions = parse_rag_questions(&questions_path, &q_text)?;
    if questions.is_empty() {
        return Err(InputError(format!("{}: no questions", questions_path.display())).into());
    }
    let stored_url = resumed.as_ref().and_then(|r| r.url.clone());
    let client = Arc::new(client(&args.api, stored_url.as_deref())?);
    let lexicon = Arc::new(load_lexicon(&args.wordnet)?);
    // Every usage check comes before anything is created.
    let defaults_filter = filters(&args.api.filter)?;
    let (folder, run_json) = if let Some(r) = resumed {
        (folder, r.settings)
    } else {
        // The folder becomes visible only once run.json and the (empty)
        // journal are durable inside it, so a visible folder is always
        // resumable; from then on it stays live (the journal must survive a
        // kill).
        let abs = std::fs::canonicalize(&questions_path).unwrap_or(questions_path.clone());
        let settings = run_settings(&args, &abs, &q_digest, &client.config().url);
        let (f, ()) = super::complete_run(RunFolder::create(&args.out, started)?, |staged| {
            std::fs::File::create(staged.file("responses.jsonl"))?.sync_all()?;
            write_json(&staged.file("run.json"), &settings)?;
            Ok(())
        })?;
        (f, settings)
    };
    // Messages name the folder absolutely, so the resume hint works from anywhere.
    let folder = std::fs::canonicalize(&folder).unwrap_or(folder);
    let (mut journal, answered) = Journal::open(&folder.join("responses.jsonl"))?;
    if answered.torn_bytes > 0 {
        errln!(
            "note: cut a torn last line ({} bytes) from responses.jsonl",
            answered.torn_bytes
        );
    }
    let k = args.api.k.unwrap_or(DEFAULT_K);
    let model = args
        .api
        .model
        .clone()
        .unwrap_or_else(|| DEFAULT_MODEL.into());
    let todo: Vec<Prepared> = questions
        .iter()
        .filter(|q| answered.last_ok.get(&q.id) != Some(&true))
        .map(|q| prepare(q, k, &defaults_filter, &model))
        .collect();
    let skipped = questions.len() - todo.len();
    if args.resume.is_some() {
        errln!(
            "resuming {}: {skipped} answered, {} to ask",
            folder.display(),
            todo.len()
        );
    }
    // Ctrl-C and SIGTERM stop the batch cleanly.
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second signal exits at once (130), whatever the run is doing.
        signal_hook::flag::register_conditional_shutdown(
            sig,
            i32::from(EXIT_INTERRUPTED),
            Arc::clone(&stop),
        )?;
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    let bar = progress_bar(todo.len() as u64, args.no_progress);
    let t0 = Instant::now();
    let check = CheckConfig {
        level: level_of(args.api.match_level),
        fuzzy_threshold: args.api.fuzzy_threshold,
    };
    let n_todo = todo.len();
    let workers = Workers {
        client: Arc::clone(&client),
        concurrency: args.concurrency,
        check,
        lexicon: Arc::clone(&lexicon),
    };
    let tally = run_batch(&workers, todo, &mut journal, &stop, |done, failed| {
        let rate = done as f64 / t0.elapsed().as_secs_f64().max(1e-9);
        bar.set_position(done as u64);
        bar.set_message(format!("failed {failed}, {rate:.0} req/s"));
    })?;
    bar.finish_and_clear();
    let secs = t0.elapsed().as_secs_f64();
    if tally.interrupted {
        errln!(
            "interrupted: {} of {n_todo} asked in this session ({} failed); every outcome so far is in {}\nresume with: corpus-eval rag run --resume {}",
            tally.done,
            tally.failed,
            journal.path().display(),
            folder.display()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    // The run's results, from the journal's last outcome per question.
    let mut outcomes = last_outcomes(journal.path())?;
    // A question without any journal line counts as failed, never as absent.
    let have: std::collections::HashSet<String> = outcomes
        .iter()
        .filter_map(|o| o["id"].as_str().map(str::to_string))
        .collect();
    for q in questions.iter().filter(|q| !have.contains(&q.id)) {
        outcomes.push(json!({"id": q.id, "error": "no outcome", "attempts": 0, "existence_score": null, "score": null, "citations": []}));
    }
    let known: std::collections::HashSet<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    outcomes.retain(|o| o["id"].as_str().is_some_and(|id| known.contains(id)));
    let types: BTreeMap<String, String> = questions
        .iter()
        .filter_map(|q| q.qtype.clone().map(|t| (q.id.clone(), t)))
        .collect();
    let mut summary = summarize_run(&outcomes, &types, args.seed);
    let signature = format!(
        "rag:v1|{}|{}",
        crate::citations::signature(check.level, check.fuzzy_threshold),
        crate::scoring::signature(&lexicon)
    );
    if let Value::Object(m) = &mut summary {
        m.insert("signature".into(), json!(signature));
        m.insert("session".into(), json!({"asked": tally.done, "failed": tally.failed, "seconds": secs, "requests_per_second": tally.done as f64 / secs.max(1e-9)}));
    }
    let mut settings = run_json;
    if let Value::Object(m) = &mut settings {
        // This session's transport settings (they may differ from run.json's).
        m.insert(
            "session".into(),
            json!({
                "resumed": args.resume.is_some(),
                "api_url": redact_url(&client.config().url),
                "concurrency": args.concurrency,
                "timeout_s": args.api.timeout,
                "max_retries": args.api.max_retries,
                "backoff_ms": args.api.backoff_ms,
            }),
        );
    }
    let manifest = Manifest::new(
        "rag run",
        BTreeMap::from([(
            "questions".to_string(),
            InputFile::new(&questions_path, q_text.as_bytes()),
        )]),
        settings,
        signature.clone(),
        started,
    )
    .with_lexicon(&lexicon);
    let mut run = RunWriter::live(&folder, manifest)?;
    run.record("run.json")?;
    run.record("responses.jsonl")?;
    run.write_json("summary.json", &summary)?;
    if chart_data(&summary).is_some() {
        run.render("rag_scores.png", |path| {
            draw_chart(path, &summary, &signature)
        })?;
    }
    run.finish()?;
    let failed = summary["failed"].as_u64().unwrap_or(0);
    outln!(
        "{} questions: {} answered, {failed} failed; existence {}; score {}",
        summary["questions"],
        summary["answered"],
        fmt_mean(&summary["existence"]),
        fmt_mean(&summary["score"])
    );
    outln!(
        "this session: {} asked in {secs:.2} s ({:.0} req/s), finished {}",
        tally.done,
        tally.done as f64 / secs.max(1e-9),
        rfc3339(SystemTime::now())
    );
    outln!("run folder: {}", folder.display());
    if failed > 0 {
        errln!(
            "{failed} question(s) have no valid reply (listed in summary.json failed_ids); ask them again with: corpus-eval rag run --resume {}",
            folder.display()
        );
        return Ok(EXIT_RUNTIME);
    }
    Ok(EXIT_OK)
}

fn fmt_mean(g: &Value) -> String {
    match (
        g["mean"].as_f64(),
        g["ci_low"].as_f64(),
        g["ci_high"].as_f64(),
    ) {
        (Some(m), Some(l), Some(h)) => format!("{m:.4} [{l:.4}, {h:.4}] (n={})", g["n"]),
        _ => "n/a".into(),
    }
}

fn prepare(q: &RagQuestion, k: u64, filter: &Map<String, Value>, model: &str) -> Prepared {
    Prepared {
        id: q.id.clone(),
        question: q.question.clone(),
        body: request_body(
            &q.question,
            q.k.unwrap_or(k),
            q.filter.as_ref().unwrap_or(filter),
            q.model.as_deref().unwrap_or(model),
        ),
        scoring: q.qtype.clone().zip(q.metric.clone()),
    }
}

fn progress_bar(len: u64, hidden: bool) -> indicatif::ProgressBar {
    if hidden {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} done, {msg} [{elapsed}]")
    {
        bar.set_style(style);
    }
    bar
}

/// The bars of the chart: mean existence and score per question type (or
/// overall when the file has no types); None when there is nothing to draw.
fn chart_data(summary: &Value) -> Option<Vec<Bar>> {
    let mut bars = Vec::new();
    let mut push = |label: String, g: &Value| {
        if let (Some(m), Some(n)) = (g["mean"].as_f64(), g["n"].as_u64()) {
            bars.push(Bar {
                label,
                value: m.clamp(0.0, 1.0),
                n: n as usize,
                ci: g["ci_low"].as_f64().zip(g["ci_high"].as_f64()),
            });
        }
    };
    push("all · existence".into(), &summary["existence"]);
    push("all · score".into(), &summary["score"]);
    if let Some(types) = summary["by_type"].as_object() {
        for (t, g) in types {
            push(format!("{t} · existence"), &g["existence"]);
            push(format!("{t} · score"), &g["score"]);
        }
    }
    (!bars.is_empty()).then_some(bars)
}

fn draw_chart(
    path: &Path,
    summary: &Value,
    signature: &str,
) -> Result<(), crate::report::ReportError> {
    render_bar_chart(
        path,
        &BarChart {
            title: "RAG answers: citation existence and answer scores",
            value_label: "mean (95% bootstrap interval)",
            category_label: "question type · measure",
            footnote: signature,
            bars: &chart_data(summary).unwrap_or_default(),
        },
    )
}
