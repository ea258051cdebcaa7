//! Metric signatures, sacrebleu style: every setting that can change a
//! number, as `key:value` fields joined by `|`, with the crate version.
//!
//! The long form goes into summaries and manifests; the short form (long
//! values cut) into chart footnotes, where space is scarce.
//!
//! ```
//! use corpus_eval::signature::Signature;
//!
//! let s = Signature::new("rag:v1")
//!     .field("seed", 42)
//!     .field("resamples", 2000)
//!     .part("norm:nfkd+strip-marks+lower+punct-to-space+ws-collapse");
//! let long = s.long();
//! assert!(long.starts_with("rag:v1|seed:42|resamples:2000|norm:nfkd"));
//! assert!(long.ends_with(&format!("|version:{}", env!("CARGO_PKG_VERSION"))));
//! assert!(s.short().contains("norm:nfkd+strip-mark…"));
//! ```

use std::fmt;

/// Longest value (in characters) in the short form.
pub const SHORT_VALUE_CHARS: usize = 16;

/// A metric signature (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    head: String,
    fields: Vec<String>,
}

impl Signature {
    /// A signature whose first field names the metric (e.g. `rag:v1`).
    pub fn new(head: impl Into<String>) -> Signature {
        Signature {
            head: head.into(),
            fields: Vec::new(),
        }
    }

    /// Adds `key:value`.
    pub fn field(mut self, key: &str, value: impl fmt::Display) -> Signature {
        self.fields.push(format!("{key}:{value}"));
        self
    }

    /// Adds a component's own signature (`k:v|k:v...`) as it is.
    pub fn part(mut self, part: impl Into<String>) -> Signature {
        let part = part.into();
        if !part.is_empty() {
            self.fields.push(part);
        }
        self
    }

    fn has_version(&self) -> bool {
        let version = env!("CARGO_PKG_VERSION");
        self.head.starts_with("corpus-eval:")
            || self
                .fields
                .iter()
                .flat_map(|f| f.split('|'))
                .any(|f| f == format!("version:{version}") || f.starts_with("corpus-eval:"))
    }

    fn segments(&self) -> Vec<String> {
        let mut out = vec![self.head.clone()];
        out.extend(self.fields.iter().cloned());
        if !self.has_version() {
            out.push(format!("version:{}", env!("CARGO_PKG_VERSION")));
        }
        out
    }

    /// The long form: every field, then the crate version (unless a field
    /// already names it).
    pub fn long(&self) -> String {
        self.segments().join("|")
    }

    /// The short form: each field's value cut to [`SHORT_VALUE_CHARS`]
    /// characters (with `…`), for chart footnotes.
    pub fn short(&self) -> String {
        shorten(&self.long())
    }
}

/// The short form of a long signature string (see [`Signature::short`]).
pub fn shorten(long: &str) -> String {
    long.split('|')
        .map(|f| match f.split_once(':') {
            Some((k, v)) if v.chars().count() > SHORT_VALUE_CHARS => {
                let cut: String = v.chars().take(SHORT_VALUE_CHARS - 1).collect();
                format!("{k}:{cut}…")
            }
            _ => f.to_string(),
        })
        .collect::<Vec<_>>()
        .join("|")
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.long())
    }
}

impl From<Signature> for String {
    fn from(s: Signature) -> String {
        s.long()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_once() {
        let s = Signature::new("corpus-eval:9").field("a", 1);
        assert_eq!(s.long(), "corpus-eval:9|a:1");
        let s = Signature::new("x").part(format!("b:2|version:{}", env!("CARGO_PKG_VERSION")));
        assert_eq!(s.long().matches("version:").count(), 1);
        let s = Signature::new("x").field("a", 1);
        assert_eq!(
            s.long(),
            format!("x|a:1|version:{}", env!("CARGO_PKG_VERSION"))
        );
    }

    #[test]
    fn short_cuts_long_values_only() {
        let s = Signature::new("m")
            .field("k", "0123456789abcdefXYZ")
            .field("s", "ok");
        let short = s.short();
        assert!(
            short.starts_with("m|k:0123456789abcde…|s:ok|version:"),
            "{short}"
        );
    }
}
