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

/// The settings of every table: records of any length, `\n` line ends.
fn settings() -> csv::WriterBuilder {
    let mut b = csv::WriterBuilder::new();
    b.flexible(true).terminator(csv::Terminator::Any(b'\n'));
    b
}

impl CsvBuffer {
    /// An empty table.
    pub fn new() -> Self {
        CsvBuffer {
            writer: settings().from_writer(Vec::new()),
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

/// A table written as it is made (to a file, say): the bytes a
/// [`CsvBuffer`] of the same records holds, without holding them.
///
/// ```
/// use corpus_eval::report::csv::CsvStream;
/// let mut out = Vec::new();
/// let mut t = CsvStream::new(&mut out);
/// t.record(["id", "text"]).unwrap();
/// t.record(["x", "a,b"]).unwrap();
/// t.finish().unwrap();
/// assert_eq!(out, b"id,text\nx,\"a,b\"\n");
/// ```
pub struct CsvStream<W: std::io::Write> {
    writer: csv::Writer<W>,
}

impl<W: std::io::Write> std::fmt::Debug for CsvStream<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvStream").finish_non_exhaustive()
    }
}

impl<W: std::io::Write> CsvStream<W> {
    /// A table written to `out`.
    pub fn new(out: W) -> Self {
        CsvStream {
            writer: settings().from_writer(out),
        }
    }

    /// Writes one record (buffered: see [`CsvStream::finish`]).
    pub fn record<I, S>(&mut self, fields: I) -> std::io::Result<()>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        self.writer
            .write_record(fields)
            .map_err(std::io::Error::from)
    }

    /// Passes what is buffered on to the writer.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.writer.flush()
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
