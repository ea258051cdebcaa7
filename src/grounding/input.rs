//! Reading grounding rows: `{"id", "query", "response", "context"}` from
//! JSON, JSON Lines, CSV or TSV; context is a text or a list of texts.

use super::GroundingRow;
use crate::corpus::tabular::load_rows;
use crate::corpus::CorpusError;
use rayon::prelude::*;
use std::path::Path;

/// Loads and validates every row; the first bad one is an error naming the
/// file, the row and the field.
pub fn load_grounding_rows(path: &Path) -> Result<Vec<GroundingRow>, CorpusError> {
    grounding_rows(path, load_rows(path)?)
}

/// The rows of JSON text (an array of row objects or JSON Lines); `path`
/// names the input in errors.
pub fn parse_grounding_rows(path: &Path, text: &str) -> Result<Vec<GroundingRow>, CorpusError> {
    grounding_rows(path, crate::corpus::tabular::parse_json_rows(path, text)?)
}

/// Validates rows read from `path`.
fn grounding_rows(
    path: &Path,
    rows: Vec<crate::corpus::tabular::Row>,
) -> Result<Vec<GroundingRow>, CorpusError> {
    let rows: Vec<Result<GroundingRow, CorpusError>> = rows
        .into_par_iter()
        .map(|mut row| {
            Ok(GroundingRow {
                id: row.id(path)?,
                query: row.take_text(path, "query")?,
                response: row.take_text(path, "response")?,
                context: row.take_texts(path, "context")?,
            })
        })
        .collect();
    // The first bad row in file order is the one reported.
    rows.into_iter().collect()
}
