//! `corpus-eval agreement --spans`: two coders' codings of the same texts
//! compared as spans ([`crate::agreement::span_agreement`]): two users of
//! one REFI-QDA project, a user of each of two projects, or a run's
//! located quotes against a user's codings of one code.
//!
//! A coder is a project's user, named by its name or GUID; codings
//! without a user are the coder `(no user)`. Codes are matched by name
//! across projects. Two projects are compared on the text sources both
//! hold by name, each of the same length in both (else the texts differ
//! and nothing is compared). A run's spans count in its transcripts'
//! texts (time stamps and markup left out); they are carried back to the
//! project's plain texts by aligning the two texts' characters
//! (the text layer's `realign`).

use super::agreement::Config;
use super::JobError;
pub use crate::agreement::spans::{Coder, SpansResult};
use crate::agreement::{span_agreement, Span, SpanSettings};
use crate::corpus::formats::qdpx::{self, Project};
use crate::corpus::formats::ReadOptions;
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The coder of codings that name no user.
pub const NO_USER: &str = "(no user)";

/// One coder's codings, read.
struct Coded {
    coder: Coder,
    /// (source name, start, end, code name).
    spans: Vec<(String, usize, usize, String)>,
}

/// Each user who coded (name or GUID, and the GUID), in the project's
/// order; [`NO_USER`] last when some codings name none.
fn coding_users(project: &Project) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let coded = |guid: &str| {
        project
            .codings
            .iter()
            .any(|c| c.user.as_deref() == Some(guid))
    };
    for u in &project.users {
        if coded(&u.guid) {
            let label = if u.name.is_empty() {
                u.guid.clone()
            } else {
                u.name.clone()
            };
            out.push((label, Some(u.guid.clone())));
        }
    }
    // Users the codings name but the project does not list.
    for c in &project.codings {
        if let Some(g) = &c.user {
            if !out.iter().any(|(_, k)| k.as_deref() == Some(g)) {
                out.push((g.clone(), Some(g.clone())));
            }
        }
    }
    if project.codings.iter().any(|c| c.user.is_none()) {
        out.push((NO_USER.to_string(), None));
    }
    out
}

/// `file`'s coder named `name` (by name or GUID), or its only one.
fn coder_of(
    file: &Path,
    project: &Project,
    users: &[(String, Option<String>)],
    name: &str,
) -> Result<(String, Option<String>), JobError> {
    users
        .iter()
        .find(|(label, guid)| label == name || guid.as_deref() == Some(name))
        .cloned()
        .ok_or_else(|| {
            JobError::Input(format!(
                "{}: no coder `{name}` coded in this project (coders: {})",
                file.display(),
                list(users, project)
            ))
        })
}

