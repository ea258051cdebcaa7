//! CSV output (RFC 4180) through the `csv` crate: a field holding a comma,
//! quote, CR or LF is quoted, quotes inside doubled; records end with `\n`.
//!
//! ```
//! use corpus_eval::report::csv::{csv_line, CsvBuffer};
//! assert_eq!(csv_line(&["a", "b,c", "say \"hi\""]), "a,\"b,c\",\"say \"\"hi\"\"\"\n");
//! let mut t = CsvBuffer::new();
//! t.record(["id", "score"]);
//! t.record(["x", "0.5"]);
//! assert_eq!(t.into_string(), "id,score\nx,0.5\n");
//! ```

use super::{write_atomic, ReportError};
use std::path::Path;

/// A CSV table built in memory (records of any length, `\n` line ends).
pub struct CsvBuffer {
    writer: csv::Writer<Vec<u8>>,
}

impl Default for CsvBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for CsvBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvBuffer").finish_non_exhaustive()
    }
}

impl CsvBuffer {
    /// An empty table.
    pub fn new() -> Self {
        CsvBuffer {
            writer: csv::WriterBuilder::new()
                .flexible(true)
                .terminator(csv::Terminator::Any(b'\n'))
                .from_writer(Vec::new()),
        }
    }

    /// Appends one record.
    pub fn record<I, S>(&mut self, fields: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        // Writing into memory with `flexible` set cannot fail.
        let written = self.writer.write_record(fields);
        debug_assert!(written.is_ok(), "CSV into memory: {written:?}");
    }

    /// Appends one field to the record being written (finish it with
    /// [`CsvBuffer::end_record`]).
    pub fn field(&mut self, field: impl AsRef<[u8]>) {
        let written = self.writer.write_field(field);
        debug_assert!(written.is_ok(), "CSV into memory: {written:?}");
    }

    /// Ends the record begun with [`CsvBuffer::field`].
    pub fn end_record(&mut self) {
        let written = self.writer.write_record(None::<&[u8]>);
        debug_assert!(written.is_ok(), "CSV into memory: {written:?}");
    }

    /// The table's bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        match self.writer.into_inner() {
            Ok(bytes) => bytes,
            // Flushing into a Vec cannot fail.
            Err(e) => {
                debug_assert!(false, "CSV into memory: {e}");
                Vec::new()
            }
        }
    }

    /// The table as text (every field came from `&str`, so it is UTF-8).
    pub fn into_string(self) -> String {
        String::from_utf8(self.into_bytes())
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// A number as a CSV field: the shortest text that reads back to the same
/// `f64` (never `-0`), empty for None.
///
/// ```
/// use corpus_eval::report::csv::number;
/// assert_eq!((number(Some(0.25)), number(Some(-0.0)), number(None)), ("0.25".into(), "0".into(), String::new()));
/// ```
pub fn number(x: Option<f64>) -> String {
    x.map(|v| (v + 0.0).to_string()).unwrap_or_default()
}

/// One CSV record, newline-terminated.
pub fn csv_line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut t = CsvBuffer::new();
    t.record(fields.iter().map(|s| s.as_ref().as_bytes()));
    t.into_string()
}

/// Writes a header and rows as CSV, atomically.
pub fn write_csv(path: &Path, header: &[String], rows: &[Vec<String>]) -> Result<(), ReportError> {
    write_atomic(path, csv_text(header, rows).as_bytes())
}

/// A header and rows as CSV text.
pub fn csv_text(header: &[String], rows: &[Vec<String>]) -> String {
    let mut t = CsvBuffer::new();
    t.record(header);
    for r in rows {
        t.record(r);
    }
    t.into_string()
}
