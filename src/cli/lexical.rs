//! `corpus-eval lexical`: ROUGE, BLEU, chrF and SQuAD EM/F1 equal to the
//! reference libraries (rouge-score, sacrebleu, the official SQuAD scripts).

use super::{InputError, EXIT_OK};
use crate::jobs::lexical::{execute, Config};
use crate::jobs::JobConfig;
use crate::report::text::lexical_report;
use std::path::PathBuf;

/// Arguments of `lexical`. Each setting is a field of
/// [`crate::jobs::lexical::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct LexicalArgs {
    /// INPUT: a JSON, JSON Lines, CSV or TSV file of items with
    /// `prediction` and `reference` (a text) or `references` (a list), or a
    /// text-eval / judge-answers run folder; or a predictions text file
    /// followed by one or more REFERENCES files, one segment per line.
    #[arg(
        required_unless_present = "print_config",
        value_name = "INPUT [REFERENCES...]"
    )]
    pub files: Vec<PathBuf>,
    /// Metrics, comma-separated: rouge1, rouge2, rougeL, rougeLsum (and
    /// rouge3..rouge9), bleu, chrf, squad [default: all but rouge3..9].
    #[arg(long, value_name = "M,...", value_delimiter = ',')]
    pub metric: Option<Vec<String>>,
    /// ROUGE: Porter-stem tokens longer than 3 characters (NLTK's variant,
    /// as rouge-score's use_stemmer).
    #[arg(long)]
    pub stemmer: bool,
    /// ROUGE-Lsum: split lines into sentences at . ! ? first (a simple
    /// rule, not NLTK's Punkt).
    #[arg(long)]
    pub split_summaries: bool,
    /// BLEU tokenizer [default: 13a].
    #[arg(long, value_parser = ["13a", "none", "intl", "char"])]
    pub bleu_tokenize: Option<String>,
    /// BLEU smoothing [default: exp].
    #[arg(long, value_parser = ["exp", "floor", "add-k", "none"])]
    pub bleu_smooth: Option<String>,
    /// BLEU smoothing value for floor (default 0.1) or add-k (default 1).
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub bleu_smooth_value: Option<f64>,
    /// SQuAD script conventions: 1.1 or 2.0 [default: 2.0].
    #[arg(long, value_parser = ["1.1", "2.0"])]
    pub squad_version: Option<String>,
    /// The prediction field of an items file [default: prediction; a
    /// run folder: its command's answer field].
    #[arg(long, value_name = "FIELD")]
    pub prediction_field: Option<String>,
    /// The reference field (a text or a list of texts) [default:
    /// references, else reference; a run folder: its command's].
    #[arg(long, value_name = "FIELD")]
    pub reference_field: Option<String>,
    /// Bootstrap resamples over items for 95% intervals; 0: none
    /// [default: 0].
    #[arg(long)]
    pub resamples: Option<usize>,
    /// Bootstrap seed [default: 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write one JSON line per item to FILE.
    #[arg(long, value_name = "FILE")]
    pub per_item: Option<PathBuf>,
    /// Write a run folder under DIR (manifest.json, summary.json,
    /// items.jsonl, items.csv).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print one JSON object on stdout (with `run_folder` when one is
    /// written), nothing else there.
    #[arg(long)]
    pub json: bool,
    /// `--fail-under`, `--junit`.
    #[command(flatten)]
    pub gates: super::GateArgs,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

impl LexicalArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        super::set(&mut c.metrics, &self.metric);
        c.stemmer |= self.stemmer;
        c.split_summaries |= self.split_summaries;
        super::set(&mut c.bleu_tokenize, &self.bleu_tokenize);
        super::set(&mut c.bleu_smooth, &self.bleu_smooth);
        super::set_some(&mut c.bleu_smooth_value, &self.bleu_smooth_value);
        super::set(&mut c.squad_version, &self.squad_version);
        super::set_some(&mut c.prediction_field, &self.prediction_field);
        super::set_some(&mut c.reference_field, &self.reference_field);
        super::set(&mut c.resamples, &self.resamples);
        super::set(&mut c.seed, &self.seed);
        super::set_some(&mut c.per_item, &self.per_item);
        super::set_some(&mut c.out, &self.out);
        self.gates.apply(&mut c.fail_under)?;
        crate::jobs::check_gates::<Config>(&c.fail_under)
            .map_err(|e| super::InputError(format!("--fail-under: {e}")))?;
        if !self.settings.print_config {
            c.validate()?;
        }
        Ok(c)
    }
}

/// Runs `lexical`.
pub fn run(args: LexicalArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    if args.files.is_empty() {
        return Err(InputError("lexical needs INPUT".into()).into());
    }
    let (folder, output) = args.progress.run(|| execute(&config, &args.files))?;
    if args.json {
        super::print_json(&output.summary, folder.as_deref())?;
    } else {
        outln!("{}", lexical_report(&output.summary));
        if let Some(path) = &folder {
            outln!("run folder: {}", path.display());
        }
    }
    args.gates
        .finish::<Config>(&config.fail_under, &output.summary, EXIT_OK)
}
