//! `corpus-eval text-eval`: the text evaluator over a row file, with a run
//! folder (results.tsv, results.json, summary.json, two charts, manifest).

use super::similarity::{load_embedder, warn_truncation, ModelArgs};
use super::{complete_run, load_lexicon, read_input, InputError, WordnetArgs, EXIT_OK};
use crate::jobs::text_eval::{fallback_pairs, Config, Inputs, Semantics};
use crate::jobs::{self, JobConfig};
use crate::report::charts::{render_bar_chart, Bar, BarChart};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::table::grid_table;
use crate::report::{write_atomic, write_json, write_json_array, RunFolder};
use crate::semantic::EmbeddingCache;
use crate::semantic::EngineKind;
use crate::texteval::config::{Thresholds, Weights};
use crate::texteval::input::load_text_rows;
use crate::texteval::output::{self, TextResult, DIMENSIONS};
use crate::texteval::patterns::Patterns;
use crate::texteval::{Category, Profile, SemanticPair, SemanticSource, TextRow};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Arguments of `text-eval`. Each setting is a field of
/// [`crate::jobs::text_eval::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct TextEvalArgs {
    /// Rows {"id", "category", "question", "reference", "response"}: a JSON
    /// array, JSON Lines, .csv or .tsv.
    #[arg(required_unless_present = "print_config")]
    pub input: Option<PathBuf>,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// JSON file overriding weights: {"categories": {"Factual": {"accuracy",
    /// "relevance", "safety", "quality"}, ...}, "accuracy": {...},
    /// "relevance": {...}, "quality": {...}} (any subset).
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// JSON file overriding pass thresholds: {"accuracy", "relevance",
    /// "safety", "quality"} (any subset).
    #[arg(long, value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// Pattern file replacing datasets/text-eval-patterns.json.
    #[arg(long, value_name = "FILE")]
    pub patterns: Option<PathBuf>,
    /// reference: the original framework's published numbers; standard:
    /// conventional definitions (see the README) [default: reference].
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
    /// Compute the semantic columns with the TF-IDF fallback instead of the
    /// embedding model.
    #[arg(long)]
    pub no_embeddings: bool,
    /// Print the summary as JSON (the last thing on stdout).
    #[arg(long)]
    pub json: bool,
    /// Folder of the sentence-embedding model (default: $CORPUS_EVAL_MODEL_DIR,
    /// then models/all-MiniLM-L6-v2, then the Hugging Face cache).
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// The forward pass: fused, or candle-transformers' BertModel
    /// [default: fused].
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// WordNet.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
}

impl TextEvalArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        if let Some(out) = &self.out {
            c.out = out.clone();
        }
        for (field, flag) in [
            (&mut c.weights, &self.weights),
            (&mut c.thresholds, &self.thresholds),
            (&mut c.patterns, &self.patterns),
            (&mut c.model_dir, &self.model_dir),
            (&mut c.wordnet, &self.wordnet.wordnet),
        ] {
            if let Some(p) = flag {
                *field = Some(p.clone());
            }
        }
        if let Some(p) = self.profile {
            c.profile = p;
        }
        if self.no_embeddings {
            c.no_embeddings = true;
        }
        if let Some(e) = self.engine {
            c.engine = match e {
                EngineKind::Fused => "fused".into(),
                EngineKind::CandleBert => "candle-bert".into(),
            };
        }
        c.validate()?;
        Ok(c)
    }
}

fn model_args(config: &Config) -> ModelArgs {
    ModelArgs {
        model_dir: config.model_dir.clone(),
        engine: if config.engine == "candle-bert" {
            EngineKind::CandleBert
        } else {
            EngineKind::Fused
        },
    }
}

