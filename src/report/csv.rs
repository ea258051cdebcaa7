//! CSV output (RFC 4180): a field holding a comma, quote, CR or LF is
//! quoted, quotes inside doubled; lines end with CRLF-free `\n`.
//!
//! ```
//! use corpus_eval::report::csv::csv_line;
//! assert_eq!(csv_line(&["a", "b,c", "say \"hi\""]), "a,\"b,c\",\"say \"\"hi\"\"\"\n");
//! ```

use super::{write_atomic, ReportError};
use std::path::Path;

fn push_field(out: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// Appends one CSV record (newline-terminated) to `out`.
pub fn push_record<'a>(out: &mut String, fields: impl IntoIterator<Item = &'a str>) {
    for (i, f) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_field(out, f);
    }
    out.push('\n');
}

/// One CSV record, newline-terminated.
pub fn csv_line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut out = String::new();
    push_record(&mut out, fields.iter().map(AsRef::as_ref));
    out
}

/// Writes a header and rows as CSV, atomically.
pub fn write_csv(path: &Path, header: &[String], rows: &[Vec<String>]) -> Result<(), ReportError> {
    write_atomic(path, csv_text(header, rows).as_bytes())
}

/// A header and rows as CSV text.
pub fn csv_text(header: &[String], rows: &[Vec<String>]) -> String {
    let mut text = csv_line(header);
    for r in rows {
        text.push_str(&csv_line(r));
    }
    text
}
