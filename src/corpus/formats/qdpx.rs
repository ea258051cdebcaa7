//! REFI-QDA projects (`.qdpx`, the exchange format NVivo, ATLAS.ti,
//! MAXQDA and QualCoder read and write): a zip archive holding the project
//! file (`project.qde`, or `<Project>.qde` as ATLAS.ti names it) and the
//! sources. Each `TextSource` is a transcript (its id is its `name`; its
//! text at `plainTextPath`: `internal://FILE` is `sources/FILE` in the
//! archive, any other path is relative to the project's folder; or inline,
//! in its `<PlainTextContent>`), read as a text transcript. The project's
//! codes and codings are kept for the library ([`Project::codings`]).
//!
//! A source outside the archive is read only from the project's own
//! folder (links resolved: `../`, `%2e%2e/`, an absolute path, a
//! `file://` URL or a link that leads out of it is refused) unless the
//! reader is told to allow more ([`super::ReadOptions::external_sources`]),
//! never from `/proc`, `/dev` or `/sys`, and only a regular file; every
//! file read so is listed ([`Project::outside`]). An entry named by many
//! sources is read once, and every source's text counts against the
//! archive's bound ([`crate::corpus::input::MAX_ARCHIVE_BYTES`]).

use super::{reference, xml_error, Archive, ReadOptions};
use super::{Format, TimedTranscript};
use crate::corpus::CorpusError;
use quick_xml::events::{BytesStart, Event};
use std::path::{Path, PathBuf};

/// A code of the project's code book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Code {
    /// Its GUID.
    pub guid: String,
    /// Its name.
    pub name: String,
}

/// A coded selection of a text source: characters `start..end` of the
/// source's plain text (as the project counts them), coded with `code`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Coding {
    /// The source's name (the transcript's id).
    pub source: String,
    /// First character.
    pub start: usize,
    /// Past the last character.
    pub end: usize,
    /// The code's GUID.
    pub code: String,
    /// The code's name (empty when the code book does not list it).
    pub code_name: String,
    /// The GUID of the user who made the coding (the `Coding`'s
    /// `creatingUser`, else its selection's), when the project says.
    pub user: Option<String>,
}

/// A user of the project (a coder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct User {
    /// Its GUID.
    pub guid: String,
    /// Its name (empty when the project gives none).
    pub name: String,
}

/// A project read: its text sources as transcripts, its codes and codings.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Project {
    /// The text sources, in the project's order.
    pub transcripts: Vec<TimedTranscript>,
    /// The code book, flattened.
    pub codes: Vec<Code>,
    /// Every coding of a text selection.
    pub codings: Vec<Coding>,
    /// The project's users.
    pub users: Vec<User>,
    /// Each text source's name and the characters of its plain text (the
    /// continuum its selections' positions count), in the project's order.
    pub lengths: Vec<(String, usize)>,
    /// Each text source's plain text, in the same order (what the
    /// selections' positions count in).
    pub texts: Vec<std::rc::Rc<String>>,
    /// The files read outside the archive (external text sources).
    pub outside: Vec<PathBuf>,
}

/// An attribute's value (unescaped), if present.
pub(crate) fn attr(e: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name)
        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
}

/// The name of the project file inside the archive.
pub(crate) fn project_file(archive: &Archive) -> Option<String> {
    let names = archive.names();
    if names.iter().any(|n| n == "project.qde") {
        return Some("project.qde".into());
    }
    let mut qde: Vec<String> = names
        .into_iter()
        .filter(|n| !n.contains('/') && n.to_ascii_lowercase().ends_with(".qde"))
        .collect();
    qde.sort_unstable();
    qde.into_iter().next()
}

