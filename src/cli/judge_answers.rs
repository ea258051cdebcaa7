//! `corpus-eval judge-answers` and `corpus-eval threshold`: score answers
//! against ground truths with the semantic-evaluation methods.

use super::similarity::{load_embedder, warn_truncation, ModelArgs};
use super::{
    check_count, check_range, complete_run, load_lexicon, read_input, InputError, WordnetArgs,
    EXIT_OK, EXIT_RUNTIME,
};
use crate::corpus::judged::{load_judged_items, JudgedItem};
use crate::judge::{cost, prompt, Judge, JudgeClient, JudgeConfig, VerdictCache};
use crate::judge_answers::{
    finish, judge_plan, missing_anchors, prepare, similarities, ItemScore, JudgeAnswersConfig,
    JudgeAnswersSummary,
};
use crate::lexicon::Lexicon;
use crate::report::charts::{render_score_histogram, ScoreHistogram};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::table::grid_table;
use crate::report::{write_atomic, write_json, RunFolder};
use crate::semantic::anchors::ANCHORS_SIGNATURE;
use crate::semantic::methods::{
    keyword_score, sample_indices, search_threshold, Method, Optimize, ThresholdSearch,
    DEFAULT_THRESHOLD,
};
use crate::semantic::{Embedder, EmbeddingCache};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// `--anchors` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AnchorsArg {
    /// Every anchor of the ground truth (numbers, names, dates) must be in the answer.
    On,
    /// Similarity alone (the design's plain behaviour).
    Off,
}

/// Options shared by `judge-answers` and `threshold`.
#[derive(Debug, Clone, clap::Args)]
pub struct SemanticOptions {
    /// Require the ground truth's anchors (numbers in any form, capitalized
    /// names, dates) in the answer for a semantic score of 1.
    #[arg(long, value_enum, default_value = "on")]
    pub anchors: AnchorsArg,
    /// What threshold search maximizes.
    #[arg(long, value_enum, default_value = "accuracy")]
    pub optimize: Optimize,
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// WordNet (anchor synonyms).
    #[command(flatten)]
    pub wordnet: WordnetArgs,
}

/// Arguments of `judge-answers`.
#[derive(Debug, clap::Args)]
pub struct JudgeAnswersArgs {
    /// Items: JSON array or JSONL of {"id"?, "question"?, "answer", "ground_truth", "label"? (0/1), "system"?}.
    pub input: PathBuf,
    /// The method.
    #[arg(long, value_enum, default_value = "semantic_fixed")]
    pub method: Method,
    /// Similarity threshold of semantic_fixed and hybrid.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    pub threshold: f64,
    /// semantic_dynamic: choose the threshold on this file's items.
    #[arg(long, value_name = "FILE")]
    pub validation: Option<PathBuf>,
    /// semantic_dynamic without --validation: the share of INPUT drawn (with --seed) to choose the threshold on.
    #[arg(long, default_value_t = 0.1)]
    pub validation_fraction: f64,
    /// Seed of the validation draw.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// hybrid: the judge re-scores items whose similarity lies within BAND of the threshold.
    #[arg(long, default_value_t = 0.1)]
    pub band: f64,
    /// hybrid: the judge also re-scores every item of the N systems with the best semantic mean.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub judge_top: usize,
    /// Shared semantic options.
    #[command(flatten)]
    pub semantic: SemanticOptions,
    /// The judge.
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Parent folder of the run folder.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
    /// Also print summary.json to stdout (the last thing printed).
    #[arg(long)]
    pub json: bool,
    /// Do not draw the score-distribution PNGs.
    #[arg(long)]
    pub no_plots: bool,
}

