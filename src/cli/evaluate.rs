//! `corpus-eval evaluate`: the main job.

use super::{InputError, WordnetArgs, EXIT_OK};
use crate::jobs::evaluate::{execute, Config};
use crate::jobs::JobConfig;
use crate::report::text::evaluate_summary;
use std::path::PathBuf;

/// Arguments of `evaluate`. Each setting is a field of
/// [`crate::jobs::evaluate::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct EvaluateArgs {
    /// Question file: {"qa_pairs": [...]} or a bare array.
    #[arg(required_unless_present = "print_config")]
    pub questions: Option<PathBuf>,
    /// Transcripts: a folder (every .txt, .md, .vtt, .srt, .json, .docx and
    /// .qdpx in it), one such file, a REFI-QDA .qdpx project, or the JSON
    /// chunks (an array, or {"documents": [...]}, of {page_content, metadata.FILE}).
    #[arg(required_unless_present = "print_config")]
    pub transcripts: Option<PathBuf>,
    /// Names of diarized speakers (whisperX `SPEAKER_00`...):
    /// `SPEAKER_00=Interviewer,SPEAKER_01=Tomas`, or a CSV file of
    /// `label,name` rows; unmapped labels stay as they are.
    #[arg(long, value_name = "MAP|FILE")]
    pub speaker_map: Option<String>,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The weakest quote verdict that counts as found [default: normalized].
    #[arg(long = "match", value_parser = MATCH_LEVELS)]
    pub match_level: Option<String>,
    /// Similarity (0..1) a fuzzy match needs [default: 0.9].
    #[arg(long)]
    pub fuzzy_threshold: Option<f64>,
    /// How the fuzzy search finds passages: `lossless` (every one at or
    /// above min(0.8, the threshold) found) or `fast` (the word pairs'
    /// windows only) [default: lossless].
    #[arg(long, value_parser = ["lossless", "fast"])]
    pub fuzzy_search: Option<String>,
    /// Do not draw the PNG charts.
    #[arg(long)]
    pub no_plots: bool,
    /// Do not write the HTML audit report (report.html).
    #[arg(long)]
    pub no_html: bool,
    /// Seed of the bootstrap confidence intervals [default: 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Speaker labels.
    #[command(flatten)]
    pub speakers: super::SpeakerArgs,
    /// WordNet source.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
    /// `--fail-under`, `--junit`.
    #[command(flatten)]
    pub gates: super::GateArgs,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
    /// Process only the pairs whose id falls in shard I of N (FNV-1a of
    /// the id mod N, plus 1); join the shards' run folders with
    /// `corpus-eval merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<crate::shard::Shard>,
    /// Print the summary (summary.json with `run_folder`) as one JSON
    /// object on stdout, nothing else there.
    #[arg(long)]
    pub json: bool,
}

impl EvaluateArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        super::set(&mut c.out, &self.out);
        super::set_enum(&mut c.match_level, &self.match_level)?;
        super::set(&mut c.fuzzy_threshold, &self.fuzzy_threshold);
        super::set_enum(&mut c.fuzzy_search, &self.fuzzy_search)?;
        c.no_plots |= self.no_plots;
        c.no_html |= self.no_html;
        super::set(&mut c.seed, &self.seed);
        self.speakers.apply(super::SpeakerFields {
            pattern: &mut c.speaker_pattern,
            labels: &mut c.interviewer_labels,
            aliases: &mut c.speaker_aliases,
            fillers: &mut c.fillers,
        });
        super::set_some(&mut c.wordnet, &self.wordnet.wordnet);
        super::set_some(&mut c.shard, &self.shard);
        super::set_some(&mut c.speaker_map, &self.speaker_map);
        self.gates.apply(&mut c.fail_under)?;
        c.validate()?;
        Ok(c)
    }
}

/// `--match` values.
pub(crate) const MATCH_LEVELS: [&str; 3] = ["exact", "normalized", "fuzzy"];

/// Runs the main job.
pub fn run(args: EvaluateArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let (Some(questions), Some(transcripts)) = (&args.questions, &args.transcripts) else {
        return Err(InputError("evaluate needs QUESTIONS and TRANSCRIPTS".into()).into());
    };
    // Partly used huge pages cost this job ~20% of its peak RSS and it
    // gains no time from them (see `pages::small_pages`).
    crate::sys::pages::small_pages();
    let (path, summary) = args
        .progress
        .run(|| execute(&config, questions, transcripts))?;
    if args.json {
        super::print_json(&summary, Some(&path))?;
    } else {
        outln!("{}", evaluate_summary(&summary, config.match_level));
        outln!("run folder: {}", path.display());
    }
    args.gates
        .finish::<Config>(&config.fail_under, &summary, EXIT_OK)
}
