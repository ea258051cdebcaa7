//! `corpus-eval agreement`: Cohen, Fleiss, Krippendorff and Gwet between
//! raters, from one or more files joined on an id column.

use super::{InputError, EXIT_OK};
use crate::agreement::Level;
use crate::jobs::agreement::{execute, Config};
use crate::jobs::JobConfig;
use crate::report::text::agreement_report;
use std::path::PathBuf;

/// Arguments of `agreement`. Each setting is a field of
/// [`crate::jobs::agreement::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct AgreementArgs {
    /// Ratings: CSV, TSV, a JSON array of objects or JSON Lines (by
    /// extension), or a run folder (evaluate's quotes.csv, judge-answers'
    /// items.csv); several files are joined on the id column.
    #[arg(required_unless_present = "print_config")]
    pub files: Vec<PathBuf>,
    /// The id column.
    #[arg(long, value_name = "COL")]
    pub id: Option<String>,
    /// The rater columns, in order [default: every column but the id].
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    pub raters: Option<Vec<String>>,
    /// Level of measurement: nominal (categories), ordinal, interval or
    /// ratio (numbers) [default: nominal].
    #[arg(long, value_parser = ["nominal", "ordinal", "interval", "ratio"])]
    pub level: Option<String>,
    /// Bootstrap resamples over items for the 95% intervals; 0: none
    /// [default: 2000].
    #[arg(long)]
    pub resamples: Option<usize>,
    /// Bootstrap seed [default: 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write a run folder under DIR (manifest.json, agreement.json,
    /// disagreements.csv, confusion_matrix.png).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Skip the confusion-matrix PNG.
    #[arg(long)]
    pub no_plots: bool,
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

impl AgreementArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        super::set(&mut c.id, &self.id);
        super::set_some(&mut c.raters, &self.raters);
        if let Some(level) = &self.level {
            c.level = serde_json::from_value::<Level>(serde_json::Value::String(level.clone()))
                .map_err(|e| InputError(format!("--level {level:?}: {e}")))?;
        }
        super::set(&mut c.resamples, &self.resamples);
        super::set(&mut c.seed, &self.seed);
        super::set_some(&mut c.out, &self.out);
        c.no_plots |= self.no_plots;
        self.gates.apply(&mut c.fail_under)?;
        crate::jobs::check_gates::<Config>(&c.fail_under)
            .map_err(|e| super::InputError(format!("--fail-under: {e}")))?;
        if !self.settings.print_config {
            c.validate()?;
        }
        Ok(c)
    }
}

/// Runs `agreement`.
pub fn run(args: AgreementArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    if args.files.is_empty() {
        return Err(InputError("agreement needs FILE".into()).into());
    }
    let (folder, result) = args.progress.run(|| execute(&config, &args.files))?;
    if args.json {
        super::print_json(&result, folder.as_deref())?;
    } else {
        outln!("{}", agreement_report(&result));
        if let Some(path) = &folder {
            outln!("run folder: {}", path.display());
        }
    }
    args.gates
        .finish::<Config>(&config.fail_under, &result, EXIT_OK)
}