/// The LLM judge's options.
#[derive(Debug, Clone, clap::Args)]
pub struct JudgeArgs {
    /// OpenAI-compatible API base URL (".../v1") or chat-completions URL; default $CORPUS_EVAL_JUDGE_URL. The key comes from $CORPUS_EVAL_JUDGE_KEY or $OPENAI_API_KEY.
    #[arg(long, value_name = "URL")]
    pub judge_url: Option<String>,
    /// The judge model.
    #[arg(long, default_value = "gpt-3.5-turbo")]
    pub judge_model: String,
    /// Per-request timeout, seconds (0.001 to 3600).
    #[arg(long, default_value_t = 30.0)]
    pub judge_timeout: f64,
    /// Attempts per item before it is recorded as failed (1 to 100).
    #[arg(long, default_value_t = 3)]
    pub judge_attempts: u32,
    /// First retry wait, milliseconds, 0 to 120000 (doubled each retry, with jitter; Retry-After wins).
    #[arg(long, default_value_t = 500)]
    pub judge_backoff_ms: u64,
    /// Requests in flight (1 to 256).
    #[arg(long, default_value_t = 4)]
    pub judge_concurrency: usize,
    /// Verdict cache (SQLite); default $XDG_CACHE_HOME/corpus-eval/judge.sqlite or ~/.cache/corpus-eval/judge.sqlite.
    #[arg(long, value_name = "PATH")]
    pub cache: Option<PathBuf>,
    /// Do not read or write the verdict cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Print the judge's cost estimate and stop (no calls, no run folder).
    #[arg(long)]
    pub estimate_cost: bool,
    /// Refuse to start when the estimate exceeds this many USD.
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Tokens per evaluation, for the estimate.
    #[arg(long, default_value_t = cost::DEFAULT_TOKENS_PER_EVAL)]
    pub tokens_per_eval: f64,
    /// USD per 1,000 tokens, for the estimate.
    #[arg(long, default_value_t = cost::DEFAULT_PRICE_PER_1K)]
    pub price_per_1k: f64,
}

/// Arguments of `threshold`.
#[derive(Debug, clap::Args)]
pub struct ThresholdArgs {
    /// Items: JSON array or JSONL of {"answer", "ground_truth", "label"? (0/1), ...}.
    pub input: PathBuf,
    /// Shared semantic options.
    #[command(flatten)]
    pub semantic: SemanticOptions,
}

fn load_items(path: &Path) -> anyhow::Result<Vec<JudgedItem>> {
    let items = load_judged_items(path)?;
    if items.is_empty() {
        return Err(InputError(format!("{}: no items", path.display())).into());
    }
    Ok(items)
}

/// Similarities and anchor checks of `items`, and the threshold search over
/// them (labelled items only when some carry labels).
fn search(
    items: &[JudgedItem],
    cache: &EmbeddingCache,
    lexicon: &Lexicon,
    anchors: bool,
    optimize: Optimize,
) -> anyhow::Result<(ThresholdSearch, usize)> {
    let labelled: Vec<JudgedItem> = items
        .iter()
        .filter(|i| i.label.is_some())
        .cloned()
        .collect();
    let used = if labelled.is_empty() {
        items
    } else {
        &labelled[..]
    };
    let sims = similarities(used, cache)?;
    let ok: Vec<bool> = if anchors {
        missing_anchors(used, lexicon)
            .iter()
            .map(Vec::is_empty)
            .collect()
    } else {
        vec![true; used.len()]
    };
    let labels: Option<Vec<bool>> =
        (!labelled.is_empty()).then(|| used.iter().map(|i| i.label.unwrap_or(false)).collect());
    Ok((
        search_threshold(&sims, &ok, labels.as_deref(), optimize),
        used.len(),
    ))
}

fn threshold_table(s: &ThresholdSearch) -> String {
    let rows: Vec<Vec<String>> = s
        .rows
        .iter()
        .map(|r| {
            let mark = if r.threshold == s.best { " *" } else { "" };
            vec![
                format!("{:.2}{mark}", r.threshold),
                r.positives.to_string(),
                format!("{:.4}", r.metrics.accuracy),
                format!("{:.4}", r.metrics.precision),
                format!("{:.4}", r.metrics.recall),
                format!("{:.4}", r.metrics.f1),
            ]
        })
        .collect();
    grid_table(
        &[
            "threshold",
            "correct",
            "accuracy",
            "precision",
            "recall",
            "f1",
        ],
        &rows,
    )
}