/// The coders of a project, with their codings' counts.
fn list(users: &[(String, Option<String>)], project: &Project) -> String {
    if users.is_empty() {
        return "none: the project holds no codings".into();
    }
    users
        .iter()
        .map(|(label, guid)| {
            let n = project.codings.iter().filter(|c| c.user == *guid).count();
            format!("{label} ({n} codings)")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The codings of `user` in `project`.
fn codings(file: &Path, project: &Project, (label, guid): (String, Option<String>)) -> Coded {
    let name_of = |code: &str, name: &str| {
        if name.is_empty() {
            code.to_string()
        } else {
            name.to_string()
        }
    };
    let spans: Vec<_> = project
        .codings
        .iter()
        .filter(|c| c.user == guid)
        .map(|c| {
            (
                c.source.clone(),
                c.start,
                c.end,
                name_of(&c.code, &c.code_name),
            )
        })
        .collect();
    Coded {
        coder: Coder {
            file: file.to_path_buf(),
            coder: label,
            codings: spans.len(),
        },
        spans,
    }
}

/// Reads a project, its text sources outside the archive only from its
/// own folder unless `external` (`--allow-external-sources`, or a run
/// read so); each file read outside it is named on stderr.
fn read_project(path: &Path, external: bool) -> Result<Project, JobError> {
    let options = ReadOptions {
        external_sources: external,
        ..ReadOptions::default()
    };
    let project = qdpx::read(path, &options)?;
    for o in &project.outside {
        errln!(
            "note: {} read a text source outside the archive: {}",
            crate::secrets::scrub(&path.display().to_string()),
            crate::secrets::scrub(&o.display().to_string())
        );
    }
    Ok(project)
}

/// Reads the coders of `files` as `config` says, and compares them.
pub fn run(config: &Config, files: &[PathBuf]) -> Result<SpansResult, JobError> {
    use super::JobConfig as _;
    config.validate()?;
    // Names as given, without the spaces around them (`Alice, Bob`).
    let trimmed = |list: &Option<Vec<String>>| {
        list.as_ref()
            .map(|l| l.iter().map(|n| n.trim().to_string()).collect::<Vec<_>>())
    };
    let names = trimmed(&config.coders).unwrap_or_default();
    let names = names.as_slice();
    let codes = trimmed(&config.codes);
    let (first, second, lengths, skipped, mut dropped) = match files {
        [dir, project] if dir.is_dir() => {
            // The run first: the project is read as the run read its
            // transcripts (external text sources allowed or not).
            let located = super::export_qdpx::located(dir, None)?;
            let p = read_project(
                project,
                located.external_sources || config.allow_external_sources,
            )?;
            let users = coding_users(&p);
            let human = match names {
                [] if users.len() == 1 => users[0].clone(),
                [] => {
                    return Err(JobError::Input(format!(
                        "{}: {} coders coded (coders: {}): name the one to compare with --coders X",
                        project.display(),
                        users.len(),
                        list(&users, &p)
                    )))
                }
                [one] => coder_of(project, &p, &users, one)?,
                _ => return Err(JobError::Input(
                    "--coders: a run folder is compared with one coder of the project: name one"
                        .into(),
                )),
            };
            let human = codings(project, &p, human);
            let code = run_code(codes.as_deref(), project, &human)?;
            let (tool, dropped, matched) = run_spans(dir, &located, &p, &code)?;
            // Only the sources the run read: the coder's codings elsewhere
            // are no misses of the tool's.
            let mut lengths = Vec::new();
            let mut skipped = Vec::new();
            for (i, (name, length)) in p.lengths.iter().enumerate() {
                if matched.contains(&i) {
                    lengths.push((name.clone(), *length));
                } else {
                    skipped.push(format!("{name} (not in the run)"));
                }
            }
            (human, tool, lengths, skipped, dropped)
        }
        [one] => {
            let p = read_project(one, config.allow_external_sources)?;
            let users = coding_users(&p);
            let (a, b) = match names {
                [x, y] => (coder_of(one, &p, &users, x)?, coder_of(one, &p, &users, y)?),
                [] if users.len() == 2 => (users[0].clone(), users[1].clone()),
                _ => {
                    return Err(JobError::Input(format!(
                    "{}: {} coders coded (coders: {}): name the two to compare with --coders X,Y",
                    one.display(),
                    users.len(),
                    list(&users, &p)
                )))
                }
            };
            if a == b {
                return Err(JobError::Input(format!(
                    "--coders: `{}` is named twice: compare two coders",
                    a.0
                )));
            }
            let lengths = p.lengths.iter().map(|(n, l)| (n.clone(), *l)).collect();
            (
                codings(one, &p, a),
                codings(one, &p, b),
                lengths,
                Vec::new(),
                0,
            )
        }
        [fa, fb] => {
            let external = config.allow_external_sources;
            let (pa, pb) = (read_project(fa, external)?, read_project(fb, external)?);
            let (ua, ub) = (coding_users(&pa), coding_users(&pb));
            let pick = |file: &Path,
                        p: &Project,
                        users: &[(String, Option<String>)],
                        name: Option<&String>| match name {
                Some(n) => coder_of(file, p, users, n),
                None if users.len() == 1 => Ok(users[0].clone()),
                None => Err(JobError::Input(format!(
                    "{}: {} coders coded (coders: {}): name one per project with --coders X,Y",
                    file.display(),
                    users.len(),
                    list(users, p)
                ))),
            };
            if names.len() == 1 {
                return Err(JobError::Input(
                    "--coders: two projects are compared with one coder of each: name two (X,Y)"
                        .into(),
                ));
            }
            let a = pick(fa, &pa, &ua, names.first())?;
            let b = pick(fb, &pb, &ub, names.get(1))?;
            let mut lengths = Vec::new();
            let mut skipped = Vec::new();
            for (name, length) in &pa.lengths {
                match pb.lengths.iter().find(|(n, _)| n == name) {
                    Some((_, l)) if l == length => lengths.push((name.clone(), *length)),
                    Some((_, l)) => skipped.push(format!(
                        "{name} ({length} characters in {}, {l} in {}: not the same text)",
                        fa.display(),
                        fb.display()
                    )),
                    None => skipped.push(format!("{name} (only in {})", fa.display())),
                }
            }
            for (name, _) in &pb.lengths {
                if !pa.lengths.iter().any(|(n, _)| n == name) {
                    skipped.push(format!("{name} (only in {})", fb.display()));
                }
            }
            if lengths.is_empty() {
                return Err(JobError::Input(format!(
                    "{} and {}: no text source of the same name and length in both: nothing to compare ({})",
                    fa.display(),
                    fb.display(),
                    skipped.join("; ")
                )));
            }
            (
                codings(fa, &pa, a),
                codings(fb, &pb, b),
                lengths,
                skipped,
                0,
            )
        }
        _ => {
            return Err(JobError::Input(format!(
                "agreement --spans reads A.qdpx [B.qdpx], or RUN_FOLDER CODED.qdpx; got {} files",
                files.len()
            )))
        }
    };
    let index: BTreeMap<&str, usize> = lengths
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i))
        .collect();
    let wanted = |code: &str| codes.as_ref().is_none_or(|c| c.iter().any(|w| w == code));
    if let Some(codes) = &codes {
        for c in codes {
            let used = |coded: &Coded| coded.spans.iter().any(|s| s.3 == *c);
            if !used(&first) && !used(&second) {
                let mut known: Vec<&str> = first
                    .spans
                    .iter()
                    .chain(&second.spans)
                    .map(|s| s.3.as_str())
                    .collect();
                known.sort_unstable();
                known.dedup();
                return Err(JobError::Input(format!(
                    "--codes: neither coder used the code `{c}` (codes used: {})",
                    known.join(", ")
                )));
            }
        }
    }
    let mut bad: Option<String> = None;
    let mut to_spans = |coded: &mut Coded| {
        let mut out = Vec::new();
        coded.spans.retain(|(source, start, end, code)| {
            let (Some(&s), true) = (index.get(source.as_str()), wanted(code)) else {
                return false;
            };
            if start >= end {
                dropped += 1;
                return false;
            }
            let length = lengths[s].1;
            if *end > length {
                bad.get_or_insert_with(|| {
                    format!(
                        "{}: coder `{}`: a coding of `{code}` in source `{source}` at characters {start}..{end} lies past the source's end ({length} characters)",
                        coded.coder.file.display(),
                        coded.coder.coder
                    )
                });
                return false;
            }
            out.push(Span {
                source: s,
                start: *start as u64,
                end: *end as u64,
                code: code.clone(),
            });
            true
        });
        coded.coder.codings = out.len();
        out
    };
    let (mut first, mut second) = (first, second);
    let (a, b) = (to_spans(&mut first), to_spans(&mut second));
    if let Some(message) = bad {
        return Err(JobError::Input(message));
    }
    let settings = SpanSettings {
        resamples: config.resamples,
        seed: config.seed,
        min_overlap: config.min_overlap,
    };
    let lengths_only: Vec<u64> = lengths.iter().map(|(_, l)| *l as u64).collect();
    // Every span lies in its source (checked above): nothing is left to
    // refuse.
    let agreement = span_agreement(&lengths_only, &a, &b, &settings)
        .map_err(|e| JobError::Input(format!("agreement --spans: {e}")))?;
    Ok(SpansResult {
        signature: signature(config),
        first: first.coder,
        second: second.coder,
        sources_skipped: skipped,
        selections_skipped: dropped,
        agreement,
    })
}

/// The signature of a span comparison.
pub fn signature(config: &Config) -> String {
    let ci = if config.resamples == 0 {
        "ci:none".to_string()
    } else {
        format!(
            "ci:bootstrap-sources|n:{}|seed:{}",
            config.resamples, config.seed
        )
    };
    format!(
        "agreement:spans|alpha:unitized-krippendorff2019|overlap:chars|match:{}|{ci}|version:{}",
        config.min_overlap,
        env!("CARGO_PKG_VERSION")
    )
}

/// The one code a run's spans are compared on: `--codes`'s one, or the
/// coder's only code.
fn run_code(codes: Option<&[String]>, project: &Path, human: &Coded) -> Result<String, JobError> {
    let mut used: Vec<&str> = human.spans.iter().map(|s| s.3.as_str()).collect();
    used.sort_unstable();
    used.dedup();
    match codes {
        Some([one]) if used.contains(&one.as_str()) => Ok(one.clone()),
        Some([one]) => Err(JobError::Input(format!(
            "{}: --codes: coder `{}` did not use the code `{one}` (codes used: {})",
            project.display(),
            human.coder.coder,
            used.join(", ")
        ))),
        Some(_) => Err(JobError::Input(
            "--codes: a run's spans are compared with one code of the coder: name one".into(),
        )),
        None if used.len() == 1 => Ok(used[0].to_string()),
        None => Err(JobError::Input(format!(
            "{}: coder `{}` used {} codes ({}): name the one the run's quotes are compared with, --codes CODE",
            project.display(),
            human.coder.coder,
            used.len(),
            used.join(", ")
        ))),
    }
}

/// A run's located quotes as spans of `code` in `project`'s plain texts,
/// how many could not be carried there, and the project's sources the
/// run's transcripts are.
fn run_spans(
    dir: &Path,
    located: &super::export_qdpx::Located,
    project: &Project,
    code: &str,
) -> Result<(Coded, usize, BTreeSet<usize>), JobError> {
    let sources: Vec<Option<usize>> = located
        .transcripts
        .transcripts
        .iter()
        .map(|t| source_of(project, &t.file))
        .collect();
    let mut maps: BTreeMap<usize, crate::text::realign::CharMap> = BTreeMap::new();
    let mut spans = Vec::new();
    let mut dropped = 0;
    for s in &located.selections {
        let Some(i) = sources[s.source] else {
            dropped += 1;
            continue;
        };
        if let std::collections::btree_map::Entry::Vacant(slot) = maps.entry(s.source) {
            let t = &located.transcripts.transcripts[s.source];
            slot.insert(crate::text::realign::CharMap::new(
                &t.text()?,
                &project.texts[i],
            ));
        }
        match maps.get(&s.source).and_then(|map| map.span(s.start, s.end)) {
            Some((a, b)) => spans.push((project.lengths[i].0.clone(), a, b, code.to_string())),
            None => dropped += 1,
        }
    }
    let matched: BTreeSet<usize> = sources.iter().flatten().copied().collect();
    if matched.is_empty() {
        return Err(JobError::Input(format!(
            "{}: none of the run's transcripts ({}) is a text source of the project (sources: {})",
            dir.display(),
            located
                .transcripts
                .transcripts
                .iter()
                .map(|t| t.file.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            project
                .lengths
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok((
        Coded {
            coder: Coder {
                file: dir.to_path_buf(),
                coder: format!("corpus-eval {}", env!("CARGO_PKG_VERSION")),
                codings: spans.len(),
            },
            spans,
        },
        dropped,
        matched,
    ))
}

/// The project's source a run's transcript is: the one of its name, else
/// the one named as its file without folders and extension (`harbour` for
/// `interviews/harbour.vtt`).
fn source_of(project: &Project, file: &str) -> Option<usize> {
    let names = || project.lengths.iter().map(|(n, _)| n.as_str());
    names().position(|n| n == file).or_else(|| {
        let stem = Path::new(file).file_stem()?.to_str()?;
        let mut hits = names().enumerate().filter(|(_, n)| *n == stem);
        let (i, _) = hits.next()?;
        hits.next().is_none().then_some(i)
    })
}

/// `codes.csv`: one row per code.
pub fn codes_csv(result: &SpansResult) -> String {
    let mut out = crate::report::csv::CsvBuffer::new();
    out.record([
        "code",
        "unitized_alpha",
        "coding_unitized_alpha",
        "coverage",
        "precision",
        "recall",
        "f1",
        "units_first",
        "units_second",
        "matched",
        "chars_first",
        "chars_second",
        "chars_both",
    ]);
    let f = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{}", v + 0.0));
    for c in &result.agreement.codes {
        out.record([
            c.code.clone(),
            f(c.alpha.value),
            f(c.coding_alpha.value),
            f(c.coverage),
            f(c.precision.value),
            f(c.recall.value),
            f(c.f1.value),
            c.units_first.to_string(),
            c.units_second.to_string(),
            c.matched.to_string(),
            c.chars_first.to_string(),
            c.chars_second.to_string(),
            c.chars_both.to_string(),
        ]);
    }
    out.into_string()
}

/// Runs the comparison; with `config.out`, writes a run folder
/// (manifest.json, agreement.json, codes.csv) and returns its path.
pub fn execute(
    config: &Config,
    files: &[PathBuf],
) -> Result<(Option<PathBuf>, SpansResult), JobError> {
    let started = SystemTime::now();
    let result = run(config, files)?;
    let Some(out) = &config.out else {
        return Ok((None, result));
    };
    let mut inputs = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        let path = if f.is_dir() {
            f.join("results.json")
        } else {
            f.clone()
        };
        let bytes = super::read_input(&path)?;
        inputs.insert(
            super::agreement::input_role(i),
            InputFile::new(&path, &bytes),
        );
    }
    let settings = serde_json::json!({
        "spans": true,
        "files": files.len(),
        "first": result.first.coder,
        "second": result.second.coder,
        "codes": config.codes,
        "min_overlap": config.min_overlap,
        "resamples": config.resamples,
        "seed": config.seed,
    });
    let manifest = Manifest::new(
        "agreement",
        inputs,
        settings,
        result.signature.clone(),
        started,
    )
    .with_config(super::to_value(config));
    let mut run = RunWriter::create(out, started, manifest)?;
    run.write_json("agreement.json", &result)?;
    run.write("codes.csv", codes_csv(&result).as_bytes())?;
    Ok((Some(run.finish()?), result))
}
