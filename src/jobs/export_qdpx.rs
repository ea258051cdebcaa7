//! `corpus-eval export-qdpx RUN_FOLDER OUT.qdpx`: an evaluate or
//! check-report run's located quotes as a REFI-QDA project the
//! researcher's QDA tool opens (the views' `qdpx` module writes the
//! project file).
//!
//! The run folder is read as `rerun` reads it: its manifest names the
//! transcripts (found at their recorded path, or by name under `--inputs`,
//! their digest checked) and its configuration says how they were read,
//! so the sources' plain texts are the very texts the spans of
//! results.json count in. Each quote with a span is a selection: a found
//! quote (or an altered one's passage), each segment of an edited quote
//! and each piece of a stitched one (results.json's `pieces`), the passage
//! of an `other_source` quote in that other transcript.
//! A quote with no span (`fabricated`, `unknown_source`) locates nothing.
//! When the run's transcripts were one `.qdpx`, the export is that project
//! with the tool's user, codes and codings added, all else kept.

use super::replay::locate_input;
use super::JobError;
use crate::citations::{Attribution, ClassList, Verdict};
use crate::corpus::TranscriptSet;
use crate::report::manifest::Manifest;
use crate::views::qdpx::{Selection, Source};
use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The `.qdpx` file.
    pub out: PathBuf,
    /// Text sources (every transcript of the run).
    pub sources: usize,
    /// Selections (located quotes and their pieces).
    pub selections: usize,
    /// Quotes of the run without a span (nothing to select), and, in an
    /// export into the run's own project, selections that could not be
    /// carried to its text.
    pub unlocated: usize,
}

/// A run's transcripts (read as the run read them) and its located
/// quotes' selections.
pub(crate) struct Located {
    /// The run's manifest.
    pub manifest: Manifest,
    /// The transcripts, in the run's order.
    pub transcripts: TranscriptSet,
    /// Each located quote, piece and passage.
    pub selections: Vec<Selection>,
    /// Quotes without a span.
    pub unlocated: usize,
    /// The transcripts' file or folder, as found.
    pub transcripts_path: PathBuf,
    /// Whether the run read text sources outside a project's folder
    /// (`--allow-external-sources`).
    pub external_sources: bool,
}

/// Reads `run_folder`'s transcripts and located quotes (inputs looked
/// for by name under `inputs` when they are not at their recorded paths).
pub(crate) fn located(run_folder: &Path, inputs: Option<&Path>) -> Result<Located, JobError> {
    let manifest_path = run_folder.join("manifest.json");
    let manifest = Manifest::read(&manifest_path)?;
    let config = manifest.config.clone().ok_or_else(|| {
        JobError::Input(format!(
            "{}: no `config` recorded; export-qdpx reads evaluate and check-report runs",
            manifest_path.display()
        ))
    })?;
    let resolved = match manifest.command.as_str() {
        "evaluate" => super::replay::recorded_config::<super::evaluate::Config>(
            &manifest_path,
            config,
        )?
        .resolve()?,
        "check-report" => super::replay::recorded_config::<super::check_report::Config>(
            &manifest_path,
            config,
        )?
        .resolve()?,
        other => {
            return Err(JobError::Input(format!(
                "{}: a `{other}` run locates no quotes; export-qdpx reads evaluate and check-report runs",
                run_folder.display()
            )))
        }
    };
    let transcripts_path = locate_input(&manifest_path, &manifest, "transcripts", inputs)?;
    let external_sources = resolved.config.allow_external_sources;
    let (transcripts, _) = super::evaluate::load_transcripts(&transcripts_path, &resolved, false)?;
    let results_path = run_folder.join("results.json");
    let results_text = super::read_text(&results_path)?;
    let results: Value = serde_json::from_str(&results_text).map_err(|e| {
        JobError::Input(format!(
            "{}:{}:{}: {e}",
            results_path.display(),
            e.line(),
            e.column()
        ))
    })?;
    let quotes = match manifest.command.as_str() {
        "evaluate" => evaluate_quotes(&results),
        _ => report_quotes(&results),
    };
    let mut selections = Vec::new();
    let mut unlocated = 0;
    for q in &quotes {
        let before = selections.len();
        select(q, &transcripts, &results_path, &mut selections)?;
        if selections.len() == before {
            unlocated += 1;
        }
    }
    Ok(Located {
        manifest,
        transcripts,
        selections,
        unlocated,
        transcripts_path,
        external_sources,
    })
}

