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

/// One CSV record, newline-terminated.
pub fn csv_line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut out = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_field(&mut out, f.as_ref());
    }
    out.push('\n');
    out
}

/// Writes a header and rows as CSV, atomically.
pub fn write_csv(path: &Path, header: &[String], rows: &[Vec<String>]) -> Result<(), ReportError> {
    let mut text = csv_line(header);
    for r in rows {
        text.push_str(&csv_line(r));
    }
    write_atomic(path, text.as_bytes())
}
