//! Integration tests of the `corpus-eval` binary, one binary, modules by theme.

mod util;

mod evaluate_cli;
mod hotpot_cli;
mod lexicon_build;
mod scoring_rules;
mod small_commands;
