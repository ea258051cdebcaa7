//! `corpus-eval judge-answers` and `corpus-eval threshold`: flags into
//! [`crate::jobs::judge_answers`] configurations, and the terminal output.

use super::similarity::ModelArgs;
use super::{set, ConfigArgs, InputError, WordnetArgs, EXIT_OK, EXIT_RUNTIME};
use crate::jobs::judge_answers::{
    estimate_line, execute_threshold_run, report_progress, threshold_signature, write_run, Config,
    Context, ThresholdConfig,
};
use crate::jobs::JobConfig;
use crate::report::text::judge_summary;
use std::path::PathBuf;
use std::time::SystemTime;

/// Options shared by `judge-answers` and `threshold`.
#[derive(Debug, Clone, clap::Args)]
pub struct SemanticOptions {
    /// Require the ground truth's anchors (numbers in any form, capitalized
    /// names, dates) in the answer for a semantic score of 1 [default: on].
    #[arg(long, value_parser = ["on", "off"])]
    pub anchors: Option<String>,
    /// What threshold search maximizes [default: accuracy].
    #[arg(long, value_parser = ["accuracy", "f1"])]
    pub optimize: Option<String>,
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// WordNet (anchor synonyms).
    #[command(flatten)]
    pub wordnet: WordnetArgs,
}

/// Arguments of `judge-answers`. Each setting is a field of
/// [`crate::jobs::judge_answers::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct JudgeAnswersArgs {
    /// Items: JSON array or JSONL of {"id"?, "question"?, "answer", "ground_truth", "label"? (0/1), "system"?}.
    #[arg(required_unless_present = "print_config")]
    pub input: Option<PathBuf>,
    /// The method [default: semantic_fixed].
    #[arg(long, value_parser = ["keyword", "semantic_fixed", "semantic_dynamic", "llm_judge", "hybrid"])]
    pub method: Option<String>,
    /// Similarity threshold of semantic_fixed and hybrid [default: 0.75].
    #[arg(long)]
    pub threshold: Option<f64>,
    /// semantic_dynamic: choose the threshold on this file's items.
    #[arg(long, value_name = "FILE")]
    pub validation: Option<PathBuf>,
    /// semantic_dynamic without --validation: the share of INPUT drawn (with --seed) to choose the threshold on [default: 0.1].
    #[arg(long)]
    pub validation_fraction: Option<f64>,
    /// Seed of the validation draw [default: 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// hybrid: the judge re-scores items whose similarity lies within BAND of the threshold [default: 0.1].
    #[arg(long)]
    pub band: Option<f64>,
    /// hybrid: the judge also re-scores every item of the N systems with the best semantic mean [default: 0].
    #[arg(long, value_name = "N")]
    pub judge_top: Option<usize>,
    /// Shared semantic options.
    #[command(flatten)]
    pub semantic: SemanticOptions,
    /// The judge.
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print summary.json with `run_folder` as one JSON object on stdout,
    /// nothing else there.
    #[arg(long)]
    pub json: bool,
    /// Do not draw the score-distribution PNGs.
    #[arg(long)]
    pub no_plots: bool,
    /// Add the agreement of the pass/fail verdicts with the labels to the
    /// summary (Cohen's kappa, Krippendorff's alpha, Gwet's AC1, ...).
    #[arg(long)]
    pub agreement: bool,
    /// Score only the items whose id falls in shard I of N (FNV-1a of the
    /// id mod N, plus 1); join the shards with `corpus-eval merge`.
    /// semantic_dynamic draws its validation items from the whole input.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<crate::shard::Shard>,
    /// `--fail-under`, `--junit`.
    #[command(flatten)]
    pub gates: super::GateArgs,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: ConfigArgs,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