/// Reads a `.qdpx` project.
pub(crate) fn read(path: &Path, options: &ReadOptions) -> Result<Project, CorpusError> {
    let mut archive = Archive::open(path, "REFI-QDA project")?;
    let part = project_file(&archive).ok_or_else(|| CorpusError::Record {
        path: path.to_path_buf(),
        record: "(archive)".into(),
        field: "project.qde".into(),
        message: "missing from the archive (no .qde project file)".into(),
    })?;
    let xml = archive.part(&part)?;
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut project = Project::default();
    // (name, plainTextPath) of each text source; a source whose text is
    // inline (`<PlainTextContent>`) has its text in `inline` instead.
    let mut sources: Vec<(String, String)> = Vec::new();
    let mut inline: std::collections::HashMap<usize, String> = Default::default();
    // The inline text being read (inside a path-less source's
    // `<PlainTextContent>`).
    let mut content: Option<String> = None;
    let mut source: Option<String> = None;
    let no_text = |name: &str, at: u64| {
        xml_error(
            path,
            &part,
            at,
            format!("TextSource {name:?} has neither `plainTextPath` nor `PlainTextContent`"),
        )
    };
    let mut selection: Option<(usize, usize)> = None;
    let mut coding_guid = false;
    // The `creatingUser` of the selection and of the coding being read.
    let (mut selection_user, mut coding_user): (Option<String>, Option<String>) = (None, None);
    loop {
        let at = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| xml_error(path, &part, at, e))?;
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e.clone()), false),
            Event::Empty(e) => (Some(e.clone()), true),
            _ => (None, false),
        };
        if let Some(e) = start {
            match e.local_name().as_ref() {
                b"Code" => {
                    if let (Some(guid), Some(name)) = (attr(&e, b"guid"), attr(&e, b"name")) {
                        project.codes.push(Code { guid, name });
                    }
                }
                b"User" => {
                    if let Some(guid) = attr(&e, b"guid") {
                        let name = attr(&e, b"name").unwrap_or_default();
                        project.users.push(User { guid, name });
                    }
                }
                b"TextSource" => {
                    let name = attr(&e, b"name").ok_or_else(|| {
                        xml_error(path, &part, at, "a TextSource without a `name`")
                    })?;
                    let text_path = match attr(&e, b"plainTextPath") {
                        Some(p) => p,
                        // Its text inline, in `<PlainTextContent>`.
                        None if !empty => String::new(),
                        None => return Err(no_text(&name, at)),
                    };
                    sources.push((name.clone(), text_path));
                    if !empty {
                        source = Some(name);
                    }
                }
                b"PlainTextContent"
                    if source.is_some() && sources.last().is_some_and(|s| s.1.is_empty()) =>
                {
                    content = (!empty).then(String::new);
                    if empty {
                        inline.insert(sources.len() - 1, String::new());
                    }
                }
                b"PlainTextSelection" if source.is_some() => {
                    let pos = |n: &[u8]| attr(&e, n).and_then(|v| v.trim().parse::<usize>().ok());
                    selection =
                        match (pos(b"startPosition"), pos(b"endPosition")) {
                            (Some(a), Some(b)) if a <= b => Some((a, b)),
                            _ => return Err(xml_error(
                                path,
                                &part,
                                at,
                                "a PlainTextSelection without whole startPosition <= endPosition",
                            )),
                        };
                    selection_user = attr(&e, b"creatingUser");
                    if empty {
                        selection = None;
                    }
                }
                b"Coding" => {
                    coding_guid = true;
                    coding_user = attr(&e, b"creatingUser");
                }
                b"CodeRef" if coding_guid => {
                    if let (Some(src), Some((a, b)), Some(code)) =
                        (&source, selection, attr(&e, b"targetGUID"))
                    {
                        project.codings.push(Coding {
                            source: src.clone(),
                            start: a,
                            end: b,
                            code,
                            code_name: String::new(),
                            user: coding_user.clone().or_else(|| selection_user.clone()),
                        });
                    }
                }
                _ => {}
            }
        }
        match event {
            Event::Text(t) if content.is_some() => {
                let text = t
                    .xml10_content()
                    .map_err(|e| xml_error(path, &part, at, e))?;
                content.get_or_insert_default().push_str(&text);
            }
            Event::CData(t) if content.is_some() => {
                let text = t.decode().map_err(|e| xml_error(path, &part, at, e))?;
                content.get_or_insert_default().push_str(&text);
            }
            Event::GeneralRef(r) if content.is_some() => {
                content.get_or_insert_default().push_str(&reference(&r));
            }
            Event::End(e) => match e.local_name().as_ref() {
                b"PlainTextContent" => {
                    if let Some(text) = content.take() {
                        inline.insert(sources.len() - 1, text);
                    }
                }
                b"TextSource" => {
                    if let Some((name, p)) = sources.last() {
                        if p.is_empty() && !inline.contains_key(&(sources.len() - 1)) {
                            return Err(no_text(name, at));
                        }
                    }
                    source = None
                }
                b"PlainTextSelection" => selection = None,
                b"Coding" => coding_guid = false,
                _ => {}
            },
            Event::GeneralRef(r) => drop(reference(&r)),
            Event::Eof => break,
            _ => {}
        }
    }
    let names: std::collections::HashMap<&str, &str> = project
        .codes
        .iter()
        .rev()
        .map(|k| (k.guid.as_str(), k.name.as_str()))
        .collect();
    for c in &mut project.codings {
        if let Some(name) = names.get(c.code.as_str()) {
            c.code_name = name.to_string();
        }
    }
    // The project's folder is the archive's own (a link to the archive
    // gives no other folder).
    let folder = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .or_else(|| path.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    // Each entry or file is read once, however many sources name it; each
    // source's text counts against the archive's bound before any is
    // parsed (2,000 sources of one 5 MB entry are refused, not built).
    let mut read: std::collections::HashMap<String, std::rc::Rc<String>> = Default::default();
    let mut texts = Vec::with_capacity(sources.len());
    for (k, (name, text_path)) in sources.into_iter().enumerate() {
        if let Some(text) = inline.remove(&k) {
            let text = std::rc::Rc::new(crate::text::lone_cr_to_lf(text));
            texts.push((name.clone(), format!("PlainTextContent of {name}"), text));
            continue;
        }
        let text = match read.get(&text_path) {
            Some(text) => {
                archive.budget().spend(&text_path, text.len() as u64)?;
                text.clone()
            }
            None => {
                let (text, outside) =
                    source_text(&mut archive, path, &folder, &text_path, options)?;
                project.outside.extend(outside);
                let text = std::rc::Rc::new(crate::text::lone_cr_to_lf(text));
                read.insert(text_path.clone(), text.clone());
                text
            }
        };
        texts.push((name, text_path, text));
    }
    for (name, text_path, text) in texts {
        project.lengths.push((name.clone(), text.chars().count()));
        project.texts.push(text.clone());
        let at = Path::new(&format!("{}:{text_path}", path.display())).to_path_buf();
        let markdown = super::text::holds_markdown(&text);
        let parsed = super::text::parse(&at, &text, markdown)?;
        project.transcripts.push(TimedTranscript {
            id: name,
            format: Format::Qdpx,
            turns: parsed.turns,
            doubts: super::doubt_of(&at, parsed.doubt),
        });
    }
    Ok(project)
}

