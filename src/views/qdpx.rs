//! A run's verdicts as a REFI-QDA project (`project.qde` of a `.qdpx`,
//! QDA-XML 1.0): the transcripts as text sources, a code group
//! `corpus-eval` holding a code per verdict and attribution class (the
//! colours of report.html's badges), and each located quote as a
//! `PlainTextSelection` coded with its classes by the user `corpus-eval
//! <version>`, whose GUID is the same in every export.
//!
//! Positions are counted as the standard counts them: characters (Unicode
//! scalar values) of the source's plain text, the text written beside the
//! project in `sources/`, `endPosition` past the last character.
//!
//! Every GUID is derived from what it names (a SHA-256 shaped as a version
//! 5 UUID), so the same run exports the same project.

use crate::citations::{Attribution, ClassList, Verdict};

/// The namespace of QDA-XML 1.0.
pub(crate) const NAMESPACE: &str = "urn:QDA-XML:project:1.0";

/// One source of the project: its name and its plain text's file name.
#[derive(Debug, Clone)]
pub(crate) struct Source {
    /// The transcript's id.
    pub name: String,
    /// Its GUID.
    pub guid: String,
}

/// A located quote (a found span, a piece, a passage in another source).
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    /// The source it lies in (an index of the sources).
    pub source: usize,
    /// Characters of the source's plain text.
    pub start: usize,
    /// Past the last character.
    pub end: usize,
    /// A name: the quote's id and what part this is.
    pub name: String,
    /// What a reader of the project is told: the quote as cited, where it
    /// was cited, its similarity and differences.
    pub description: String,
    /// Its verdict.
    pub verdict: Option<Verdict>,
    /// Its attribution class.
    pub attribution: Option<Attribution>,
}

/// What the project is made of.
#[derive(Debug, Clone)]
pub(crate) struct Parts<'a> {
    /// The project's name.
    pub name: &'a str,
    /// When the run finished (RFC 3339): the project's and the codings'
    /// creation time.
    pub created: &'a str,
    /// The run's signature (the project's description).
    pub signature: &'a str,
    /// The sources, in order.
    pub sources: &'a [Source],
    /// The selections.
    pub selections: &'a [Selection],
}

/// A GUID derived from `what`: the SHA-256 of `corpus-eval:` and it,
/// shaped as a version 5 UUID.
pub(crate) fn guid(what: &str) -> String {
    let hex = crate::text::hash::sha256_hex(format!("corpus-eval:{what}").as_bytes());
    let mut s = String::with_capacity(36);
    s.push_str(&hex[0..8]);
    s.push('-');
    s.push_str(&hex[8..12]);
    s.push('-');
    s.push('5');
    s.push_str(&hex[13..16]);
    s.push('-');
    // The variant: 10xx.
    let v = u8::from_str_radix(&hex[16..17], 16).unwrap_or(0) & 0x3 | 0x8;
    s.push(char::from_digit(u32::from(v), 16).unwrap_or('8'));
    s.push_str(&hex[17..20]);
    s.push('-');
    s.push_str(&hex[20..32]);
    s.to_uppercase()
}

/// The user every export codes as.
pub(crate) fn user_name() -> String {
    format!("corpus-eval {}", env!("CARGO_PKG_VERSION"))
}

/// The user's GUID: the same for every version, distinct from any person.
pub(crate) fn user_guid() -> String {
    guid("user")
}

/// A code's GUID.
fn code_guid(kind: &str, name: &str) -> String {
    guid(&format!("code:{kind}:{name}"))
}

/// The colour report.html gives a class's badge (`#rrggbb`).
fn colour(class: &str) -> Option<String> {
    let css: &str = &super::assets::AUDIT_CSS;
    let needle = format!(".b-{class}");
    for rule in css.split('}') {
        let Some((selectors, body)) = rule.split_once('{') else {
            continue;
        };
        if selectors.split(',').any(|s| s.trim() == needle) {
            let hex = body.split("background:#").nth(1)?;
            let hex: String = hex.chars().take_while(char::is_ascii_hexdigit).collect();
            return matches!(hex.len(), 3 | 6).then(|| format!("#{hex}"));
        }
    }
    None
}

