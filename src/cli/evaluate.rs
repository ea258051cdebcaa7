//! `corpus-eval evaluate`: the main job.

use super::{as_text, load_lexicon, read_input, InputError, WordnetArgs, EXIT_OK};
use crate::citations::MatchLevel;
use crate::corpus::{parse_questions, parse_transcripts};
use crate::evaluate::{annotate, evaluate, summarize_evaluation, EvalConfig, Summary};
use crate::report::charts::{render_bar_chart, Bar, BarChart};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::{rfc3339, table::summary_table, write_json, RunFolder};
use crate::stats::GroupStat;
use anyhow::Context;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

/// `--match` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum MatchArg {
    /// Only exact substrings count as found.
    Exact,
    /// Exact or normalized matches count.
    Normalized,
    /// Exact, normalized or fuzzy matches count.
    Fuzzy,
}

/// Arguments of `evaluate`.
#[derive(Debug, clap::Args)]
pub struct EvaluateArgs {
    /// Question file: {"qa_pairs": [...]} or a bare array.
    pub questions: PathBuf,
    /// Transcript corpus: an array (or {"documents": [...]}) of {page_content, metadata.FILE}.
    pub transcripts: PathBuf,
    /// Parent folder of the run folder.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
    /// The weakest quote verdict that counts as found.
    #[arg(long = "match", value_enum, default_value = "normalized")]
    pub match_level: MatchArg,
    /// Similarity (0..1) a fuzzy match needs.
    #[arg(long, default_value_t = crate::citations::DEFAULT_FUZZY_THRESHOLD)]
    pub fuzzy_threshold: f64,
    /// Do not draw the PNG charts.
    #[arg(long)]
    pub no_plots: bool,
    /// Seed of the bootstrap confidence intervals.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// WordNet source.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
}

fn bars(groups: &BTreeMap<String, GroupStat>) -> Vec<Bar> {
    groups
        .iter()
        .filter(|(_, s)| s.n > 0)
        .map(|(k, s)| Bar {
            label: k.clone(),
            value: s.mean,
            n: s.n,
            ci: Some((s.ci_low, s.ci_high)),
        })
        .collect()
}

