//! `corpus-eval text-eval`: the text evaluator over a row file, with a run
//! folder (results.tsv, results.json, summary.json, two charts, manifest).

use super::similarity::{load_embedder, warn_truncation, ModelArgs};
use super::{complete_run, load_lexicon, read_input, InputError, WordnetArgs, EXIT_OK};
use crate::report::charts::{render_bar_chart, Bar, BarChart};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::table::grid_table;
use crate::report::{fnv1a, write_atomic, write_json, write_json_array, RunFolder};
use crate::semantic::EmbeddingCache;
use crate::texteval::config::{Thresholds, Weights};
use crate::texteval::input::load_text_rows;
use crate::texteval::output::{self, TextResult, DIMENSIONS};
use crate::texteval::patterns::Patterns;
use crate::texteval::{
    fallback_space, relevance_space, Category, Evaluator, Profile, SemanticPair, SemanticSource,
    TextRow,
};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

/// Arguments of `text-eval`.
#[derive(Debug, clap::Args)]
pub struct TextEvalArgs {
    /// Rows {"id", "category", "question", "reference", "response"}: a JSON
    /// array, JSON Lines, .csv or .tsv.
    pub input: PathBuf,
    /// Parent folder of the run folder.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
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
    /// conventional definitions (see the README).
    #[arg(long, value_enum, default_value = "reference")]
    pub profile: Profile,
    /// Compute the semantic columns with the TF-IDF fallback instead of the
    /// embedding model.
    #[arg(long)]
    pub no_embeddings: bool,
    /// Print the summary as JSON (the last thing on stdout).
    #[arg(long)]
    pub json: bool,
    /// The embedding model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// WordNet.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
}

/// The semantic cosines of every row and where they came from.
struct Semantics {
    pairs: Vec<SemanticPair>,
    source: SemanticSource,
    /// The model's signature, or why the fallback was used.
    detail: String,
}