/// Text as XML 1.0 may hold it, escaped (characters XML forbids dropped).
fn xml(text: &str) -> String {
    let allowed: String = text
        .chars()
        .filter(|&c| {
            matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{fffe}' && c != '\u{ffff}')
        })
        .collect();
    quick_xml::escape::escape(allowed.as_str()).into_owned()
}

/// `project.qde`'s text.
pub(crate) fn project(parts: &Parts<'_>) -> String {
    let user = user_guid();
    let created = xml(parts.created);
    let mut out = String::with_capacity(4096 + parts.selections.len() * 600);
    out.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    out.push_str(&format!(
        "<Project xmlns=\"{NAMESPACE}\" name=\"{}\" origin=\"{}\" creatingUserGUID=\"{user}\" creationDateTime=\"{created}\">\n",
        xml(parts.name),
        xml(&user_name())
    ));
    out.push_str(&format!("  <Users>\n{}  </Users>\n", user_element()));
    out.push_str(&format!(
        "  <CodeBook>\n    <Codes>\n{}    </Codes>\n  </CodeBook>\n",
        code_group(parts.signature)
    ));
    out.push_str("  <Sources>\n");
    for (k, source) in parts.sources.iter().enumerate() {
        out.push_str(&format!(
            "    <TextSource guid=\"{}\" name=\"{}\" plainTextPath=\"internal://{}.txt\" creatingUser=\"{user}\" creationDateTime=\"{created}\">\n",
            source.guid,
            xml(&source.name),
            source.guid
        ));
        out.push_str(&selections(
            &source.name,
            parts.selections.iter().filter(|s| s.source == k),
            parts.created,
        ));
        out.push_str("    </TextSource>\n");
    }
    out.push_str("  </Sources>\n");
    out.push_str(&format!(
        "  <Description>{}</Description>\n",
        xml(&signed(parts.signature))
    ));
    out.push_str("</Project>\n");
    out
}

/// What the project (or the code group, in a project merged into) says
/// of the run.
fn signed(signature: &str) -> String {
    format!(
        "Verdicts of corpus-eval {}; signature: {signature}",
        env!("CARGO_PKG_VERSION")
    )
}

/// The tool's `<User>` element, on a line of its own.
pub(crate) fn user_element() -> String {
    format!(
        "    <User guid=\"{}\" name=\"{}\"/>\n",
        user_guid(),
        xml(&user_name())
    )
}

/// The `corpus-eval` code group (a `<Code>` of `<Codes>`), its
/// description the run's signature.
pub(crate) fn code_group(signature: &str) -> String {
    let mut out = format!(
        "      <Code guid=\"{}\" name=\"corpus-eval\" isCodable=\"false\">\n        <Description>{}</Description>\n",
        guid("code:corpus-eval"),
        xml(&signed(signature))
    );
    group::<Verdict>(&mut out, "verdict");
    group::<Attribution>(&mut out, "attribution");
    out.push_str("      </Code>\n");
    out
}

/// The `<PlainTextSelection>` elements of one source's selections, coded
/// by the tool's user.
pub(crate) fn selections<'a>(
    source: &str,
    selections: impl Iterator<Item = &'a Selection>,
    created: &str,
) -> String {
    let user = user_guid();
    let created = xml(created);
    let mut out = String::new();
    for s in selections {
        let id = guid(&format!(
            "selection:{source}:{}:{}:{}",
            s.name, s.start, s.end
        ));
        out.push_str(&format!(
            "      <PlainTextSelection guid=\"{id}\" name=\"{}\" startPosition=\"{}\" endPosition=\"{}\" creatingUser=\"{user}\" creationDateTime=\"{created}\">\n",
            xml(&s.name),
            s.start,
            s.end
        ));
        out.push_str(&format!(
            "        <Description>{}</Description>\n",
            xml(&s.description)
        ));
        let codes = [
            s.verdict.map(|v| ("verdict", v.name())),
            s.attribution.map(|a| ("attribution", a.name())),
        ];
        for (kind, name) in codes.into_iter().flatten() {
            out.push_str(&format!(
                "        <Coding guid=\"{}\" creatingUser=\"{user}\" creationDateTime=\"{created}\">\n          <CodeRef targetGUID=\"{}\"/>\n        </Coding>\n",
                guid(&format!("coding:{id}:{kind}")),
                code_guid(kind, name)
            ));
        }
        out.push_str("      </PlainTextSelection>\n");
    }
    out
}

