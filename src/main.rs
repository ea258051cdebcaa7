//! The `corpus-eval` binary: parse the command line, run, map errors to
//! exit codes (0 ok, 1 runtime failure, 2 usage or input error).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match corpus_eval::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(corpus_eval::cli::EXIT_INPUT)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    corpus_eval::cli::run(cli)
}

// Large short-lived buffers (the model's activations) are recycled instead
// of being mapped and unmapped for every matrix product.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