/// Runs `threshold`: prints the grid and, last, `threshold: 0.60`.
pub fn run_threshold(args: ThresholdArgs) -> anyhow::Result<u8> {
    let items = load_items(&args.input)?;
    let lexicon = load_lexicon(&args.semantic.wordnet)?;
    let embedder = load_embedder(&args.semantic.model)?;
    let cache = EmbeddingCache::new(&embedder);
    let anchors = args.semantic.anchors == AnchorsArg::On;
    let (s, n) = search(&items, &cache, &lexicon, anchors, args.semantic.optimize)?;
    warn_truncation(&embedder);
    let unlabelled = items.len() - n;
    if s.target == "labels" && unlabelled > 0 {
        errln!("warning: {unlabelled} items without a label are left out of the search");
    }
    outln!("{}", threshold_table(&s));
    outln!(
        "target: {} ({n} items), optimize: {}, anchors: {}, {}",
        if s.target == "labels" {
            "human labels"
        } else {
            "proxy labels (similarity > 0.9)"
        },
        optimize_name(s.optimize),
        if anchors { "on" } else { "off" },
        embedder.signature()
    );
    outln!("threshold: {:.2}", s.best);
    Ok(EXIT_OK)
}

fn optimize_name(o: Optimize) -> &'static str {
    match o {
        Optimize::Accuracy => "accuracy",
        Optimize::F1 => "f1",
    }
}

/// Longest `--judge-backoff-ms` (the wait before a retry never exceeds
/// two minutes anyway).
pub const MAX_JUDGE_BACKOFF_MS: u64 = 120_000;
/// Most `--judge-attempts`.
pub const MAX_JUDGE_ATTEMPTS: u64 = 100;

/// The judge's numeric flags, each in its documented range (exit 2).
fn check_judge_numbers(args: &JudgeArgs) -> anyhow::Result<()> {
    check_range("--judge-timeout", args.judge_timeout, 0.001, 3600.0)?;
    check_count(
        "--judge-attempts",
        args.judge_attempts.into(),
        1,
        MAX_JUDGE_ATTEMPTS,
    )?;
    check_count(
        "--judge-backoff-ms",
        args.judge_backoff_ms,
        0,
        MAX_JUDGE_BACKOFF_MS,
    )?;
    check_count(
        "--judge-concurrency",
        args.judge_concurrency as u64,
        1,
        crate::rag::batch::MAX_CONCURRENCY as u64,
    )?;
    if let Some(max) = args.max_cost {
        check_range("--max-cost", max, 0.0, 1e12)?;
    }
    check_range("--tokens-per-eval", args.tokens_per_eval, 0.0, 1e9)?;
    check_range("--price-per-1k", args.price_per_1k, 0.0, 1e6)?;
    Ok(())
}

fn make_judge(args: &JudgeArgs) -> anyhow::Result<Judge> {
    let url = args
        .judge_url
        .clone()
        .or_else(|| std::env::var("CORPUS_EVAL_JUDGE_URL").ok().filter(|u| !u.is_empty()))
        .ok_or_else(|| InputError("the judge needs --judge-url (or $CORPUS_EVAL_JUDGE_URL): an OpenAI-compatible API base URL".into()))?;
    check_judge_numbers(args)?;
    let client = JudgeClient::new(
        JudgeConfig {
            url,
            model: args.judge_model.clone(),
            timeout: Duration::from_secs_f64(args.judge_timeout),
            max_attempts: args.judge_attempts,
            backoff_base: Duration::from_millis(args.judge_backoff_ms),
        },
        crate::judge::key_from_env(),
    )?;
    let cache = if args.no_cache {
        None
    } else {
        let path = match &args.cache {
            Some(p) => p.clone(),
            None => crate::judge::cache::default_path().ok_or_else(|| {
                InputError("no cache folder: set --cache PATH (or --no-cache)".into())
            })?,
        };
        Some(VerdictCache::open(&path)?)
    };
    Ok(Judge::new(client, cache))
}

