//! LLM-as-judge over an OpenAI-compatible chat-completions API: the
//! semantic-evaluation design's prompt and scale (temperature 0, 10 tokens),
//! a reply parser that accepts only a number in [0, 1], retries with backoff,
//! and a persistent SQLite cache of successful verdicts.
//!
//! A verdict that cannot be had after the attempts is recorded as failed
//! with its reason and counted; it is never scored 0 silently.
//!
//! - [`prompt`]: the template and reply parsing;
//! - [`client`]: one call with retries;
//! - [`cache`]: the verdict cache;
//! - [`cost`]: the cost estimate.

pub(crate) mod cache;
pub(crate) mod client;
pub(crate) mod cost;
pub(crate) mod prompt;

pub(crate) use cache::VerdictCache;
pub(crate) use client::{JudgeClient, JudgeConfig};

use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Environment variables read for the API key, in order.
pub(crate) const KEY_ENV: [&str; 2] = ["CORPUS_EVAL_JUDGE_KEY", "OPENAI_API_KEY"];

/// Errors of the judge stage (set-up errors; a failed verdict is data, see
/// [`Verdict`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JudgeError {
    /// The judge is misconfigured.
    #[error("judge: {message}")]
    Config {
        /// What is wrong.
        message: String,
    },
    /// The verdict cache could not be used.
    #[error("judge cache {path}: {message}")]
    Cache {
        /// The cache file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

impl JudgeError {
    /// True for the user's settings (exit 2), false for runtime failures.
    pub(crate) fn is_input(&self) -> bool {
        matches!(self, JudgeError::Config { .. })
    }
}

/// How a verdict was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictStatus {
    /// The judge answered with a score.
    Ok,
    /// The score came from the cache (no call).
    Cached,
    /// Every attempt failed; see the reason.
    Failed,
}

/// The judge's verdict on one item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The score, absent when the verdict failed.
    pub score: Option<f64>,
    /// How it was obtained.
    pub status: VerdictStatus,
    /// The judge's raw reply (the last one, for a failure).
    pub reply: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// HTTP requests this verdict cost.
    pub requests: u32,
}

/// Counts over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct JudgeCounts {
    /// HTTP requests sent (retries included).
    pub calls: usize,
    /// Verdicts taken from the cache.
    pub cached: usize,
    /// Verdicts that failed.
    pub failed: usize,
    /// Verdicts the API gave.
    pub judged: usize,
}

/// A judge: client plus optional cache, with counters.
#[derive(Debug)]
pub struct Judge {
    client: JudgeClient,
    cache: Option<VerdictCache>,
    calls: AtomicUsize,
    cached: AtomicUsize,
    failed: AtomicUsize,
    judged: AtomicUsize,
}

impl Judge {
    /// A judge over `client`, caching in `cache` when given.
    pub fn new(client: JudgeClient, cache: Option<VerdictCache>) -> Judge {
        Judge {
            client,
            cache,
            calls: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            judged: AtomicUsize::new(0),
        }
    }

    /// The client.
    pub fn client(&self) -> &JudgeClient {
        &self.client
    }

    /// The cache, when one is used.
    pub fn cache(&self) -> Option<&VerdictCache> {
        self.cache.as_ref()
    }

    /// The settings that determine verdicts, for signatures.
    pub fn signature(&self) -> String {
        format!(
            "judge:{}|prompt:{}|temp:{}|max_tokens:{}|parse:first-number-in-0..1",
            self.client.model(),
            prompt::template_hash(),
            prompt::TEMPERATURE,
            prompt::MAX_TOKENS
        )
    }

    /// True when the cache holds a verdict for `prompt`.
    pub fn is_cached(&self, prompt: &str) -> Result<bool, JudgeError> {
        match &self.cache {
            Some(c) => Ok(c.get(&cache::key(self.client.model(), prompt))?.is_some()),
            None => Ok(false),
        }
    }

    /// Judges one prompt: from the cache when it is there, else by the API
    /// (storing a success in the cache at once, so an interrupted run loses
    /// nothing).
    pub fn judge(&self, prompt: &str) -> Result<Verdict, JudgeError> {
        let key = cache::key(self.client.model(), prompt);
        if let Some(c) = &self.cache {
            if let Some(hit) = c.get(&key)? {
                self.cached.fetch_add(1, Ordering::Relaxed);
                return Ok(Verdict {
                    score: Some(hit.score),
                    status: VerdictStatus::Cached,
                    reply: Some(hit.reply),
                    error: None,
                    requests: 0,
                });
            }
        }
        let asked = self.client.ask(prompt);
        self.calls
            .fetch_add(asked.requests as usize, Ordering::Relaxed);
        match asked.result {
            Ok((score, reply)) => {
                if let Some(c) = &self.cache {
                    c.put(
                        &key,
                        self.client.model(),
                        &cache::CachedVerdict {
                            score,
                            reply: reply.clone(),
                        },
                    )?;
                }
                self.judged.fetch_add(1, Ordering::Relaxed);
                Ok(Verdict {
                    score: Some(score),
                    status: VerdictStatus::Ok,
                    reply: Some(reply),
                    error: None,
                    requests: asked.requests,
                })
            }
            Err(why) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                Ok(Verdict {
                    score: None,
                    status: VerdictStatus::Failed,
                    reply: asked.last_reply,
                    error: Some(why),
                    requests: asked.requests,
                })
            }
        }
    }

    /// Judges every prompt with `concurrency` requests in flight; verdicts
    /// come back in input order. `progress` is called after each verdict.
    pub fn judge_all(
        &self,
        prompts: &[String],
        concurrency: usize,
        progress: &(dyn Fn(usize, &Verdict) + Sync),
    ) -> Result<Vec<Verdict>, JudgeError> {
        let next = AtomicUsize::new(0);
        let slots: Vec<std::sync::Mutex<Option<Result<Verdict, JudgeError>>>> = prompts
            .iter()
            .map(|_| std::sync::Mutex::new(None))
            .collect();
        std::thread::scope(|s| {
            for _ in 0..concurrency.clamp(1, prompts.len().max(1)) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(prompt) = prompts.get(i) else { break };
                    let verdict = self.judge(prompt);
                    if let Ok(v) = &verdict {
                        progress(i, v);
                    }
                    let stop = verdict.is_err();
                    *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(verdict);
                    if stop {
                        // A cache failure stops every worker: the results
                        // could not be kept.
                        next.store(prompts.len(), Ordering::Relaxed);
                        break;
                    }
                });
            }
        });
        let mut out = Vec::with_capacity(prompts.len());
        for slot in slots {
            match slot.into_inner().unwrap_or_else(|p| p.into_inner()) {
                Some(v) => out.push(v?),
                None => {
                    return Err(JudgeError::Config {
                        message: "the judge stopped before every item was judged".into(),
                    })
                }
            }
        }
        Ok(out)
    }

    /// The counters so far.
    pub fn counts(&self) -> JudgeCounts {
        JudgeCounts {
            calls: self.calls.load(Ordering::Relaxed),
            cached: self.cached.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            judged: self.judged.load(Ordering::Relaxed),
        }
    }
}

/// The API key from the environment ([`KEY_ENV`], first set wins).
pub(crate) fn key_from_env() -> Option<String> {
    KEY_ENV
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
}