fn semantics(config: &Config, rows: &[TextRow]) -> anyhow::Result<Semantics> {
    if config.no_embeddings {
        return Ok(fallback_pairs(rows, "--no-embeddings"));
    }
    let model = model_args(config);
    let embedder = match load_embedder(&model) {
        Ok(e) => e,
        Err(e) => {
            // Only a model found nowhere falls back; a folder named by
            // --model-dir or $CORPUS_EVAL_MODEL_DIR, or an incomplete or broken
            // model, is an error (exit 2).
            let nowhere = matches!(
                e.downcast_ref::<crate::semantic::SemanticError>(),
                Some(crate::semantic::SemanticError::NoModel { .. })
            );
            if !nowhere || model.model_dir.is_some() {
                return Err(e);
            }
            errln!(
                "warning: no embedding model found; the semantic columns use the TF-IDF fallback (embeddings: \"fallback-tfidf\" in summary.json). Run scripts/fetch-model to get all-MiniLM-L6-v2."
            );
            return Ok(fallback_pairs(rows, "no embedding model found"));
        }
    };
    let cache = EmbeddingCache::new(&embedder);
    let texts: Vec<(&str, &str)> = rows
        .iter()
        .flat_map(|r| {
            [
                (r.reference.as_str(), r.response.as_str()),
                (r.question.as_str(), r.response.as_str()),
            ]
        })
        .collect();
    let cos = cache.similarities(&texts)?;
    warn_truncation(&embedder);
    Ok(Semantics {
        pairs: cos
            .chunks(2)
            .map(|c| SemanticPair {
                similarity: c[0],
                relevance: c[1],
            })
            .collect(),
        source: SemanticSource::Embeddings,
        detail: embedder.signature(),
    })
}

/// The weights, thresholds and patterns the configuration names.
fn read_files(config: &Config) -> anyhow::Result<(Weights, Thresholds, Patterns)> {
    let text_of = |p: &PathBuf| -> anyhow::Result<String> { super::as_text(p, read_input(p)?) };
    let weights = match &config.weights {
        Some(p) => {
            let (w, warnings) = Weights::from_json(&p.display().to_string(), &text_of(p)?)
                .map_err(|e| InputError(e.to_string()))?;
            for w in warnings {
                errln!("warning: {w}");
            }
            w
        }
        None => Weights::default(),
    };
    let thresholds = match &config.thresholds {
        Some(p) => Thresholds::from_json(&p.display().to_string(), &text_of(p)?)
            .map_err(|e| InputError(e.to_string()))?,
        None => Thresholds::default(),
    };
    let patterns = match &config.patterns {
        Some(p) => Patterns::parse(&p.display().to_string(), &text_of(p)?)
            .map_err(|e| InputError(e.to_string()))?,
        None => Patterns::bundled(),
    };
    Ok((weights, thresholds, patterns))
}

/// Runs `text-eval`.
pub fn run(args: TextEvalArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let Some(input) = &args.input else {
        return Err(InputError("text-eval needs INPUT".into()).into());
    };
    let (path, output, sem) = execute(&config, input)?;
    if args.json {
        errln!("run folder: {}", path.display());
        outln!("{}", output.summary);
    } else {
        print_table(&output.summary)?;
        if sem.source == SemanticSource::FallbackTfidf {
            outln!("embeddings: fallback-tfidf ({})", sem.detail);
        }
        outln!("signature: {}", output.signature);
        outln!("run folder: {}", path.display());
    }
    Ok(EXIT_OK)
}

/// Runs the job on an input file and writes its run folder (`rerun` calls
/// this too).
pub(crate) fn execute(
    config: &Config,
    input: &Path,
) -> anyhow::Result<(PathBuf, jobs::text_eval::Output, Semantics)> {
    let started = SystemTime::now();
    config.validate()?;
    let (weights, thresholds, patterns) = read_files(config)?;
    let input_bytes = read_input(input)?;
    let rows = load_text_rows(input)?;
    if rows.is_empty() {
        return Err(InputError(format!("{}: no rows", input.display())).into());
    }
    let lexicon = load_lexicon(&WordnetArgs {
        wordnet: config.wordnet.clone(),
    })?;
    let sem = semantics(config, &rows)?;
    let job_inputs = Inputs {
        lexicon: &lexicon,
        weights,
        thresholds,
        patterns,
    };
    let output = jobs::text_eval::run(config, &rows, &job_inputs, &sem)?;
    let mut inputs = BTreeMap::from([("input".to_string(), InputFile::new(input, &input_bytes))]);
    for (name, p) in [
        ("weights", &config.weights),
        ("thresholds", &config.thresholds),
        ("patterns", &config.patterns),
    ] {
        if let Some(p) = p {
            inputs.insert(name.into(), InputFile::new(p, &read_input(p)?));
        }
    }
    let settings = json!({
        "profile": config.profile.as_str(),
        "embeddings": sem.source.as_str(),
        "embeddings_detail": sem.detail,
        "notes": output.notes,
        "weights": job_inputs.weights,
        "thresholds": job_inputs.thresholds,
        "patterns_sha256": job_inputs.patterns.digest,
        "rows": output.results.len(),
        "out": config.out.display().to_string(),
    });
    let folder = RunFolder::create(&config.out, started)?;
    let (path, ()) = complete_run(folder, |folder| {
        write_atomic(
            &folder.file("results.tsv"),
            output::to_tsv(&output.results).as_bytes(),
        )?;
        write_json_array(&folder.file("results.json"), &output.results)?;
        write_json(&folder.file("summary.json"), &output.summary)?;
        draw_charts(folder, &output.results, &output.signature)?;
        let manifest = Manifest::new(
            "text-eval",
            inputs,
            settings,
            output.signature.clone(),
            started,
            vec![
                "results.tsv".into(),
                "results.json".into(),
                "summary.json".into(),
                "composite_scores.png".into(),
                "pass_rates.png".into(),
                "manifest.json".into(),
            ],
        )
        .with_config(jobs::to_value(config));
        write_json(
            &folder.file("manifest.json"),
            &manifest.with_lexicon(&lexicon),
        )?;
        Ok(())
    })?;
    Ok((path, output, sem))
}