/// Exports `run_folder` to `out` (inputs looked for by name under
/// `inputs` when they are not at their recorded paths). The archive is
/// written beside `out` and renamed into place: never half written.
pub fn export(run_folder: &Path, out: &Path, inputs: Option<&Path>) -> Result<Exported, JobError> {
    let Located {
        manifest,
        transcripts,
        selections,
        unlocated,
        transcripts_path,
        external_sources,
    } = located(run_folder, inputs)?;
    let created = manifest
        .finished_at
        .clone()
        .unwrap_or_else(|| manifest.started_at.clone());
    let is_project = transcripts_path.is_file()
        && transcripts_path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("qdpx"));
    if is_project {
        return into_project(
            (&transcripts_path, external_sources),
            out,
            &transcripts,
            &selections,
            unlocated,
            &manifest.signature,
            &created,
        );
    }
    let sources: Vec<Source> = transcripts
        .transcripts
        .iter()
        .map(|t| Source {
            name: t.file.clone(),
            guid: crate::views::qdpx::guid(&format!("source:{}", t.file)),
        })
        .collect();
    // `reports/latest` names the run it links to.
    let named = std::fs::canonicalize(run_folder).unwrap_or_else(|_| run_folder.to_path_buf());
    let name = named
        .file_name()
        .map(|n| format!("corpus-eval {} {}", manifest.command, n.to_string_lossy()))
        .unwrap_or_else(|| format!("corpus-eval {}", manifest.command));
    let project = crate::views::qdpx::project(&crate::views::qdpx::Parts {
        name: &name,
        created: &created,
        signature: &manifest.signature,
        sources: &sources,
        selections: &selections,
    });
    write_archive(out, &project, &sources, &transcripts)?;
    Ok(Exported {
        out: out.to_path_buf(),
        sources: sources.len(),
        selections: selections.len(),
        unlocated,
    })
}

/// The export of a run whose transcripts came from a REFI-QDA project:
/// that project with the tool's user, codes and codings added, every
/// other part of it (and every other entry of its archive) as it was. The
/// run's spans count in its transcripts' texts (time stamps and markup
/// left out); they are carried to the project's own plain texts by
/// aligning the two texts' characters. A span none of whose characters
/// aligns is left out (counted with the quotes without a span).
fn into_project(
    (source, external_sources): (&Path, bool),
    out: &Path,
    transcripts: &TranscriptSet,
    selections: &[Selection],
    unlocated: usize,
    signature: &str,
    created: &str,
) -> Result<Exported, JobError> {
    use crate::corpus::formats::{qdpx, Archive, ReadOptions};
    let project = qdpx::read(
        source,
        &ReadOptions {
            external_sources,
            ..ReadOptions::default()
        },
    )?;
    let mut archive = Archive::open(source, "REFI-QDA project")?;
    let part = qdpx::project_file(&archive).ok_or_else(|| {
        JobError::Input(format!(
            "{}: no .qde project file in the archive",
            source.display()
        ))
    })?;
    let original = archive.part(&part)?;
    let mut by_source: Vec<(String, Vec<Selection>)> = Vec::new();
    let mut dropped = 0;
    for (k, t) in transcripts.transcripts.iter().enumerate() {
        let chosen: Vec<&Selection> = selections.iter().filter(|s| s.source == k).collect();
        if chosen.is_empty() {
            continue;
        }
        let Some(i) = project.lengths.iter().position(|(n, _)| *n == t.file) else {
            dropped += chosen.len();
            continue;
        };
        let map = crate::text::realign::CharMap::new(&t.text()?, &project.texts[i]);
        let mut moved = Vec::with_capacity(chosen.len());
        for s in chosen {
            match map.span(s.start, s.end) {
                Some((start, end)) => moved.push(Selection {
                    source: i,
                    start,
                    end,
                    ..s.clone()
                }),
                None => dropped += 1,
            }
        }
        by_source.push((t.file.clone(), moved));
    }
    let (merged, placed) = crate::views::qdpx::merge(&original, signature, created, &by_source)
        .map_err(|e| JobError::Input(format!("{}: {part}: {e}", source.display())))?;
    let input = std::fs::File::open(source)
        .map_err(|e| JobError::Input(format!("{}: {e}", source.display())))?;
    let mut input = zip::ZipArchive::new(std::io::BufReader::new(input))
        .map_err(|e| JobError::Input(format!("{}: {e}", source.display())))?;
    write_zip(out, |zip, options| {
        for i in 0..input.len() {
            let entry = input
                .by_index_raw(i)
                .map_err(|e| JobError::Input(format!("{}: entry {i}: {e}", source.display())))?;
            if entry.name().is_ok_and(|n| n == part.as_str()) {
                drop(entry);
                zip.start_file(part.as_str(), options)
                    .map_err(cannot_write(out))?;
                zip.write_all(merged.as_bytes())
                    .map_err(cannot_write(out))?;
            } else {
                zip.raw_copy_file(entry).map_err(cannot_write(out))?;
            }
        }
        Ok(())
    })?;
    Ok(Exported {
        out: out.to_path_buf(),
        sources: project.lengths.len(),
        selections: placed,
        unlocated: unlocated + dropped,
    })
}

