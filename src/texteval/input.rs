//! Reading the text evaluator's rows: `{"id", "category", "question",
//! "reference", "response"}` from JSON, JSON Lines, CSV or TSV.

use super::{Category, TextRow};
use crate::corpus::tabular::load_rows;
use crate::corpus::CorpusError;
use rayon::prelude::*;
use std::path::Path;

/// Loads and validates every row; the first bad one is an error naming the
/// file, the row and the field.
pub fn load_text_rows(path: &Path) -> Result<Vec<TextRow>, CorpusError> {
    text_rows(path, load_rows(path)?)
}

/// The rows of JSON text (an array of row objects or JSON Lines); `path`
/// names the input in errors.
pub fn parse_text_rows(path: &Path, text: &str) -> Result<Vec<TextRow>, CorpusError> {
    text_rows(path, crate::corpus::tabular::parse_json_rows(path, text)?)
}

/// Validates rows read from `path`.
fn text_rows(
    path: &Path,
    rows: Vec<crate::corpus::tabular::Row>,
) -> Result<Vec<TextRow>, CorpusError> {
    let rows: Vec<Result<TextRow, CorpusError>> = rows
        .par_iter()
        .map(|row| {
            let id = row.id(path)?;
            let name = row.text(path, "category")?;
            let category = Category::parse(&name).ok_or_else(|| {
                row.invalid(
                    path,
                    "category",
                    format!(
                        "unknown category {:?} (expected Factual, Explanatory, Instruction, Creative or Sensitive)",
                        crate::corpus::Preview(&name)
                    ),
                )
            })?;
            Ok(TextRow {
                id,
                category,
                question: row.text(path, "question")?,
                reference: row.text(path, "reference")?,
                response: row.text(path, "response")?,
            })
        })
        .collect();
    // The first bad row in file order is the one reported.
    rows.into_iter().collect()
}
