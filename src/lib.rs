//! corpus-eval: score LLM and RAG answers over transcript corpora and verify
//! that every quoted citation really stands in its source.
//!
//! The main job ([`evaluate::evaluate`]) flows through these modules:
//!
//! - [`corpus`]: load question files and transcript corpora;
//! - [`text`]: normalization, number words <-> digits;
//! - [`lexicon`]: WordNet synonyms and the morphy lemmatizer;
//! - [`scoring`]: the six question-type scorers;
//! - [`citations`]: exact, normalized and fuzzy quote verification;
//! - [`stats`]: means and bootstrap intervals;
//! - [`report`]: run folders, manifests, charts and tables;
//! - [`metrics`]: HotpotQA answer, citation and supporting-fact metrics;
//! - [`semantic`]: sentence embeddings (all-MiniLM-L6-v2 with candle), anchors,
//!   the answer-judging methods and threshold search;
//! - [`judge`]: LLM-as-judge over an OpenAI-compatible API, with a verdict cache;
//! - [`cli`]: the command line that wires them.
//!
//! ```
//! use corpus_eval::{lexicon::Lexicon, scoring::score_answer};
//! let lex = Lexicon::embedded().unwrap();
//! let metric = serde_json::json!({"potato": 1.0, "leek": 0.5});
//! assert_eq!(score_answer("ListMany", &metric, "Mostly potatoes.", &lex).unwrap(), 1.0);
//! ```

#![deny(missing_docs)]

pub mod citations;
pub mod cli;
pub mod compare;
pub mod corpus;
pub mod evaluate;
pub mod grounding;
pub mod hotpot;
pub mod http;
pub mod judge;
pub mod judge_answers;
pub mod lexicon;
pub mod metrics;
pub mod rag;
pub mod report;
pub mod scoring;
pub mod secrets;
pub mod semantic;
pub mod stats;
pub mod text;
pub mod texteval;
