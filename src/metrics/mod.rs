//! Lexical answer metrics: SQuAD/HotpotQA answer normalization, exact match
//! and token F1, citation and supporting-fact set metrics.
//!
//! Everything here is a pure function over strings and sets; loading files
//! lives in [`crate::corpus`], writing outputs in [`crate::report`].

pub(crate) mod hotpot;

pub use hotpot::*;
pub(crate) mod squad;

pub use squad::{normalize_answer, token_overlap, Overlap};
