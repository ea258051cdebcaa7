//! `corpus-eval check-report`: the quotes of a written report, found,
//! attributed and checked against the transcripts.

use super::{InputError, EXIT_OK};
use crate::jobs::check_report::{execute, gate_failures, parse_classes, Config, Output};
use crate::jobs::JobConfig;
use std::path::PathBuf;

/// Arguments of `check-report`. Each setting is a field of
/// [`crate::jobs::check_report::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct CheckReportArgs {
    /// The report: Markdown, plain text or a Word .docx file.
    #[arg(required_unless_present = "print_config")]
    pub report: Option<PathBuf>,
    /// Transcripts: a folder, one transcript file, a REFI-QDA .qdpx
    /// project, or corpus-eval's JSON chunks (as `evaluate` takes them).
    #[arg(required_unless_present = "print_config")]
    pub transcripts: Option<PathBuf>,
    /// What the report's labels stand for: a CSV file of
    /// `label,source,speaker` rows (`speaker` optional).
    #[arg(long, value_name = "MAP.csv")]
    pub sources: Option<PathBuf>,
    /// Quotes with fewer words are not checked (scare quotes) [default: 4].
    #[arg(long, value_name = "N")]
    pub min_words: Option<usize>,
    /// Quality gate: exit 3, once the run folder is written, when a quote
    /// falls in one of these attribution classes (comma-separated:
    /// cross_turn, interviewer, wrong_speaker, ok, other_source, altered,
    /// stitched, fabricated).
    #[arg(long, value_name = "CLASS,...")]
    pub fail_on: Vec<String>,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The weakest quote verdict that counts as found [default: normalized].
    #[arg(long = "match", value_parser = super::evaluate::MATCH_LEVELS)]
    pub match_level: Option<String>,
    /// Similarity (0..1) a fuzzy match needs [default: 0.9].
    #[arg(long)]
    pub fuzzy_threshold: Option<f64>,
    /// How the fuzzy search finds passages: `lossless` or `fast`
    /// [default: lossless].
    #[arg(long, value_parser = ["lossless", "fast"])]
    pub fuzzy_search: Option<String>,
    /// Names of diarized speakers: `SPEAKER_00=Interviewer,...`, or a CSV
    /// file of `label,name` rows.
    #[arg(long, value_name = "MAP|FILE")]
    pub speaker_map: Option<String>,
    /// Do not write report.html.
    #[arg(long)]
    pub no_html: bool,
    /// Speaker labels.
    #[command(flatten)]
    pub speakers: super::SpeakerArgs,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
    /// Print the summary (summary.json with `run_folder`) as one JSON
    /// object on stdout, nothing else there.
    #[arg(long)]
    pub json: bool,
}

impl CheckReportArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        super::set(&mut c.out, &self.out);
        super::set_some(&mut c.sources, &self.sources);
        super::set(&mut c.min_words, &self.min_words);
        super::set_enum(&mut c.match_level, &self.match_level)?;
        super::set(&mut c.fuzzy_threshold, &self.fuzzy_threshold);
        super::set_enum(&mut c.fuzzy_search, &self.fuzzy_search)?;
        super::set_some(&mut c.speaker_map, &self.speaker_map);
        c.no_html |= self.no_html;
        self.speakers.apply(super::SpeakerFields {
            pattern: &mut c.speaker_pattern,
            labels: &mut c.interviewer_labels,
            aliases: &mut c.speaker_aliases,
            fillers: &mut c.fillers,
        });
        for spec in &self.fail_on {
            for class in parse_classes(spec)? {
                if !c.fail_on.contains(&class) {
                    c.fail_on.push(class);
                }
            }
        }
        c.validate()?;
        Ok(c)
    }
}

/// The terminal's summary: the counts, then the quotes that are not `ok`.
fn terminal(output: &Output) -> String {
    let s = &output.summary;
    let mut out = format!(
        "{} quotes ({} cited, {} unresolved, {} uncited): {} found, {} ok",
        s.quotes, s.cited, s.unresolved, s.uncited, s.found, s.ok
    );
    if let Some(share) = s.ok_share {
        out.push_str(&format!(" ({:.1}%)", share * 100.0));
    }
    out.push('\n');
    for (class, n) in &s.attribution {
        if *n > 0 {
            out.push_str(&format!("  {class:<14} {n}\n"));
        }
    }
    for q in output.quotes.iter().filter(|q| !q.ok()) {
        let class = q
            .result
            .attributed
            .attribution
            .map_or("unknown_source", |a| a.as_str());
        out.push_str(&format!(
            "{}:{}: {class}: {}\n",
            q.line,
            q.column,
            crate::corpus::preview(&q.text)
        ));
    }
    out.push_str(&format!(
        "signature: {}",
        crate::signature::shorten(&s.signature)
    ));
    out
}

/// Runs `check-report`.
pub fn run(args: CheckReportArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let (Some(report), Some(transcripts)) = (&args.report, &args.transcripts) else {
        return Err(InputError("check-report needs REPORT and TRANSCRIPTS".into()).into());
    };
    let (path, output) = execute(&config, report, transcripts)?;
    if args.json {
        super::print_json(&output.summary, Some(&path))?;
    } else {
        outln!("{}", terminal(&output));
        outln!("run folder: {}", path.display());
    }
    let failed = gate_failures(&config, &output.quotes);
    for q in &failed {
        let class = q.result.attributed.attribution.map_or("", |a| a.as_str());
        errln!(
            "quality gate failed: {}: line {}, column {}: {class}: {}",
            report.display(),
            q.line,
            q.column,
            crate::corpus::preview(&q.text)
        );
    }
    Ok(if failed.is_empty() {
        EXIT_OK
    } else {
        crate::gates::EXIT_GATE
    })
}