/// One quote of results.json, as the export reads it.
struct Quote<'a> {
    /// `q3` or `PAIR/answer A/quote Q`.
    id: String,
    /// Where it was cited: the question, or the report's line.
    cited_at: String,
    record: &'a Value,
    /// The transcript it was checked in.
    source: Option<&'a str>,
}

fn evaluate_quotes(results: &Value) -> Vec<Quote<'_>> {
    let mut out = Vec::new();
    let pairs = results
        .get("qa_pairs")
        .or(Some(results))
        .and_then(Value::as_array);
    for (pi, pair) in pairs.into_iter().flatten().enumerate() {
        let id = pair
            .get("id")
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .unwrap_or_else(|| pi.to_string());
        let question = pair
            .get("question")
            .and_then(|q| q.get("text").or(Some(q)))
            .and_then(Value::as_str)
            .unwrap_or("");
        let answers = pair.get("answers").and_then(Value::as_array);
        for (ai, answer) in answers.into_iter().flatten().enumerate() {
            let verbatims = answer.get("verbatims").and_then(Value::as_array);
            for (qi, v) in verbatims.into_iter().flatten().enumerate() {
                out.push(Quote {
                    id: format!("{id}/answer {}/quote {}", ai + 1, qi + 1),
                    cited_at: format!("question {id}: {question}"),
                    record: v,
                    source: v.get("source").and_then(Value::as_str),
                });
            }
        }
    }
    out
}

fn report_quotes(results: &Value) -> Vec<Quote<'_>> {
    let quotes = results.get("quotes").and_then(Value::as_array);
    quotes
        .into_iter()
        .flatten()
        .map(|q| Quote {
            id: q
                .get("quote_id")
                .and_then(Value::as_str)
                .unwrap_or("q")
                .to_string(),
            cited_at: format!(
                "report line {}, column {}",
                q.get("line").and_then(Value::as_u64).unwrap_or(0),
                q.get("column").and_then(Value::as_u64).unwrap_or(0)
            ),
            record: q,
            source: q.get("source").and_then(Value::as_str),
        })
        .collect()
}

/// A span `{start, end}` of a record.
fn span_of(v: &Value) -> Option<(usize, usize)> {
    let s = v.get("span")?;
    let start = usize::try_from(s.get("start")?.as_u64()?).ok()?;
    let end = usize::try_from(s.get("end")?.as_u64()?).ok()?;
    (start <= end).then_some((start, end))
}

