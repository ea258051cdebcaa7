//! `corpus-eval build-lexicon`: WordNet dict folder -> compact lexicon.

use super::EXIT_OK;
use std::io::Write;
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
pub fn run(args: BuildLexiconArgs) -> anyhow::Result<u8> {
    // A device, FIFO or folder is refused before any work (exit 2).
    crate::report::check_destination(&args.out)?;
    let text = crate::lexicon::build::build_compact(&args.dict_dir)?;
    let check = crate::lexicon::Lexicon::from_compact(text.clone(), "built lexicon", "")?;
    let bytes = if args.out.extension().is_some_and(|e| e == "gz") {
        let mut enc = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::best());
        enc.write_all(text.as_bytes())?;
        enc.finish()?
    } else {
        text.into_bytes()
    };
    crate::report::write_atomic(&args.out, &bytes)?;
    if args.json {
        let v = serde_json::json!({
            "output": args.out.display().to_string(),
            "bytes": bytes.len(),
            "sha256": crate::report::sha256_hex(&bytes),
            "lemmas": check.lemma_count(),
            "synsets": check.synset_count(),
        });
        outln!("{v}");
        return Ok(EXIT_OK);
    }
    errln!(
        "wrote {} ({} bytes): {} lemmas, {} synsets",
        args.out.display(),
        bytes.len(),
        check.lemma_count(),
        check.synset_count()
    );
    Ok(EXIT_OK)
}
