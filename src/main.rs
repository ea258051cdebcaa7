//! The `corpus-eval` binary: parse the command line, run, map errors to
//! exit codes (0 ok, 1 runtime failure, 2 usage or input error, 3 a quality
//! gate failed, 130 interrupted).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    corpus_eval::sys::set_give_back(corpus_eval::sys::give_back_freed);
    let cli = match corpus_eval::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if e.use_stderr() {
                // A usage error echoes the arguments: with URL credentials
                // and known secrets redacted.
                corpus_eval::secrets::register_from_env_and_args(
                    &std::env::args_os()
                        .map(|a| a.to_string_lossy().into_owned())
                        .collect::<Vec<_>>(),
                );
                use std::io::Write as _;
                let shown = corpus_eval::secrets::scrub(&e.render().to_string());
                let shown = corpus_eval::text::printable(&shown);
                let _ = std::io::stderr().write_all(shown.as_bytes());
            } else {
                let _ = e.print();
            }
            return if e.use_stderr() {
                ExitCode::from(corpus_eval::cli::EXIT_INPUT)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if matches!(cli.command, corpus_eval::cli::Command::Evaluate(_)) {
        corpus_eval::sys::purge_soon();
        // Partly used huge pages cost `evaluate` ~20% of its peak RSS and
        // it gains no time from them (see `pages::small_pages`).
        corpus_eval::sys::small_pages();
    }
    corpus_eval::sys::exit(corpus_eval::cli::run_code(cli))
}

// Large short-lived buffers (the model's activations) are recycled instead
// of being mapped and unmapped for every matrix product.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
