//! `corpus-eval merge`: the run folders of `--shard I/N` runs joined into
//! one run folder, equal to the unsharded run's in every per-item output
//! and in the summary (recomputed from the joined items with the same
//! seed).
//!
//! The shards must come from one command with one configuration (but for
//! `shard` and `out`) over the same inputs (the manifests' SHA-256), and
//! hold shards 1..N exactly once; the inputs are read again (found as
//! `rerun` finds them, checked against their SHA-256) to put the items
//! back in input order and to check that every item is there once.
//!
//! How the shards are read and joined is the private `shards` module's.

use super::shards::{check_shards, input_error, is_link_to_another, read_shard};
pub use super::shards::{Config, Request};
use super::JobError;
use std::path::PathBuf;
use std::time::SystemTime;

/// Merges shard run folders into a new run folder under `req.out`.
pub fn merge(req: &Request) -> Result<PathBuf, JobError> {
    let started = SystemTime::now();
    // A folder of run folders holds a `latest` link to one of them: a
    // shell pattern (`merge runs/shards/*`) gives that run twice, once by
    // its link; the link is left out.
    let shards = req
        .folders
        .iter()
        .filter(|f| !is_link_to_another(f, &req.folders))
        .map(|f| read_shard(f))
        .collect::<Result<Vec<_>, _>>()?;
    let shards = check_shards(shards)?;
    let command = shards[0].command.as_str();
    let Some(merger) = super::registry::find(command).and_then(|job| job.merger()) else {
        return Err(input_error(format!(
            "merge joins shards of {} runs; {command} runs cannot be sharded",
            super::registry::merge_commands()
        )));
    };
    merger(req, &shards, started)
}