/// Where an element of the project being merged into lies.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// `<X>...</X>`: past its start tag, and where its end tag begins.
    Open { inner: usize, close: usize },
    /// `<X/>`: where it starts and ends.
    Empty { start: usize, end: usize },
}

/// A text source of the project being merged into: where it lies, and
/// where its first child that must follow the selections begins.
#[derive(Debug, Clone, Copy)]
struct SourcePlace {
    place: Place,
    before: Option<usize>,
}

/// `original` (a project.qde) with the tool's user, its code group and
/// `selections` (by source name; positions in the project's own plain
/// texts) added, everything else left as it was, byte for byte. Returns
/// the text and the selections placed (a source the project lacks takes
/// none); Err says why the project cannot take them.
pub(crate) fn merge(
    original: &str,
    signature: &str,
    created: &str,
    by_source: &[(String, Vec<Selection>)],
) -> Result<(String, usize), String> {
    use quick_xml::events::Event;
    // The reader skips a byte-order mark without counting it: the body
    // after it is parsed (its positions are the body's), the mark kept.
    let (bom, original) = match original.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", original),
    };
    // GUIDs in any case (a tool may have written them lower-case).
    let upper = original.to_ascii_uppercase();
    if upper.contains(&user_guid()) || upper.contains(&guid("code:corpus-eval")) {
        return Err(format!(
            "the project already holds {}'s user or codes (GUIDs {} and {}): export from the project the tool's codings were not added to",
            user_name(),
            user_guid(),
            guid("code:corpus-eval")
        ));
    }
    let mut reader = quick_xml::Reader::from_str(original);
    let mut stack: Vec<String> = Vec::new();
    let (mut project, mut users, mut codebook, mut codes) = (None, None, None, None);
    let mut users_end = None;
    let mut sources: Vec<(String, SourcePlace)> = Vec::new();
    let mut open: Vec<(usize, usize)> = Vec::new();
    loop {
        let at = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(|e| format!("byte {at}: {e}"))?;
        let end = reader.buffer_position() as usize;
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                let Some(local) = stack.pop() else {
                    return Err(format!("byte {at}: an end tag without a start"));
                };
                let (_, inner) = open.pop().unwrap_or((at, at));
                let path: Vec<&str> = stack.iter().map(String::as_str).collect();
                let place = Place::Open { inner, close: at };
                match (path.as_slice(), local.as_str()) {
                    (["Project"], "Users") => {
                        users = Some(place);
                        users_end = Some(end);
                    }
                    (["Project"], "CodeBook") => codebook = Some(place),
                    (["Project", "CodeBook"], "Codes") => codes = Some(place),
                    (["Project", "Sources"], "TextSource") => {
                        if let Some((_, s)) = sources.last_mut() {
                            s.place = place;
                        }
                    }
                    _ => {}
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        let local = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
        if name != local {
            return Err(format!(
                "element <{name}> has a namespace prefix: only projects in the default namespace can take the tool's codings"
            ));
        }
        let path: Vec<&str> = stack.iter().map(String::as_str).collect();
        let place = Place::Empty { start: at, end };
        match (path.as_slice(), local.as_str()) {
            ([], "Project") if empty => return Err("the project is empty (<Project/>)".into()),
            ([], "Project") => project = Some(end),
            (["Project"], "Users") if empty => {
                users = Some(place);
                users_end = Some(end);
            }
            (["Project"], "CodeBook") if empty => codebook = Some(place),
            (["Project", "CodeBook"], "Codes") if empty => codes = Some(place),
            (["Project", "Sources"], "TextSource") => sources.push((
                crate::corpus::formats::qdpx::attr(e, b"name").unwrap_or_default(),
                SourcePlace {
                    place,
                    before: None,
                },
            )),
            (["Project", "Sources", "TextSource"], "Coding" | "NoteRef" | "VariableValue") => {
                if let Some((_, s)) = sources.last_mut() {
                    s.before.get_or_insert(at);
                }
            }
            _ => {}
        }
        if !empty {
            stack.push(local);
            open.push((at, end));
        }
    }
    let Some(project) = project else {
        return Err("no <Project> element".into());
    };
    // (start, end, text): original[start..end] replaced by text.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let users_xml = format!("\n  <Users>\n{}  </Users>", user_element());
    let group = code_group(signature);
    let codebook_xml = format!("\n  <CodeBook>\n    <Codes>\n{group}    </Codes>\n  </CodeBook>");
    match users {
        Some(Place::Open { close, .. }) => edits.push((close, close, user_element())),
        Some(Place::Empty { start, end }) => {
            edits.push((start, end, users_xml.trim_start().to_string()))
        }
        None => {}
    }
    match (codebook, codes) {
        (Some(Place::Open { .. }), Some(Place::Open { close, .. })) => {
            edits.push((close, close, group.clone()))
        }
        (Some(Place::Open { .. }), Some(Place::Empty { start, end })) => {
            edits.push((start, end, format!("<Codes>\n{group}    </Codes>")))
        }
        (Some(Place::Open { inner, .. }), None) => {
            edits.push((inner, inner, format!("\n    <Codes>\n{group}    </Codes>")))
        }
        (Some(Place::Empty { start, end }), _) => {
            edits.push((start, end, codebook_xml.trim_start().to_string()))
        }
        (None, _) => {
            // After the users, or first in the project.
            let (at, before) = match (users, users_end) {
                (Some(_), Some(end)) => (end, String::new()),
                _ => (project, users_xml.clone()),
            };
            edits.push((at, at, format!("{before}{codebook_xml}")));
        }
    }
    if users.is_none() && codebook.is_some() {
        edits.push((project, project, users_xml));
    }
    let mut placed = 0;
    for (name, chosen) in by_source {
        let Some((_, s)) = sources.iter().find(|(n, _)| n == name) else {
            continue;
        };
        let text = selections(name, chosen.iter(), created);
        if text.is_empty() {
            continue;
        }
        placed += chosen.len();
        match s.place {
            Place::Open { close, .. } => {
                let at = s.before.unwrap_or(close);
                edits.push((at, at, format!("\n{text}    ")));
            }
            Place::Empty { start, end } => {
                let tag = original[start..end].trim_end_matches("/>");
                edits.push((start, end, format!("{tag}>\n{text}    </TextSource>")));
            }
        }
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = original.to_string();
    for (start, end, text) in edits.into_iter().rev() {
        out.replace_range(start..end, &text);
    }
    Ok((format!("{bom}{out}"), placed))
}

/// A code group (`verdict`, `attribution`) with a code per class.
fn group<C: ClassList>(out: &mut String, kind: &str) {
    out.push_str(&format!(
        "        <Code guid=\"{}\" name=\"{kind}\" isCodable=\"false\">\n",
        guid(&format!("code:group:{kind}"))
    ));
    for class in C::ALL {
        let name = class.name();
        let colour = colour(name)
            .map(|c| format!(" color=\"{c}\""))
            .unwrap_or_default();
        out.push_str(&format!(
            "          <Code guid=\"{}\" name=\"{name}\" isCodable=\"true\"{colour}>\n            <Description>{}</Description>\n          </Code>\n",
            code_guid(kind, name),
            xml(class.description())
        ));
    }
    out.push_str("        </Code>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guids_are_stable_uuids() {
        let g = guid("user");
        assert_eq!(g, guid("user"));
        assert_ne!(g, guid("users"));
        assert_eq!(g.len(), 36);
        let parts: Vec<&str> = g.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('5'));
        assert!(matches!(
            parts[3].chars().next(),
            Some('8' | '9' | 'A' | 'B')
        ));
    }

    #[test]
    fn every_class_has_the_reports_colour() {
        for v in Verdict::ALL {
            assert!(colour(v.name()).is_some(), "{}", v.name());
        }
        for a in Attribution::ALL {
            assert!(colour(a.name()).is_some(), "{}", a.name());
        }
        assert_eq!(colour("ok").as_deref(), Some("#27ae60"));
    }

    fn one(source: &str) -> Vec<(String, Vec<Selection>)> {
        vec![(
            source.to_string(),
            vec![Selection {
                source: 0,
                start: 2,
                end: 5,
                name: "q1".into(),
                description: "d".into(),
                verdict: Some(Verdict::Exact),
                attribution: None,
            }],
        )]
    }

    /// Where the merge puts the user, the code group and the selections:
    /// in the order the schema asks, whatever the project holds already.
    #[test]
    fn the_merge_follows_the_schemas_order() {
        let at = |out: &str, needle: &str| {
            out.find(needle)
                .unwrap_or_else(|| panic!("{needle}: {out}"))
        };
        // Nothing but sources; the source an empty element.
        let bare = "<Project name=\"p\" xmlns=\"urn:QDA-XML:project:1.0\"><Sources><TextSource guid=\"g\" name=\"a\" plainTextPath=\"internal://a.txt\"/></Sources></Project>";
        let (out, placed) = merge(bare, "sig", "2026-01-01T00:00:00Z", &one("a")).unwrap();
        assert_eq!(placed, 1);
        assert!(at(&out, "<Users>") < at(&out, "<CodeBook>"));
        assert!(at(&out, "<CodeBook>") < at(&out, "<Sources>"));
        assert!(at(&out, "<PlainTextSelection") < at(&out, "</TextSource>"));
        assert!(out.contains("plainTextPath=\"internal://a.txt\">"), "{out}");
        // Users present, CodeBook absent, the source's coding and variable
        // after the new selection; a source the project lacks takes none.
        let some = "<Project name=\"p\"><Users><User guid=\"u\" name=\"A\"/></Users><Sources><TextSource guid=\"g\" name=\"a\"><PlainTextSelection guid=\"s\" startPosition=\"0\" endPosition=\"1\"/><Coding guid=\"c\"><CodeRef targetGUID=\"x\"/></Coding><VariableValue/></TextSource></Sources></Project>";
        let mut both = one("a");
        both.extend(one("missing"));
        let (out, placed) = merge(some, "sig", "t", &both).unwrap();
        assert_eq!(placed, 1);
        assert!(at(&out, "name=\"A\"/>") < at(&out, "name=\"corpus-eval "));
        assert!(at(&out, "</Users>") < at(&out, "<CodeBook>"));
        assert!(at(&out, "guid=\"s\"") < at(&out, "name=\"q1\""));
        assert!(at(&out, "name=\"q1\"") < at(&out, "<Coding guid=\"c\""));
        // Empty Users and Codes elements are opened.
        let empty = "<Project name=\"p\"><Users/><CodeBook><Codes/></CodeBook></Project>";
        let (out, _) = merge(empty, "sig", "t", &[]).unwrap();
        assert!(
            out.contains("<Users>\n    <User ") && out.contains("<Codes>\n      <Code "),
            "{out}"
        );
        // Refused: a prefixed project, one the tool has coded already.
        let prefixed = "<q:Project xmlns:q=\"urn:QDA-XML:project:1.0\" name=\"p\"/>";
        assert!(merge(prefixed, "s", "t", &[])
            .unwrap_err()
            .contains("prefix"));
        let (twice, _) = merge(bare, "sig", "t", &one("a")).unwrap();
        assert!(merge(&twice, "s", "t", &[])
            .unwrap_err()
            .contains("already holds"));
    }

    #[test]
    fn text_xml_forbids_is_dropped() {
        assert_eq!(xml("a\u{1}b<c>&\""), "ab&lt;c&gt;&amp;&quot;");
    }
}