/// semantic_dynamic's threshold and how it was chosen.
struct DynamicThreshold {
    /// The chosen threshold.
    threshold: f64,
    /// The search, for the manifest.
    info: Value,
    /// The validation file with its bytes, when one was given.
    file: Option<(PathBuf, Vec<u8>)>,
    /// The input items drawn for validation, when drawn from the input.
    drawn: Option<Vec<usize>>,
}

/// Chooses semantic_dynamic's threshold on the validation items.
fn dynamic_threshold(
    args: &JudgeAnswersArgs,
    items: &[JudgedItem],
    cache: &EmbeddingCache,
    lexicon: &Lexicon,
    anchors: bool,
) -> anyhow::Result<DynamicThreshold> {
    let optimize = args.semantic.optimize;
    let (validation, source, file, drawn) = match &args.validation {
        Some(path) => {
            let bytes = read_input(path)?;
            (
                load_items(path)?,
                format!("file {}", path.display()),
                Some((path.clone(), bytes)),
                None,
            )
        }
        None => {
            check_range("--validation-fraction", args.validation_fraction, 1e-9, 1.0)?;
            let k = ((items.len() as f64 * args.validation_fraction).round() as usize).max(1);
            let drawn = sample_indices(items.len(), k, args.seed);
            let picked: Vec<JudgedItem> = drawn.iter().map(|&i| items[i].clone()).collect();
            (
                picked,
                format!(
                    "fraction {} of the input, seed {}",
                    args.validation_fraction, args.seed
                ),
                None,
                Some(drawn),
            )
        }
    };
    let (s, n) = search(&validation, cache, lexicon, anchors, optimize)?;
    let info = json!({
        "source": source,
        "n": n,
        "ids": validation.iter().map(|i| i.id.clone()).collect::<Vec<_>>(),
        "target": s.target,
        "optimize": optimize_name(optimize),
        "grid": s.rows,
        "threshold": s.best,
    });
    Ok(DynamicThreshold {
        threshold: s.best,
        info,
        file,
        drawn,
    })
}