/// Runs the main job.
pub fn run(args: EvaluateArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    if !(0.0..=1.0).contains(&args.fuzzy_threshold) {
        return Err(InputError(format!(
            "--fuzzy-threshold must be between 0 and 1, got {}",
            args.fuzzy_threshold
        ))
        .into());
    }
    let q_bytes = read_input(&args.questions)?;
    let t_bytes = read_input(&args.transcripts)?;
    let q_info = InputFile::new(&args.questions, &q_bytes);
    let t_info = InputFile::new(&args.transcripts, &t_bytes);
    let questions = parse_questions(&args.questions, &as_text(&args.questions, q_bytes)?)?;
    let transcripts = parse_transcripts(&args.transcripts, &as_text(&args.transcripts, t_bytes)?)?;
    let lexicon = load_lexicon(&args.wordnet)?;

    let config = EvalConfig {
        match_level: match args.match_level {
            MatchArg::Exact => MatchLevel::Exact,
            MatchArg::Normalized => MatchLevel::Normalized,
            MatchArg::Fuzzy => MatchLevel::Fuzzy,
        },
        fuzzy_threshold: args.fuzzy_threshold,
        seed: args.seed,
        ..EvalConfig::default()
    };
    let eval = evaluate(&questions, &transcripts, &lexicon, &config);
    let summary = summarize_evaluation(&eval);
    for w in &summary.warnings {
        errln!("warning: {w}");
    }
    let results = annotate(&questions, &eval);

    let folder = RunFolder::create(&args.out, started)?;
    let written = write_run(&folder, &args, &results, &summary);
    let mut outputs = match written {
        Ok(o) => o,
        Err(e) => {
            folder.abandon();
            return Err(e);
        }
    };
    outputs.push("manifest.json".into());
    let manifest = Manifest {
        manifest_version: 1,
        tool: "corpus-eval".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        command: "evaluate".into(),
        command_line: crate::report::manifest::command_line(),
        inputs: BTreeMap::from([
            ("questions".to_string(), q_info),
            ("transcripts".to_string(), t_info),
        ]),
        settings: json!({
            "match": config.match_level,
            "fuzzy_threshold": config.fuzzy_threshold,
            "seed": config.seed,
            "bootstrap_resamples": config.resamples,
            "confidence": 0.95,
            "plots": !args.no_plots,
            "out": args.out.display().to_string(),
            "pick_jaro_winkler_threshold": crate::scoring::PICK_JARO_WINKLER_THRESHOLD,
            "normalizer": crate::text::NORMALIZER_SIGNATURE,
            "quote_normalizer": crate::text::aligned::QUOTE_NORMALIZER_SIGNATURE,
            "span_unit": "unicode scalar values (chars) into the transcript joined with \\n",
        }),
        wordnet: Some(json!({
            "source": lexicon.source(),
            "sha256": lexicon.digest(),
            "lemmas": lexicon.lemma_count(),
            "synsets": lexicon.synset_count(),
        })),
        signature: summary.signature.clone(),
        started_at: rfc3339(started),
        finished_at: rfc3339(SystemTime::now()),
        outputs,
    };
    if let Err(e) = write_json(&folder.file("manifest.json"), &manifest) {
        folder.abandon();
        return Err(e.into());
    }
    let path = folder.finish().context("finishing the run folder")?;

    let mut rows: Vec<(&str, &str, GroupStat)> = vec![("overall", "all answers", summary.overall)];
    rows.extend(
        summary
            .by_type
            .iter()
            .map(|(k, s)| ("type", k.as_str(), *s)),
    );
    rows.extend(
        summary
            .transcript_average_scores
            .iter()
            .map(|(k, s)| ("answers by source", k.as_str(), *s)),
    );
    rows.extend(
        summary
            .verbatim_average_scores
            .iter()
            .map(|(k, s)| ("quotes found by source", k.as_str(), *s)),
    );
    rows.push(("existence", "pairs with quotes", summary.existence));
    outln!("{}", summary_table(&rows));
    let verdicts: Vec<String> = summary
        .verdicts
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    outln!(
        "quotes: {} (match: {})",
        verdicts.join(" "),
        config.match_level.as_str()
    );
    if !summary.warnings.is_empty() {
        outln!(
            "{} pair(s) unscored, see warnings above",
            summary.warnings.len()
        );
    }
    outln!("run folder: {}", path.display());
    Ok(EXIT_OK)
}

fn write_run(
    folder: &RunFolder,
    args: &EvaluateArgs,
    results: &serde_json::Value,
    summary: &Summary,
) -> anyhow::Result<Vec<String>> {
    let mut outputs = vec!["results.json".to_string(), "summary.json".to_string()];
    write_json(&folder.file("results.json"), results)?;
    write_json(&folder.file("summary.json"), summary)?;
    if !args.no_plots {
        let footnote = format!("values: mean [95% bootstrap CI] n · {}", summary.signature);
        render_bar_chart(
            &folder.file("transcript_scores.png"),
            &BarChart {
                title: "Mean answer score per transcript",
                value_label: "mean answer score (0-1)",
                category_label: "answer source",
                footnote: &footnote,
                bars: &bars(&summary.transcript_average_scores),
            },
        )?;
        render_bar_chart(
            &folder.file("verbatim_scores.png"),
            &BarChart {
                title: "Share of quotes found per transcript",
                value_label: "quotes found (0-1)",
                category_label: "quote source",
                footnote: &footnote,
                bars: &bars(&summary.verbatim_average_scores),
            },
        )?;
        outputs.push("transcript_scores.png".into());
        outputs.push("verbatim_scores.png".into());
    }
    Ok(outputs)
}