/// The LLM judge's options.
#[derive(Debug, Clone, clap::Args)]
pub struct JudgeArgs {
    /// OpenAI-compatible API base URL (".../v1") or chat-completions URL; default $CORPUS_EVAL_JUDGE_URL. The key comes from $CORPUS_EVAL_JUDGE_KEY or $OPENAI_API_KEY.
    #[arg(long, value_name = "URL")]
    pub judge_url: Option<String>,
    /// The judge model [default: gpt-3.5-turbo].
    #[arg(long)]
    pub judge_model: Option<String>,
    /// Per-request timeout, seconds, 0.001 to 3600 [default: 30].
    #[arg(long)]
    pub judge_timeout: Option<f64>,
    /// Attempts per item before it is recorded as failed, 1 to 100 [default: 3].
    #[arg(long)]
    pub judge_attempts: Option<u32>,
    /// First retry wait, milliseconds, 0 to 120000 (doubled each retry, with jitter; Retry-After wins) [default: 500].
    #[arg(long)]
    pub judge_backoff_ms: Option<u64>,
    /// Requests in flight, 1 to 256 [default: 4].
    #[arg(long)]
    pub judge_concurrency: Option<usize>,
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
    /// Tokens per evaluation, for the estimate [default: 200].
    #[arg(long)]
    pub tokens_per_eval: Option<f64>,
    /// USD per 1,000 tokens, for the estimate [default: 0.002].
    #[arg(long)]
    pub price_per_1k: Option<f64>,
}

impl SemanticOptions {
    /// Applies the shared flags to a configuration's fields.
    fn apply(
        &self,
        anchors: &mut crate::jobs::judge_answers::Anchors,
        optimize: &mut crate::semantic::methods::Optimize,
        model_dir: &mut Option<PathBuf>,
        engine: &mut String,
        wordnet: &mut Option<PathBuf>,
    ) -> anyhow::Result<()> {
        super::set_enum(anchors, &self.anchors)?;
        super::set_enum(optimize, &self.optimize)?;
        super::set_some(model_dir, &self.model.model_dir);
        set(engine, &self.model.engine);
        super::set_some(wordnet, &self.wordnet.wordnet);
        Ok(())
    }
}

impl JudgeAnswersArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        super::set_enum(&mut c.method, &self.method)?;
        set(&mut c.threshold, &self.threshold);
        super::set_some(&mut c.validation, &self.validation);
        set(&mut c.validation_fraction, &self.validation_fraction);
        set(&mut c.seed, &self.seed);
        set(&mut c.band, &self.band);
        set(&mut c.judge_top, &self.judge_top);
        self.semantic.apply(
            &mut c.anchors,
            &mut c.optimize,
            &mut c.model_dir,
            &mut c.engine,
            &mut c.wordnet,
        )?;
        let j = &self.judge;
        super::set_some(&mut c.judge_url, &j.judge_url);
        set(&mut c.judge_model, &j.judge_model);
        set(&mut c.judge_timeout, &j.judge_timeout);
        set(&mut c.judge_attempts, &j.judge_attempts);
        set(&mut c.judge_backoff_ms, &j.judge_backoff_ms);
        set(&mut c.judge_concurrency, &j.judge_concurrency);
        super::set_some(&mut c.cache, &j.cache);
        c.no_cache |= j.no_cache;
        super::set_some(&mut c.max_cost, &j.max_cost);
        set(&mut c.tokens_per_eval, &j.tokens_per_eval);
        set(&mut c.price_per_1k, &j.price_per_1k);
        set(&mut c.out, &self.out);
        c.no_plots |= self.no_plots;
        c.agreement |= self.agreement;
        super::set_some(&mut c.shard, &self.shard);
        self.gates.apply(&mut c.fail_under)?;
        c.validate()?;
        Ok(c)
    }
}