/// Runs `judge-answers`.
pub fn run(args: JudgeAnswersArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    let input_bytes = read_input(&args.input)?;
    let items = load_items(&args.input)?;
    check_range("--threshold", args.threshold, 0.0, 1.0)?;
    check_range("--band", args.band, 0.0, 1.0)?;
    check_judge_numbers(&args.judge)?;
    let method = args.method;
    let anchors = args.semantic.anchors == AnchorsArg::On && method.uses_embeddings();
    let lexicon = load_lexicon(&args.semantic.wordnet)?;
    let embedder: Option<Embedder> = if method.uses_embeddings() {
        Some(load_embedder(&args.semantic.model)?)
    } else {
        None
    };
    let cache = embedder.as_ref().map(EmbeddingCache::new);
    let judge = if method.uses_judge() {
        Some(make_judge(&args.judge)?)
    } else {
        None
    };

    let dynamic = match (method, &cache) {
        (Method::SemanticDynamic, Some(c)) => {
            Some(dynamic_threshold(&args, &items, c, &lexicon, anchors)?)
        }
        _ => None,
    };
    let threshold = dynamic.as_ref().map_or(args.threshold, |d| d.threshold);
    let config = JudgeAnswersConfig {
        method,
        threshold,
        anchors,
        band: args.band,
        judge_top: args.judge_top,
    };
    let prepared = prepare(&items, &config, cache.as_ref(), &lexicon)?;
    let plan = judge_plan(&items, &prepared, &config);
    // Identical prompts (the same question, answer and ground truth) are
    // judged and costed once.
    let mut prompts: Vec<String> = Vec::new();
    let mut prompt_of: Vec<usize> = Vec::with_capacity(plan.len());
    {
        let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for &i in &plan {
            let p = prompt::render(&items[i].question, &items[i].answer, &items[i].ground_truth);
            let at = *seen.entry(p.clone()).or_insert_with(|| {
                prompts.push(p);
                prompts.len() - 1
            });
            prompt_of.push(at);
        }
    }

    let mut estimate = None;
    if let Some(j) = &judge {
        let mut cached = 0;
        for p in &prompts {
            cached += j.is_cached(p)? as usize;
        }
        let e = cost::estimate(
            prompts.len() - cached,
            cached,
            args.judge.tokens_per_eval,
            args.judge.price_per_1k,
        );
        let line = format!(
            "judge cost estimate: {} calls x {} tokens / 1000 x ${}/1k tokens = ${:.4} ({} verdicts cached, free)",
            e.evaluations, e.tokens_per_eval, e.price_per_1k, e.usd, e.cached
        );
        if args.judge.estimate_cost {
            outln!("{line}");
            return Ok(EXIT_OK);
        }
        if let Some(max) = args.judge.max_cost {
            if e.usd > max {
                return Err(InputError(format!(
                    "{line}: above --max-cost ${max}; nothing was called"
                ))
                .into());
            }
        }
        errln!("{line}");
        estimate = Some(e);
    } else if args.judge.estimate_cost {
        outln!(
            "judge cost estimate: 0 calls (method {} does not use the judge) = $0.0000",
            method.as_str()
        );
        return Ok(EXIT_OK);
    }

    let verdicts = match &judge {
        Some(j) if !prompts.is_empty() => {
            let done = std::sync::atomic::AtomicUsize::new(0);
            let total = prompts.len();
            let report = |_: usize, _: &crate::judge::Verdict| {
                let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if d % 50 == 0 || d == total {
                    errln!("judged {d}/{total}");
                }
            };
            let v = j.judge_all(&prompts, args.judge.judge_concurrency, &report)?;
            plan.iter()
                .zip(&prompt_of)
                .map(|(&item, &p)| (item, v[p].clone()))
                .collect()
        }
        _ => Vec::new(),
    };
    if let Some(e) = &embedder {
        warn_truncation(e);
    }
    let counts = judge.as_ref().map(Judge::counts).unwrap_or_default();
    let signature = signature(&config, embedder.as_ref(), judge.as_ref(), &lexicon);
    let drawn = dynamic.as_ref().and_then(|d| d.drawn.as_deref());
    let (scores, summary) = finish(
        &items, &prepared, &verdicts, &config, drawn, counts, signature,
    );

    let mut inputs = BTreeMap::from([(
        "input".to_string(),
        InputFile::new(&args.input, &input_bytes),
    )]);
    if let Some((path, bytes)) = dynamic.as_ref().and_then(|d| d.file.as_ref()) {
        inputs.insert("validation".into(), InputFile::new(path, bytes));
    }
    let settings = json!({
        "method": method.as_str(),
        "threshold": threshold,
        "threshold_arg": args.threshold,
        "anchors": anchors,
        "anchors_arg": format!("{:?}", args.semantic.anchors).to_lowercase(),
        "optimize": optimize_name(args.semantic.optimize),
        "band": args.band,
        "judge_top": args.judge_top,
        "validation": dynamic.as_ref().map(|d| d.info.clone()),
        "positive_above": crate::semantic::methods::POSITIVE_ABOVE,
        "model": embedder.as_ref().map(|e| json!({
            "name": e.name(),
            "dir": e.dir().display().to_string(),
            "sha256": e.digest(),
            "max_tokens": e.max_tokens(),
            "dim": e.dim(),
            "signature": e.signature(),
        })),
        "judge": judge.as_ref().map(|j| json!({
            "url": crate::secrets::redact_url(j.client().endpoint()),
            "model": j.client().model(),
            "prompt_sha256": crate::report::sha256_hex(prompt::TEMPLATE.as_bytes()),
            "temperature": prompt::TEMPERATURE,
            "max_tokens": prompt::MAX_TOKENS,
            "timeout_s": args.judge.judge_timeout,
            "attempts": args.judge.judge_attempts,
            "backoff_ms": args.judge.judge_backoff_ms,
            "concurrency": args.judge.judge_concurrency,
            "cache": j.cache().map(|c| c.path().display().to_string()),
            "key": if crate::judge::key_from_env().is_some() { "from environment (not recorded)" } else { "none" },
            "cost_estimate": estimate,
        })),
        "embedding_cache": cache.as_ref().map(|c| { let (computed, reused) = c.counts(); json!({"embedded": computed, "reused": reused}) }),
        "truncated_texts": embedder.as_ref().map(Embedder::truncated_texts),
        "plots": !args.no_plots,
        "out": args.out.display().to_string(),
    });
    let mut histograms: Vec<(String, Vec<f64>)> = vec![(
        method.as_str().to_string(),
        scores.iter().filter_map(|s| s.score).collect(),
    )];
    if method == Method::Hybrid {
        histograms.push((
            "semantic_fixed".into(),
            prepared.base_scores.iter().flatten().copied().collect(),
        ));
    }
    if method != Method::Keyword {
        histograms.push((
            "keyword".into(),
            items
                .iter()
                .map(|i| keyword_score(&i.answer, &i.ground_truth))
                .collect(),
        ));
    }

    let folder = RunFolder::create(&args.out, started)?;
    let (path, ()) = complete_run(folder, |folder| {
        write_run(
            folder,
            &scores,
            &summary,
            &histograms,
            inputs,
            settings,
            started,
            args.no_plots,
            &lexicon,
        )
    })?;

    if args.json {
        errln!("run folder: {}", path.display());
        outln!("{}", serde_json::to_string(&summary)?);
    } else {
        print_summary(&summary)?;
        outln!("run folder: {}", path.display());
    }
    if summary.judge.failed > 0 {
        errln!(
            "error: {} judge verdicts failed (see judge_status/judge_error in scores.jsonl); rerun to retry them: verdicts already given are cached",
            summary.judge.failed
        );
        return Ok(EXIT_RUNTIME);
    }
    Ok(EXIT_OK)
}

