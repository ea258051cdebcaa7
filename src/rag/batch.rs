//! A batch of questions asked with N workers: each worker asks, checks the
//! citations and scores the answer, and hands the finished journal line to
//! the writer (the calling thread), which appends and fsyncs lines as they
//! arrive (in groups under load). A stop flag (Ctrl-C) ends the batch after
//! the lines already received are written; questions in flight are simply
//! not journaled and are asked again on resume.

use super::client::RagClient;
use super::journal::Journal;
use super::verify::{check_citations, CheckConfig};
use crate::lexicon::Lexicon;
use crate::scoring::phrases::Analyzer;
use crate::scoring::CompiledQuestion;
use crate::secrets::Redactor;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// One question ready to send.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Its id.
    pub id: String,
    /// Its text.
    pub question: String,
    /// The request body (no auth).
    pub body: Value,
    /// Type and metric, to score the answer.
    pub scoring: Option<(String, Value)>,
}

/// Most workers a batch starts, whatever `--concurrency` asks.
pub(crate) const MAX_CONCURRENCY: usize = 256;

/// What a batch did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// Outcomes journaled.
    pub done: usize,
    /// Of those, errors.
    pub failed: usize,
    /// True when the stop flag ended the batch early.
    pub interrupted: bool,
}

/// The journal line of one outcome.
pub(crate) fn journal_line(
    item: &Prepared,
    outcome: &super::client::Outcome,
    check: &CheckConfig,
    analyzer: &mut Analyzer,
    lexicon: &Lexicon,
    redactor: &Redactor,
) -> String {
    // Citations are checked on the reply as received; what is stored of
    // them (the quotes) has the client's secrets redacted, like the
    // response and the error the client returns.
    let (citations, existence) = match &outcome.reply {
        Some(reply) => {
            let (c, e) = check_citations(reply, check);
            let mut c = serde_json::to_value(c).unwrap_or(Value::Null);
            redactor.redact_value(&mut c);
            (c, e)
        }
        None => (json!([]), None),
    };
    let score = match (&outcome.reply, &item.scoring) {
        (Some(reply), Some((qtype, metric))) => CompiledQuestion::compile(qtype, metric, lexicon)
            .ok()
            .map(|q| q.score(&reply.answer, analyzer)),
        _ => None,
    };
    json!({
        "id": item.id,
        "question": item.question,
        "request": item.body,
        "response": outcome.response,
        "error": outcome.error,
        "attempts": outcome.attempts,
        "elapsed_ms": outcome.elapsed_ms,
        "citations": citations,
        "existence_score": existence,
        "score": score,
    })
    .to_string()
}

/// The workers' shared equipment.
#[derive(Clone)]
pub(crate) struct Workers {
    /// The API client.
    pub client: Arc<RagClient>,
    /// Workers (requests in flight at once).
    pub concurrency: usize,
    /// How citations are judged.
    pub check: CheckConfig,
    /// WordNet, for scoring answers.
    pub lexicon: Arc<Lexicon>,
}

/// Asks `items` with the workers, journaling every outcome;
/// `progress(done, failed)` is called after each write.
pub(crate) fn run_batch(
    workers: &Workers,
    items: Vec<Prepared>,
    journal: &mut Journal,
    stop: &AtomicBool,
    mut progress: impl FnMut(usize, usize),
) -> std::io::Result<Tally> {
    let (concurrency, check) = (workers.concurrency, Arc::new(workers.check.clone()));
    let total = items.len();
    let items = Arc::new(items);
    let next = Arc::new(AtomicUsize::new(0));
    let halt = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(bool, String)>();
    let mut started = 0usize;
    for _ in 0..concurrency.clamp(1, MAX_CONCURRENCY).min(total.max(1)) {
        let check = Arc::clone(&check);
        let (client, items, next, halt, tx, lexicon) = (
            Arc::clone(&workers.client),
            Arc::clone(&items),
            Arc::clone(&next),
            Arc::clone(&halt),
            tx.clone(),
            Arc::clone(&workers.lexicon),
        );
        let spawned = std::thread::Builder::new()
            .name("rag-worker".into())
            .spawn(move || {
                let mut analyzer = Analyzer::new(&lexicon);
                loop {
                    if halt.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    // A panic while handling one question becomes its error
                    // line instead of a question that silently never ends.
                    let handled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let outcome = client.ask(&item.body);
                        let line = journal_line(
                            item,
                            &outcome,
                            &check,
                            &mut analyzer,
                            &lexicon,
                            client.redactor(),
                        );
                        (outcome.error.is_none(), line)
                    }));
                    let message = handled.unwrap_or_else(|_| {
                        let failed = super::client::Outcome {
                            response: None,
                            reply: None,
                            error: Some("internal error while handling this question".into()),
                            attempts: 0,
                            elapsed_ms: 0,
                        };
                        (
                            false,
                            journal_line(
                                item,
                                &failed,
                                &check,
                                &mut analyzer,
                                &lexicon,
                                client.redactor(),
                            ),
                        )
                    });
                    if tx.send(message).is_err() {
                        break;
                    }
                }
            });
        match spawned {
            Ok(_) => started += 1,
            // Fewer workers than asked for is fine; none at all is not.
            Err(e) if started == 0 => return Err(e),
            Err(_) => break,
        }
    }
    drop(tx);
    let mut tally = Tally::default();
    let write = |batch: Vec<(bool, String)>, tally: &mut Tally, journal: &mut Journal| {
        let mut lines = Vec::with_capacity(batch.len());
        for (ok, line) in batch {
            tally.done += 1;
            if !ok {
                tally.failed += 1;
            }
            lines.push(line);
        }
        journal.append(&lines)
    };
    while tally.done < total {
        if stop.load(Ordering::Relaxed) {
            // Stop asking; outcomes already received are still written.
            halt.store(true, Ordering::Relaxed);
            tally.interrupted = true;
            let rest: Vec<(bool, String)> = rx.try_iter().collect();
            write(rest, &mut tally, journal)?;
            progress(tally.done, tally.failed);
            break;
        }
        let first = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(m) => m,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(std::io::Error::other(format!(
                    "the workers stopped after {} of {total} questions",
                    tally.done
                )))
            }
        };
        // Group commit: everything already received goes in one write and
        // one fsync.
        let mut batch = vec![first];
        batch.extend(rx.try_iter());
        write(batch, &mut tally, journal)?;
        progress(tally.done, tally.failed);
    }
    halt.store(true, Ordering::Relaxed);
    Ok(tally)
}