/// Arguments of `threshold`.
#[derive(Debug, clap::Args)]
pub struct ThresholdArgs {
    /// Items: JSON array or JSONL of {"answer", "ground_truth", "label"? (0/1), ...}.
    #[arg(required_unless_present = "print_config")]
    pub input: Option<PathBuf>,
    /// Shared semantic options.
    #[command(flatten)]
    pub semantic: SemanticOptions,
    /// Also report the agreement of the verdicts at the chosen threshold
    /// with the labels (Cohen's kappa, Krippendorff's alpha, Gwet's AC1, ...).
    #[arg(long)]
    pub agreement: bool,
    /// Print one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
    /// Write a run folder under DIR (manifest.json, threshold.json, items.csv).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: ConfigArgs,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

/// Runs `threshold`: prints the grid and, last, `threshold: 0.60` (or with
/// `--json` one JSON object).
pub fn run_threshold(args: ThresholdArgs) -> anyhow::Result<u8> {
    let mut c: ThresholdConfig = args.settings.base()?;
    args.semantic.apply(
        &mut c.anchors,
        &mut c.optimize,
        &mut c.model_dir,
        &mut c.engine,
        &mut c.wordnet,
    )?;
    c.agreement |= args.agreement;
    super::set_some(&mut c.out, &args.out);
    c.validate()?;
    if args.settings.printed(&c)? {
        return Ok(EXIT_OK);
    }
    let Some(input) = &args.input else {
        return Err(InputError("threshold needs INPUT".into()).into());
    };
    let (folder, out, signature) = args.progress.run(|| execute_threshold_run(&c, input))?;
    if out.search.target == "labels" && out.unlabelled > 0 {
        errln!(
            "warning: {} items without a label are left out of the search",
            out.unlabelled
        );
    }
    let anchors = c.anchors == crate::jobs::judge_answers::Anchors::On;
    if args.json {
        let full = threshold_signature(&out, anchors, &signature);
        super::print_json(&out.to_json(anchors, &full), folder.as_deref())?;
        return Ok(EXIT_OK);
    }
    if let Some(path) = &folder {
        errln!("run folder: {}", path.display());
    }
    if let Some(a) = &out.agreement {
        outln!(
            "agreement of the verdicts at the chosen threshold with the labels:\n{}",
            crate::report::text::agreement_report(a)
        );
    }
    outln!("{}", threshold_report(&out, anchors, &signature));
    Ok(EXIT_OK)
}

/// Runs `judge-answers`.
pub fn run(args: JudgeAnswersArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let Some(input) = &args.input else {
        return Err(InputError("judge-answers needs INPUT".into()).into());
    };
    let bytes = crate::jobs::read_input(input)?;
    let context = Context::load(&config, input)?;
    // Embedding (semantic methods) reports its progress too.
    let plan = args.progress.run(|| context.plan(&config))?;
    let estimate = plan.estimate()?;
    let line = estimate_line(estimate.as_ref(), config.method);
    if args.judge.estimate_cost {
        if args.json {
            let e = estimate.unwrap_or(crate::judge::cost::CostEstimate {
                evaluations: 0,
                cached: 0,
                tokens_per_eval: config.tokens_per_eval,
                price_per_1k: config.price_per_1k,
                usd: 0.0,
            });
            let v = serde_json::json!({"method": config.method.as_str(), "estimate": e});
            super::print_json(&v, None)?;
        } else {
            outln!("{line}");
        }
        return Ok(EXIT_OK);
    } else if estimate.is_some() {
        errln!("{line}");
    }
    let output = args.progress.run(|| plan.run(&report_progress))?;
    let path = write_run(&config, (input, &bytes), &context, &output, started)?;
    let summary = &output.summary;
    if args.json {
        super::print_json(summary, Some(&path))?;
    } else {
        outln!("{}", judge_summary(summary));
        outln!("run folder: {}", path.display());
    }
    if summary.judge.failed > 0 {
        errln!(
            "error: {} judge verdicts failed (see judge_status/judge_error in scores.jsonl); rerun to retry them: verdicts already given are cached",
            summary.judge.failed
        );
        return Ok(EXIT_RUNTIME);
    }
    args.gates
        .finish::<Config>(&config.fail_under, summary, EXIT_OK)
}

/// `threshold`'s output: the grid, the target and settings, and last
/// `threshold: 0.60`.
fn threshold_report(
    out: &crate::jobs::judge_answers::ThresholdOutput,
    anchors: bool,
    model_signature: &str,
) -> String {
    let s = &out.search;
    let target = if s.target == "labels" {
        "human labels"
    } else {
        "proxy labels (similarity > 0.9)"
    };
    format!(
        "{}\ntarget: {target} ({} items), optimize: {}, anchors: {}, {model_signature}\nthreshold: {:.2}",
        crate::report::text::threshold_table(s),
        out.n,
        crate::jobs::judge_answers::optimize_name(s.optimize),
        if anchors { "on" } else { "off" },
        s.best
    )
}
