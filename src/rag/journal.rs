//! `responses.jsonl`: one JSON line per outcome, appended as outcomes
//! arrive and fsynced, so a killed run loses at most the lines being
//! written. Reopening cuts a torn last line (a kill mid-write) before
//! appending again.

use serde_json::Value;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The journal file, open for appending.
#[derive(Debug)]
pub struct Journal {
    file: File,
    path: PathBuf,
}

/// The last outcome of each id in a journal.
#[derive(Debug, Clone, Default)]
pub struct Answered {
    /// id -> true when its last outcome was a valid reply.
    pub last_ok: HashMap<String, bool>,
    /// Lines read.
    pub lines: usize,
    /// Bytes cut from a torn last line.
    pub torn_bytes: u64,
}

impl Journal {
    /// Opens (creating) the journal at `path`, cutting a torn last line,
    /// and reads which ids are answered.
    pub fn open(path: &Path) -> std::io::Result<(Journal, Answered)> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)?;
        let len = file.metadata()?.len();
        let mut answered = Answered::default();
        if len > 0 {
            // Find the end of the last complete line.
            let mut keep = len;
            let mut buf = [0u8; 4096];
            loop {
                let start = keep.saturating_sub(buf.len() as u64);
                let n = (keep - start) as usize;
                file.seek(SeekFrom::Start(start))?;
                file.read_exact(&mut buf[..n])?;
                if let Some(i) = buf[..n].iter().rposition(|&b| b == b'\n') {
                    keep = start + i as u64 + 1;
                    break;
                }
                keep = start;
                if start == 0 {
                    break;
                }
            }
            if keep < len {
                file.set_len(keep)?;
                file.sync_all()?;
                answered.torn_bytes = len - keep;
            }
            file.seek(SeekFrom::Start(0))?;
            for line in BufReader::new(&file).lines() {
                let line = line?;
                if line.trim().is_empty() {
                    continue;
                }
                answered.lines += 1;
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if let Some(id) = v.get("id").and_then(Value::as_str) {
                    answered
                        .last_ok
                        .insert(id.to_string(), v.get("error").is_some_and(Value::is_null));
                }
            }
        }
        Ok((
            Journal {
                file,
                path: path.to_path_buf(),
            },
            answered,
        ))
    }

    /// Appends whole lines (each without its newline) and fsyncs them.
    pub fn append(&mut self, lines: &[String]) -> std::io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut buf = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for l in lines {
            buf.extend_from_slice(l.as_bytes());
            buf.push(b'\n');
        }
        self.file.write_all(&buf)?;
        self.file.sync_data()
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The fields of a journal line a run's summary reads (the reply itself is
/// left on disk, so memory does not grow with replies).
fn compact(v: &Value) -> Value {
    let verdicts: Vec<Value> = v["citations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| serde_json::json!({"verdict": c["verdict"], "found": c["found"]}))
        .collect();
    serde_json::json!({
        "id": v["id"],
        "error": v["error"],
        "attempts": v["attempts"],
        "existence_score": v["existence_score"],
        "score": v["score"],
        "citations": verdicts,
        "source": outcome_source(v),
    })
}

/// The transcript an outcome's answer rests on: the `FILE` (or `NAME`)
/// metadata of the first valid cited passage, else of the first retrieved
/// passage; empty when the reply names none.
pub(crate) fn outcome_source(o: &Value) -> String {
    let context = o["response"]["context"].as_array();
    let file_of = |i: usize| -> Option<String> {
        let m = &context?.get(i)?["metadata"];
        ["FILE", "NAME"]
            .iter()
            .find_map(|k| m[*k].as_str().map(str::to_string))
    };
    o["citations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["source_index"].as_u64())
        .find_map(|i| usize::try_from(i).ok().and_then(file_of))
        .or_else(|| file_of(0))
        .unwrap_or_default()
}

/// Streams a journal's lines, keeping the summary fields of the last
/// outcome of each id (in first-seen order).
pub(crate) fn last_outcomes(path: &Path) -> std::io::Result<Vec<Value>> {
    Ok(last_by_id(path, |v, _| compact(v))?
        .into_iter()
        .map(|(_, v)| v)
        .collect())
}

/// Each question's last journal line as written (torn or unreadable lines
/// skipped), by id, in order of first appearance.
pub(crate) fn last_lines(path: &Path) -> std::io::Result<Vec<(String, String)>> {
    last_by_id(path, |_, line| line)
}

/// What `keep` makes of each id's last readable line (its JSON and its
/// text), by id, in order of first appearance; lines that are not JSON
/// objects with a string `id` are skipped.
fn last_by_id<T>(
    path: &Path,
    keep: impl Fn(&Value, String) -> T,
) -> std::io::Result<Vec<(String, T)>> {
    let file = File::open(path)?;
    let mut order: Vec<String> = Vec::new();
    let mut last: HashMap<String, T> = HashMap::new();
    for line in BufReader::new(file).lines() {
        let line = line?;
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = v.get("id").and_then(Value::as_str).map(str::to_string) else {
            continue;
        };
        if !last.contains_key(&id) {
            order.push(id.clone());
        }
        let kept = keep(&v, line);
        last.insert(id, kept);
    }
    Ok(order
        .into_iter()
        .filter_map(|id| last.remove(&id).map(|t| (id, t)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_lines_are_cut_and_last_outcomes_win() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("responses.jsonl");
        std::fs::write(
            &p,
            "{\"id\": \"a\", \"error\": \"HTTP 500\"}\n{\"id\": \"b\", \"error\": null}\n{\"id\": \"a\", \"error\": null}\n{\"id\": \"c\", \"err",
        )
        .unwrap();
        let (mut j, answered) = Journal::open(&p).unwrap();
        assert_eq!(answered.torn_bytes, 16);
        assert_eq!(answered.lines, 3);
        assert_eq!(answered.last_ok.get("a"), Some(&true));
        assert_eq!(answered.last_ok.get("c"), None);
        j.append(&["{\"id\": \"c\", \"error\": null}".into()])
            .unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.ends_with("{\"id\": \"a\", \"error\": null}\n{\"id\": \"c\", \"error\": null}\n")
        );
        let last = last_outcomes(&p).unwrap();
        let ids: Vec<&str> = last.iter().map(|v| v["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        assert!(last[0]["error"].is_null());
        // A file that is one torn line.
        std::fs::write(&p, "{\"id\"").unwrap();
        let (_, a) = Journal::open(&p).unwrap();
        assert_eq!((a.lines, a.torn_bytes), (0, 5));
        assert_eq!(std::fs::read(&p).unwrap().len(), 0);
    }
}
