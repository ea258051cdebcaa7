//! A persistent cache of successful judge verdicts (SQLite), keyed by the
//! judge model and the SHA-256 of the prompt, so reruns cost nothing and an
//! interrupted run resumes without repeating calls. Failed verdicts are
//! never stored.

use super::JudgeError;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A cached verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedVerdict {
    /// The parsed score.
    pub score: f64,
    /// The judge's raw reply.
    pub reply: String,
}

/// The verdict cache.
#[derive(Debug)]
pub struct VerdictCache {
    conn: Mutex<Connection>,
    path: PathBuf,
}

/// The default cache file: `$XDG_CACHE_HOME/corpus-eval/judge.sqlite`, else
/// `~/.cache/corpus-eval/judge.sqlite`.
pub(crate) fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("corpus-eval").join("judge.sqlite"))
}

/// The cache key of a prompt sent to `model`.
pub(crate) fn key(model: &str, prompt: &str) -> String {
    let mut bytes = Vec::with_capacity(model.len() + prompt.len() + 1);
    bytes.extend_from_slice(model.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(prompt.as_bytes());
    crate::text::hash::sha256_hex(&bytes)
}

impl VerdictCache {
    /// Opens (creating when needed) the cache at `path`.
    pub fn open(path: &Path) -> Result<VerdictCache, JudgeError> {
        let err = |e: rusqlite::Error| JudgeError::Cache {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| JudgeError::Cache {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        }
        let conn = Connection::open(path).map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(err)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err)?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS verdicts (
                 key TEXT PRIMARY KEY,
                 model TEXT NOT NULL,
                 score REAL NOT NULL,
                 reply TEXT NOT NULL,
                 created_at TEXT NOT NULL
             );",
        )
        .map_err(err)?;
        Ok(VerdictCache {
            conn: Mutex::new(conn),
            path: path.to_path_buf(),
        })
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: rusqlite::Error) -> JudgeError {
        JudgeError::Cache {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A poisoned lock means a panic elsewhere; SQLite's own state is
        // transactional and stays usable.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The verdict stored under `key`, if any.
    pub fn get(&self, key: &str) -> Result<Option<CachedVerdict>, JudgeError> {
        self.conn()
            .query_row(
                "SELECT score, reply FROM verdicts WHERE key = ?1",
                params![key],
                |row| {
                    Ok(CachedVerdict {
                        score: row.get(0)?,
                        reply: row.get(1)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Stores a successful verdict (replacing an older one).
    pub fn put(&self, key: &str, model: &str, verdict: &CachedVerdict) -> Result<(), JudgeError> {
        let now = crate::text::clock::rfc3339(std::time::SystemTime::now());
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO verdicts (key, model, score, reply, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![key, model, verdict.score, verdict.reply, now],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Number of stored verdicts.
    pub fn len(&self) -> Result<usize, JudgeError> {
        self.conn()
            .query_row("SELECT COUNT(*) FROM verdicts", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.err(e))
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> Result<bool, JudgeError> {
        self.len().map(|n| n == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_reopens() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("sub").join("judge.sqlite");
        let k = key("m", "prompt");
        assert_ne!(k, key("m2", "prompt"));
        assert_ne!(k, key("m", "prompt2"));
        {
            let c = VerdictCache::open(&path).unwrap();
            assert!(c.is_empty().unwrap());
            assert_eq!(c.get(&k).unwrap(), None);
            let v = CachedVerdict {
                score: 0.8,
                reply: "0.8".into(),
            };
            c.put(&k, "m", &v).unwrap();
        }
        let c = VerdictCache::open(&path).unwrap();
        assert_eq!(c.len().unwrap(), 1);
        assert_eq!(c.get(&k).unwrap().unwrap().score, 0.8);
    }
}