fn print_table(summary: &Value) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    let mut add = |name: &str, g: &Value| {
        let m = |k: &str| {
            g["means"][k]
                .as_f64()
                .map_or("-".into(), |v| format!("{v:.4}"))
        };
        let p = |k: &str| {
            g["pass_rates"][k]
                .as_f64()
                .map_or("-".into(), |v| format!("{:.0}%", v * 100.0))
        };
        rows.push(vec![
            name.to_string(),
            g["n"].to_string(),
            m("overall_score"),
            m("composite_accuracy"),
            m("composite_relevance"),
            m("composite_safety"),
            m("composite_quality"),
            p("all"),
        ]);
    };
    if let Some(cats) = summary["categories"].as_object() {
        for (name, g) in cats {
            add(name, g);
        }
    }
    add("All", &summary["overall"]);
    outln!(
        "{}",
        grid_table(
            &[
                "category",
                "n",
                "overall",
                "accuracy",
                "relevance",
                "safety",
                "quality",
                "passed all"
            ],
            &rows
        )
    );
    Ok(())
}

fn draw_charts(folder: &RunFolder, results: &[TextResult], signature: &str) -> anyhow::Result<()> {
    let mut composite_bars = Vec::new();
    let mut pass_bars = Vec::new();
    for c in Category::ALL {
        let rows: Vec<&TextResult> = results
            .iter()
            .filter(|r| r.category == c.as_str())
            .collect();
        if rows.is_empty() {
            continue;
        }
        let n = rows.len();
        let mean =
            |f: &dyn Fn(&TextResult) -> f64| rows.iter().map(|r| f(r)).sum::<f64>() / n as f64;
        composite_bars.push(Bar {
            label: format!("{} · overall", c.as_str()),
            value: mean(&|r| r.overall_score).clamp(0.0, 1.0),
            n,
            ci: None,
        });
        for d in DIMENSIONS {
            let value = mean(&|r| r.composite(d));
            let passed = mean(&|r| f64::from(u8::from(r.passed(d))));
            composite_bars.push(Bar {
                label: format!("{} · {d}", c.as_str()),
                value: value.clamp(0.0, 1.0),
                n,
                ci: None,
            });
            pass_bars.push(Bar {
                label: format!("{} · {d}", c.as_str()),
                value: passed,
                n,
                ci: None,
            });
        }
    }
    render_bar_chart(
        &folder.file("composite_scores.png"),
        &BarChart {
            title: "Text evaluation: mean composite scores per category",
            value_label: "mean score (0-1)",
            category_label: "category · dimension",
            footnote: signature,
            bars: &composite_bars,
        },
    )?;
    render_bar_chart(
        &folder.file("pass_rates.png"),
        &BarChart {
            title: "Text evaluation: pass rates per category",
            value_label: "share of rows passing the threshold",
            category_label: "category · dimension",
            footnote: signature,
            bars: &pass_bars,
        },
    )?;
    Ok(())
}
