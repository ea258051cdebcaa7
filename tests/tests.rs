//! Integration tests of the `corpus-eval` binary, one binary, modules by theme.

mod util;

mod agreement_cli;
mod attribution_cli;
mod check_report_cli;
mod cli_flags;
mod compare_cli;
mod docs;
mod evaluate_cli;
mod export_qdpx;
mod fuzzy_lossless;
mod gates_cli;
mod grounding_cli;
mod hotpot_cli;
mod jobs_cli;
mod judge_cli;
mod layers;
mod lexical_cli;
mod lexicon_build;
mod python_types;
mod quote_verification;
mod rag_cli;
mod registries;
mod regression;
mod regression_39;
mod regression_40;
mod regression_42;
mod regression_53;
mod regression_54;
mod regression_57;
mod scoring_rules;
mod semantic_cli;
mod shard_cli;
mod small_commands;
mod text_eval_cli;
mod transcript_formats;
