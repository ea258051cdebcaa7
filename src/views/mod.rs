//! What a person sees: terminal tables and text (`text`, `table`), the
//! HTML audit reports (`audit`, `check_report`, `html`, `svg`) and
//! the PNG charts (`charts`, `panels`). How their files are written (run
//! folders, atomic writes, the PNG encoder) is [`crate::report`]'s.

mod assets;
pub(crate) mod audit;
pub use audit::*;
#[cfg(feature = "charts")]
pub(crate) mod charts;
pub(crate) mod check_report;
pub(crate) mod check_report_files;
pub(crate) mod compare;
pub(crate) mod evaluate_tables;
pub(crate) mod html;
pub use html::*;
#[cfg(feature = "charts")]
pub(crate) mod panels;
pub(crate) mod qdpx;
pub(crate) mod results;
pub(crate) mod svg;
pub use svg::*;
#[cfg(feature = "cli")]
pub(crate) mod table;
#[cfg(feature = "cli")]
pub(crate) mod text;

/// A quote's differences as a table cell: their names joined with `;`
/// (empty when it has none, or none were computed).
pub(crate) fn differences_cell(
    differences: Option<&[crate::citations::differences::Difference]>,
) -> String {
    differences
        .map(|d| d.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(";"))
        .unwrap_or_default()
}

/// A quote's changes of meaning as a table cell: their classes, each
/// once in the list's order, joined with `;` (empty when none or none
/// were computed).
pub(crate) fn meaning_cell(meaning: Option<&[crate::citations::MeaningChange]>) -> String {
    crate::citations::meaning_classes(meaning.unwrap_or_default())
}

/// `n` with its noun, singular for one: `1 quote`, `2 quotes`.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