/// The selections of one quote.
fn select(
    q: &Quote<'_>,
    transcripts: &TranscriptSet,
    results_path: &Path,
    out: &mut Vec<Selection>,
) -> Result<(), JobError> {
    let r = q.record;
    let verdict = r
        .get("verdict")
        .and_then(Value::as_str)
        .and_then(Verdict::from_name);
    let attribution = r
        .get("attribution")
        .and_then(Value::as_str)
        .and_then(Attribution::from_name);
    let text = r
        .get("quote")
        .or_else(|| r.get("text"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let similarity = r.get("similarity").and_then(Value::as_f64).unwrap_or(0.0);
    let differences: Vec<&str> = r
        .get("differences")
        .and_then(Value::as_array)
        .map(|d| d.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let describe = |part: &str| {
        let mut d = format!("\u{201c}{text}\u{201d}\n{}{part}", q.cited_at);
        d.push_str(&format!(
            "\nverdict: {}; attribution: {}; similarity: {similarity:.6}",
            verdict.map_or("none", Verdict::name),
            attribution.map_or("none", Attribution::name)
        ));
        if !differences.is_empty() {
            d.push_str(&format!("; differences: {}", differences.join(", ")));
        }
        d
    };
    let mut push = |source: Option<&str>, span: (usize, usize), name: String, part: &str| {
        let Some(t) = source.and_then(|s| transcripts.position(s)) else {
            return Ok(());
        };
        // The span must lie in the source's text, counted in characters.
        let chars = transcripts.transcripts[t].text()?.chars().count();
        if span.1 > chars {
            return Err(JobError::Input(format!(
                "{}: quote {}: field `span`: {}..{} lies past the end of {} ({chars} characters): the transcripts changed since the run",
                results_path.display(),
                q.id,
                span.0,
                span.1,
                transcripts.transcripts[t].file
            )));
        }
        out.push(Selection {
            source: t,
            start: span.0,
            end: span.1,
            name,
            description: describe(part),
            verdict,
            attribution,
        });
        Ok::<(), JobError>(())
    };
    if let Some(span) = span_of(r) {
        push(q.source, span, q.id.clone(), "")?;
    }
    if let Some(pieces) = r.get("pieces").and_then(Value::as_array) {
        for (k, p) in pieces.iter().enumerate() {
            if let Some(span) = span_of(p) {
                let part = format!("; piece {} of {}", k + 1, pieces.len());
                push(q.source, span, format!("{} piece {}", q.id, k + 1), &part)?;
            }
        }
    }
    if let Some(other) = r.get("other_source") {
        if let (Some(src), Some(span)) =
            (other.get("source").and_then(Value::as_str), span_of(other))
        {
            let part = format!("; said in {src}, not in the cited transcript");
            push(Some(src), span, format!("{} in {src}", q.id), &part)?;
        }
    }
    Ok(())
}

/// Writes the archive: `project.qde` and each source's plain text as
/// `sources/<guid>.txt`.
fn write_archive(
    out: &Path,
    project: &str,
    sources: &[Source],
    transcripts: &TranscriptSet,
) -> Result<(), JobError> {
    write_zip(out, |zip, options| {
        zip.start_file("project.qde", options)
            .map_err(cannot_write(out))?;
        zip.write_all(project.as_bytes())
            .map_err(cannot_write(out))?;
        for (source, t) in sources.iter().zip(&transcripts.transcripts) {
            zip.start_file(format!("sources/{}.txt", source.guid), options)
                .map_err(cannot_write(out))?;
            zip.write_all(t.text()?.as_bytes())
                .map_err(cannot_write(out))?;
        }
        Ok(())
    })
}

/// The error of an archive `out` that could not be built.
fn cannot_write<E: std::fmt::Display>(out: &Path) -> impl Fn(E) -> JobError + '_ {
    move |e| JobError::Input(format!("cannot write {}: {e}", out.display()))
}

/// Writes the archive `fill` builds (deflated entries, fixed times) to
/// `out` at once, as every output is written (`report::write_atomic`: a
/// temporary file beside it and a rename, never half written).
fn write_zip(
    out: &Path,
    fill: impl FnOnce(
        &mut zip::ZipWriter<std::io::Cursor<Vec<u8>>>,
        zip::write::SimpleFileOptions,
    ) -> Result<(), JobError>,
) -> Result<(), JobError> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    fill(&mut zip, options)?;
    let bytes = zip.finish().map_err(cannot_write(out))?.into_inner();
    crate::report::write_atomic(out, &bytes)?;
    Ok(())
}
