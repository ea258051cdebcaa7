//! `--paraphrase` for the jobs that check quotes (evaluate, check-report):
//! the model loaded once, before the inputs (a missing model is exit 2 at
//! once), the tier applied, the signature extended.

use super::JobError;
use crate::corpus::TranscriptSet;
use crate::evaluate::{ParaphraseCounts, QuoteResult};
use std::path::Path;

/// The paraphrase tier's model and threshold.
#[cfg(feature = "semantic")]
#[derive(Debug)]
pub(crate) struct Paraphraser {
    embedder: crate::semantic::Embedder,
    threshold: f64,
}

/// The paraphrase tier's model and threshold (a build without the
/// `semantic` feature has none).
#[cfg(not(feature = "semantic"))]
#[derive(Debug)]
pub(crate) enum Paraphraser {}

impl Paraphraser {
    /// The model of a run with `paraphrase` on (None when off).
    pub(crate) fn load(
        paraphrase: bool,
        model_dir: Option<&Path>,
        threshold: f64,
    ) -> Result<Option<Paraphraser>, JobError> {
        if !paraphrase {
            return Ok(None);
        }
        #[cfg(feature = "semantic")]
        {
            let embedder = super::embed::load_embedder(model_dir, "fused")?;
            Ok(Some(Paraphraser {
                embedder,
                threshold,
            }))
        }
        #[cfg(not(feature = "semantic"))]
        {
            let _ = (model_dir, threshold);
            Err(JobError::Input(
                "--paraphrase needs the embedding model: this corpus-eval was built without the `semantic` feature".into(),
            ))
        }
    }

    /// The signature's part: `paraphrase:cos>=THRESHOLD,windows<=3|MODEL`.
    pub(crate) fn signature(&self) -> String {
        #[cfg(feature = "semantic")]
        {
            format!(
                "paraphrase:cos>={},windows<={}|{}",
                self.threshold,
                crate::evaluate::MAX_WINDOW,
                self.embedder.signature()
            )
        }
        #[cfg(not(feature = "semantic"))]
        match *self {}
    }

    /// Applies the tier to `quotes` (each quote's text and result) and
    /// notes on stderr what it did.
    pub(crate) fn apply(
        &self,
        quotes: &mut [(&str, &mut QuoteResult)],
        transcripts: &TranscriptSet,
        speakers: &crate::citations::turns::SpeakerConfig,
    ) -> Result<ParaphraseCounts, JobError> {
        #[cfg(feature = "semantic")]
        {
            let counts = crate::evaluate::apply_paraphrases(
                quotes,
                transcripts,
                speakers,
                &self.embedder,
                self.threshold,
            )
            .map_err(|e| match e {
                crate::evaluate::ParaphraseError::Corpus(e) => JobError::from(e),
                crate::evaluate::ParaphraseError::Semantic(e) => JobError::from(e),
            })?;
            errln!(
                "paraphrase: {} quote{} with no close passage compared with {} passages: {} paraphrase{} (threshold {})",
                counts.compared,
                if counts.compared == 1 { "" } else { "s" },
                counts.passages,
                counts.paraphrases,
                if counts.paraphrases == 1 { "" } else { "s" },
                self.threshold
            );
            Ok(counts)
        }
        #[cfg(not(feature = "semantic"))]
        {
            let _ = (quotes, transcripts, speakers);
            match *self {}
        }
    }
}