fn semantics(args: &TextEvalArgs, rows: &[TextRow]) -> anyhow::Result<Semantics> {
    let fallback = |why: String| {
        let space = fallback_space(rows);
        let pairs = rows
            .par_iter()
            .map(|r| SemanticPair {
                similarity: space.cosine(&r.reference, &r.response),
                relevance: space.cosine(&r.question, &r.response),
            })
            .collect();
        Semantics {
            pairs,
            source: SemanticSource::FallbackTfidf,
            detail: why,
        }
    };
    if args.no_embeddings {
        return Ok(fallback("--no-embeddings".into()));
    }
    let embedder = match load_embedder(&args.model) {
        Ok(e) => e,
        Err(e) => {
            // Only a model found nowhere falls back; a folder named by
            // --model-dir or $CORPUS_EVAL_MODEL_DIR, or an incomplete or broken
            // model, is an error (exit 2).
            let nowhere = matches!(
                e.downcast_ref::<crate::semantic::SemanticError>(),
                Some(crate::semantic::SemanticError::NoModel { .. })
            );
            if !nowhere || args.model.model_dir.is_some() {
                return Err(e);
            }
            errln!(
                "warning: no embedding model found; the semantic columns use the TF-IDF fallback (embeddings: \"fallback-tfidf\" in summary.json). Run scripts/fetch-model to get all-MiniLM-L6-v2."
            );
            return Ok(fallback("no embedding model found".into()));
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

fn read_config(args: &TextEvalArgs) -> anyhow::Result<(Weights, Thresholds, Patterns)> {
    let text_of = |p: &PathBuf| -> anyhow::Result<String> { super::as_text(p, read_input(p)?) };
    let weights = match &args.weights {
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
    let thresholds = match &args.thresholds {
        Some(p) => Thresholds::from_json(&p.display().to_string(), &text_of(p)?)
            .map_err(|e| InputError(e.to_string()))?,
        None => Thresholds::default(),
    };
    let patterns = match &args.patterns {
        Some(p) => Patterns::parse(&p.display().to_string(), &text_of(p)?)
            .map_err(|e| InputError(e.to_string()))?,
        None => Patterns::bundled(),
    };
    Ok((weights, thresholds, patterns))
}

/// The metric signature, sacrebleu style.
fn signature(
    profile: Profile,
    sem: &Semantics,
    lexicon_sig: &str,
    patterns: &Patterns,
    weights: &Weights,
    thresholds: &Thresholds,
) -> String {
    let (bleu, tfidf, read) = match profile {
        Profile::Reference => (
            "bleu:split-clipped-dropzero+bp-prep",
            "tfidf:fixed-8docs-sklearn-smooth-l2",
            "readability:chars-per-word",
        ),
        Profile::Standard => (
            "bleu:sacrebleu-sentence-13a-exp",
            "tfidf:run-collection-sklearn-smooth-l2",
            "readability:flesch-kincaid",
        ),
    };
    let semantic = match sem.source {
        SemanticSource::Embeddings => sem.detail.clone(),
        SemanticSource::FallbackTfidf => "semantic:fallback-tfidf".into(),
    };
    let w = serde_json::to_vec(weights).unwrap_or_default();
    format!(
        "text-eval:v1|profile:{}|prep:py-lower-strip-nonword|rouge:clipped-f1|{bleu}|{tfidf}|{read}|{semantic}|{lexicon_sig}|patterns:{}|weights:{:016x}|thresholds:a{}-r{}-s{}-q{}",
        profile.as_str(),
        &patterns.digest[..12.min(patterns.digest.len())],
        fnv1a(&w),
        thresholds.accuracy,
        thresholds.relevance,
        thresholds.safety,
        thresholds.quality
    )
}

/// Runs `text-eval`.
pub fn run(args: TextEvalArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    let (weights, thresholds, patterns) = read_config(&args)?;
    let input_bytes = read_input(&args.input)?;
    let rows = load_text_rows(&args.input)?;
    if rows.is_empty() {
        return Err(InputError(format!("{}: no rows", args.input.display())).into());
    }
    let lexicon = load_lexicon(&args.wordnet)?;
    let sem = semantics(&args, &rows)?;
    let evaluator = Evaluator {
        profile: args.profile,
        lexicon: &lexicon,
        patterns: &patterns,
        weights: &weights,
        thresholds: &thresholds,
        relevance_space: relevance_space(args.profile, &rows),
    };
    let results: Vec<TextResult> = rows
        .par_iter()
        .zip(&sem.pairs)
        .map(|(row, pair)| evaluator.evaluate(row, *pair))
        .collect();
    let signature = signature(
        args.profile,
        &sem,
        &lexicon.signature(),
        &patterns,
        &weights,
        &thresholds,
    );
    let mut summary = output::summary(&results);
    let notes = column_notes(&sem);
    if let Value::Object(m) = &mut summary {
        let mut head = serde_json::Map::new();
        head.insert("command".into(), json!("text-eval"));
        head.insert("profile".into(), json!(args.profile.as_str()));
        head.insert("embeddings".into(), json!(sem.source.as_str()));
        head.insert("notes".into(), notes.clone());
        head.append(m);
        head.insert("weights".into(), serde_json::to_value(&weights)?);
        head.insert("thresholds".into(), serde_json::to_value(&thresholds)?);
        head.insert("signature".into(), json!(signature));
        *m = head;
    }
    let mut inputs = BTreeMap::from([(
        "input".to_string(),
        InputFile::new(&args.input, &input_bytes),
    )]);
    for (name, p) in [
        ("weights", &args.weights),
        ("thresholds", &args.thresholds),
        ("patterns", &args.patterns),
    ] {
        if let Some(p) = p {
            inputs.insert(name.into(), InputFile::new(p, &read_input(p)?));
        }
    }
    let settings = json!({
        "profile": args.profile.as_str(),
        "embeddings": sem.source.as_str(),
        "embeddings_detail": sem.detail,
        "notes": notes,
        "weights": weights,
        "thresholds": thresholds,
        "patterns_sha256": patterns.digest,
        "rows": results.len(),
        "out": args.out.display().to_string(),
    });
    let folder = RunFolder::create(&args.out, started)?;
    let (path, ()) = complete_run(folder, |folder| {
        write_atomic(
            &folder.file("results.tsv"),
            output::to_tsv(&results).as_bytes(),
        )?;
        write_json_array(&folder.file("results.json"), &results)?;
        write_json(&folder.file("summary.json"), &summary)?;
        draw_charts(folder, &results, &signature)?;
        let manifest = Manifest::new(
            "text-eval",
            inputs,
            settings,
            signature.clone(),
            started,
            vec![
                "results.tsv".into(),
                "results.json".into(),
                "summary.json".into(),
                "composite_scores.png".into(),
                "pass_rates.png".into(),
                "manifest.json".into(),
            ],
        );
        write_json(
            &folder.file("manifest.json"),
            &manifest.with_lexicon(&lexicon),
        )?;
        Ok(())
    })?;
    if args.json {
        errln!("run folder: {}", path.display());
        outln!("{summary}");
    } else {
        print_table(&summary)?;
        if sem.source == SemanticSource::FallbackTfidf {
            outln!("embeddings: fallback-tfidf ({})", sem.detail);
        }
        outln!("signature: {signature}");
        outln!("run folder: {}", path.display());
    }
    Ok(EXIT_OK)
}

fn column_notes(sem: &Semantics) -> Value {
    match sem.source {
        SemanticSource::Embeddings => json!({}),
        SemanticSource::FallbackTfidf => {
            let note = format!(
                "TF-IDF cosine fitted on the run's questions, references and responses (fallback-tfidf: {}), not sentence embeddings",
                sem.detail
            );
            json!({
                "accuracy_semantic_similarity": note,
                "relevance_semantic_relevance": note,
            })
        }
    }
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