fn signature(
    config: &JudgeAnswersConfig,
    embedder: Option<&Embedder>,
    judge: Option<&Judge>,
    lexicon: &Lexicon,
) -> String {
    let mut parts = vec![
        format!("corpus-eval:{}", env!("CARGO_PKG_VERSION")),
        format!("method:{}", config.method.as_str()),
    ];
    match config.method {
        Method::Keyword => parts.push(format!(
            "norm:{}|match:substring|miss:0.5",
            crate::text::NORMALIZER_SIGNATURE
        )),
        Method::LlmJudge => {}
        _ => {
            parts.push(format!("threshold:{:.2}", config.threshold));
            if config.anchors {
                parts.push(format!("{ANCHORS_SIGNATURE}|{}", lexicon.signature()));
            } else {
                parts.push("anchors:off".into());
            }
        }
    }
    if config.method == Method::Hybrid {
        parts.push(format!(
            "band:{}|judge_top:{}",
            config.band, config.judge_top
        ));
    }
    if let Some(e) = embedder {
        parts.push(e.signature());
    }
    if let Some(j) = judge {
        parts.push(j.signature());
    }
    parts.join("|")
}

#[allow(clippy::too_many_arguments)]
fn write_run(
    folder: &RunFolder,
    scores: &[ItemScore],
    summary: &JudgeAnswersSummary,
    histograms: &[(String, Vec<f64>)],
    inputs: BTreeMap<String, InputFile>,
    settings: Value,
    started: SystemTime,
    no_plots: bool,
    lexicon: &Lexicon,
) -> anyhow::Result<()> {
    let mut lines = Vec::new();
    for s in scores {
        serde_json::to_writer(&mut lines, s)?;
        lines.push(b'\n');
    }
    write_atomic(&folder.file("scores.jsonl"), &lines)?;
    write_json(&folder.file("summary.json"), summary)?;
    let mut outputs = vec!["scores.jsonl".to_string(), "summary.json".to_string()];
    if !no_plots {
        for (name, values) in histograms {
            let file = format!("score_distribution_{name}.png");
            let half = values.iter().filter(|v| **v == 0.5).count();
            let title = format!(
                "Score distribution: {name} (n={}, scores of 0.5: {half})",
                values.len()
            );
            render_score_histogram(
                &folder.file(&file),
                &ScoreHistogram {
                    title: &title,
                    footnote: &summary.signature,
                    scores: values,
                },
            )?;
            outputs.push(file);
        }
    }
    outputs.push("manifest.json".into());
    let manifest = Manifest::new(
        "judge-answers",
        inputs,
        settings,
        summary.signature.clone(),
        started,
        outputs,
    )
    .with_lexicon(lexicon);
    write_json(&folder.file("manifest.json"), &manifest)?;
    Ok(())
}

