//! `corpus-eval build-lexicon`: [`crate::jobs::build_lexicon`] from the
//! command line.

use super::EXIT_OK;
use std::path::PathBuf;

/// Arguments of `build-lexicon`.
#[derive(Debug, clap::Args)]
pub struct BuildLexiconArgs {
    /// WordNet dict folder (e.g. /usr/share/wordnet from Debian's wordnet-base).
    pub dict_dir: PathBuf,
    /// Output file; gzipped when it ends in .gz.
    pub out: PathBuf,
    /// Print one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
}

/// Builds and writes the lexicon.
pub(super) fn run(args: BuildLexiconArgs) -> anyhow::Result<u8> {
    let b = crate::jobs::build_lexicon::build(&args.dict_dir, &args.out)?;
    match args.json {
        true => outln!("{}", serde_json::to_string(&b)?),
        false => errln!(
            "wrote {} ({} bytes): {} lemmas, {} synsets",
            b.output,
            b.bytes,
            b.lemmas,
            b.synsets
        ),
    }
    Ok(EXIT_OK)
}