/// The local path a `plainTextPath` names: a `file://` URL (host empty or
/// `localhost`) or a relative reference, both URIs, so percent-decoded
/// (`file:///home/a/IS%20004.txt` is `/home/a/IS 004.txt`).
fn local_path(text_path: &str) -> Result<String, String> {
    let scheme = text_path
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("file://"));
    let rest = if scheme {
        // `file://HOST/path`: only this machine's (no host, or localhost).
        let r = &text_path[7..];
        let (host, path) = r.find('/').map_or((r, ""), |k| r.split_at(k));
        if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
            return Err(format!("a file on another host ({host}) is not read"));
        }
        path
    } else {
        text_path
    };
    Ok(percent_encoding::percent_decode_str(rest)
        .decode_utf8_lossy()
        .into_owned())
}

/// A source's plain text: `internal://FILE` from the archive's `sources/`,
/// another path (or `file://` URL) relative to the project's folder, and
/// the file read outside the archive if any.
fn source_text(
    archive: &mut Archive,
    path: &Path,
    folder: &Path,
    text_path: &str,
    options: &ReadOptions,
) -> Result<(String, Option<PathBuf>), CorpusError> {
    if let Some(file) = text_path.strip_prefix("internal://") {
        return Ok((archive.part(&format!("sources/{file}"))?, None));
    }
    let bad = |message: String| CorpusError::Record {
        path: path.to_path_buf(),
        record: format!("source {text_path:?}"),
        field: "plainTextPath".into(),
        message,
    };
    let p = PathBuf::from(local_path(text_path).map_err(bad)?);
    let p = if p.is_relative() { folder.join(p) } else { p };
    let resolved = std::fs::canonicalize(&p).map_err(|e| bad(format!("{}: {e}", p.display())))?;
    if !options.external_sources {
        let base = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        let base = std::fs::canonicalize(base).map_err(|e| bad(e.to_string()))?;
        if !resolved.starts_with(&base) {
            return Err(bad(format!(
                "{} lies outside the project's folder ({}): not read (--allow-external-sources reads it)",
                resolved.display(),
                base.display()
            )));
        }
        // Hidden files and folders (`.ssh/`, `.env`) are no project's
        // sources, as a folder walk skips them.
        let hidden = resolved.strip_prefix(&base).ok().is_some_and(|rel| {
            rel.components()
                .any(|c| c.as_os_str().as_encoded_bytes().starts_with(b"."))
        });
        if hidden {
            return Err(bad(format!(
                "{} is a hidden file or in a hidden folder of the project's folder: not read (--allow-external-sources reads it)",
                resolved.display()
            )));
        }
    }
    let (file, _) =
        crate::corpus::input::open_regular(&resolved).map_err(|e| bad(e.to_string()))?;
    let limit = crate::corpus::input::MAX_ENTRY_BYTES.min(archive.budget().left());
    let bytes = match crate::corpus::input::read_bounded(file, limit) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(read)) => {
            archive.budget().spend(text_path, read)?;
            return Err(bad(format!(
                "{}: over {} MiB (the bound of one source)",
                resolved.display(),
                crate::corpus::input::MAX_ENTRY_BYTES >> 20
            )));
        }
        Err(e) => return Err(bad(format!("{}: {e}", resolved.display()))),
    };
    archive.budget().spend(text_path, bytes.len() as u64)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "{}: not valid UTF-8 (byte {})",
            resolved.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok((text, Some(resolved)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_paths_are_uris() {
        let p = |s: &str| local_path(s).unwrap();
        assert_eq!(p("file:///home/a/IS%20004.txt"), "/home/a/IS 004.txt");
        assert_eq!(p("file://localhost/srv/x%C3%A9.txt"), "/srv/xé.txt");
        assert_eq!(p("FILE:///srv/a.txt"), "/srv/a.txt");
        assert_eq!(p("texts/IS%20004.txt"), "texts/IS 004.txt");
        assert_eq!(p("texts/plain.txt"), "texts/plain.txt");
        assert!(local_path("file://evil.example/etc/passwd").is_err());
        assert!(local_path("file://localhostX/y").is_err());
    }
    use std::io::Write;

    /// A `.qdpx` of `files` (name, contents).
    pub(crate) fn write_qdpx(path: &Path, files: &[(&str, &str)]) {
        let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        for (name, text) in files {
            w.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(text.as_bytes()).unwrap();
        }
        w.finish().unwrap();
    }

    const QDE: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<Project name="Harbour" xmlns="urn:QDA-XML:project:1.0">
 <Users><User guid="u1" name="Ana K"/><User guid="u2"/></Users>
 <CodeBook><Codes><Code guid="c1" name="Leaving" isCodable="true"><Code guid="c2" name="Money &amp; work" isCodable="true"/></Code></Codes></CodeBook>
 <Sources>
  <TextSource guid="s1" name="IS-004 harbour" plainTextPath="internal://s1.txt">
   <PlainTextSelection guid="p1" startPosition="5" endPosition="28">
    <Coding guid="k1" creatingUser="u1"><CodeRef targetGUID="c2"/></Coding>
   </PlainTextSelection>
   <PlainTextSelection guid="p2" startPosition="0" endPosition="3" creatingUser="u2">
    <Coding guid="k2"><CodeRef targetGUID="c1"/></Coding>
   </PlainTextSelection>
  </TextSource>
  <TextSource guid="s2" name="IS-005" plainTextPath="internal://s2.txt"/>
 </Sources>
</Project>"#;

    /// A source whose text is inline (`<PlainTextContent>`, as the schema
    /// allows instead of a `plainTextPath`): its text read with entities
    /// and CDATA resolved, its selections counted in it; a source with
    /// neither is an error naming it.
    #[test]
    fn a_source_with_its_text_inline() {
        let dir = std::env::temp_dir().join(format!("ce-qdpx-inline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("p.qdpx");
        let qde = r#"<?xml version="1.0" encoding="utf-8"?>
<Project name="p" xmlns="urn:QDA-XML:project:1.0">
 <CodeBook><Codes><Code guid="c1" name="Money" isCodable="true"/></Codes></CodeBook>
 <Sources>
  <TextSource guid="s1" name="inline">
   <Description>not the text</Description>
   <PlainTextContent>Ana: Geld &amp; Arbeit, <![CDATA[<keine>]]> für Vater.</PlainTextContent>
   <PlainTextSelection guid="p1" startPosition="5" endPosition="19"><Coding guid="k1"><CodeRef targetGUID="c1"/></Coding></PlainTextSelection>
  </TextSource>
  <TextSource guid="s2" name="file" plainTextPath="internal://s2.txt"/>
 </Sources>
 <Notes><Note guid="n1" name="memo"><PlainTextContent>a memo</PlainTextContent></Note></Notes>
</Project>"#;
        write_qdpx(&p, &[("project.qde", qde), ("sources/s2.txt", "Bo: ja")]);
        let project = read(&p, &ReadOptions::default()).unwrap();
        let ids: Vec<&str> = project.transcripts.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["inline", "file"]);
        assert_eq!(
            project.texts[0].as_str(),
            "Ana: Geld & Arbeit, <keine> für Vater."
        );
        let c = &project.codings[0];
        let said: String = project.texts[0]
            .chars()
            .skip(c.start)
            .take(c.end - c.start)
            .collect();
        assert_eq!(said, "Geld & Arbeit,");
        assert_eq!(
            project.transcripts[0].turns[0].text,
            "Geld & Arbeit, <keine> für Vater."
        );
        let bare = qde.replace(
            "<TextSource guid=\"s2\" name=\"file\" plainTextPath=\"internal://s2.txt\"/>",
            "<TextSource guid=\"s2\" name=\"file\"/>",
        );
        write_qdpx(&p, &[("project.qde", &bare)]);
        let e = read(&p, &ReadOptions::default()).unwrap_err().to_string();
        assert!(
            e.contains("\"file\"") && e.contains("PlainTextContent"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn sources_codes_and_codings_of_a_project_named_as_atlas_ti_does() {
        let dir = std::env::temp_dir().join(format!("ce-qdpx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("p.qdpx");
        write_qdpx(
            &p,
            &[
                ("Harbour study.qde", QDE),
                (
                    "sources/s1.txt",
                    "Ana: [00:00:05] We left for money and work.\nTomas: Why?",
                ),
                ("sources/s2.txt", "Bo: très bien"),
            ],
        );
        let project = read(&p, &ReadOptions::default()).unwrap();
        let ids: Vec<&str> = project.transcripts.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["IS-004 harbour", "IS-005"]);
        let first = &project.transcripts[0].turns[0];
        assert_eq!(
            (first.speaker.as_deref(), first.text.as_str()),
            (Some("Ana"), "We left for money and work.")
        );
        assert_eq!(project.transcripts[0].turns[0].start(), Some(5.0));
        assert_eq!(project.codes.len(), 2);
        assert_eq!(
            project.codings,
            [
                Coding {
                    source: "IS-004 harbour".into(),
                    start: 5,
                    end: 28,
                    code: "c2".into(),
                    code_name: "Money & work".into(),
                    user: Some("u1".into()),
                },
                // The selection's user, where the coding names none.
                Coding {
                    source: "IS-004 harbour".into(),
                    start: 0,
                    end: 3,
                    code: "c1".into(),
                    code_name: "Leaving".into(),
                    user: Some("u2".into()),
                }
            ]
        );
        assert_eq!(
            project.users,
            [
                User {
                    guid: "u1".into(),
                    name: "Ana K".into()
                },
                User {
                    guid: "u2".into(),
                    name: String::new()
                }
            ]
        );
        // Characters of each plain text, not bytes (`è` is two bytes).
        assert_eq!(
            project.lengths,
            [
                ("IS-004 harbour".to_string(), 55),
                ("IS-005".to_string(), 13)
            ]
        );
        // No project file; a source missing from the archive.
        write_qdpx(&p, &[("sources/s1.txt", "x")]);
        let e = read(&p, &ReadOptions::default()).unwrap_err().to_string();
        assert!(e.contains("p.qdpx") && e.contains("project.qde"), "{e}");
        write_qdpx(&p, &[("project.qde", QDE), ("sources/s1.txt", "x")]);
        let e = read(&p, &ReadOptions::default()).unwrap_err().to_string();
        assert!(e.contains("p.qdpx") && e.contains("sources/s2.txt"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