fn print_summary(s: &JudgeAnswersSummary) -> anyhow::Result<()> {
    let rows: Vec<Vec<String>> = s
        .systems
        .iter()
        .map(|x| {
            vec![
                x.rank.map_or("-".into(), |r| r.to_string()),
                x.system.clone(),
                x.n.to_string(),
                x.mean_score
                    .map_or("n/a (nothing scored)".into(), |m| format!("{m:.4}")),
            ]
        })
        .collect();
    outln!(
        "{}",
        grid_table(&["rank", "system", "n", "mean score"], &rows)
    );
    let f = |v: Option<f64>| {
        v.map(|x| format!("{x:.4}"))
            .unwrap_or_else(|| "n/a (no labels)".into())
    };
    let mut lines = vec![
        vec!["method".to_string(), s.method.as_str().to_string()],
        vec![
            "threshold".into(),
            s.threshold
                .map(|t| format!("{t:.2}"))
                .unwrap_or_else(|| "n/a".into()),
        ],
        vec![
            "anchors".into(),
            if s.anchors { "on".into() } else { "off".into() },
        ],
        vec![
            "items".into(),
            format!("{} ({} scored)", s.overall.n, s.overall.n_scored),
        ],
        vec![
            "mean score".into(),
            s.overall
                .mean_score
                .map(|m| format!("{m:.4}"))
                .unwrap_or_else(|| "n/a".into()),
        ],
        vec![
            "scores 0 / 0.5 / 1 / other".into(),
            format!(
                "{} / {} / {} / {}",
                s.score_counts.zero, s.score_counts.half, s.score_counts.one, s.score_counts.other
            ),
        ],
        vec!["accuracy".into(), f(s.overall.accuracy)],
        vec!["precision".into(), f(s.overall.precision)],
        vec!["recall".into(), f(s.overall.recall)],
        vec!["f1".into(), f(s.overall.f1)],
    ];
    if let Some(h) = &s.held_out {
        lines.push(vec![
            "held out (not used to choose the threshold)".into(),
            format!(
                "n {}, mean {}, accuracy {}, f1 {}",
                h.n,
                h.mean_score.map_or("n/a".into(), |m| format!("{m:.4}")),
                f(h.accuracy),
                f(h.f1)
            ),
        ]);
    }
    if s.method.uses_judge() {
        lines.push(vec![
            "judge calls / cached / failed".into(),
            format!(
                "{} / {} / {}",
                s.judge.calls, s.judge.cached, s.judge.failed
            ),
        ]);
    }
    outln!("{}", grid_table(&["", "value"], &lines));
    outln!("signature: {}", s.signature);
    Ok(())
}
