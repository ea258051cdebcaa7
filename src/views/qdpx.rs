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
    out.push_str(&format!(
        "  <Users>\n    <User guid=\"{user}\" name=\"{}\"/>\n  </Users>\n",
        xml(&user_name())
    ));
    out.push_str("  <CodeBook>\n    <Codes>\n");
    out.push_str(&format!(
        "      <Code guid=\"{}\" name=\"corpus-eval\" isCodable=\"false\">\n",
        guid("code:corpus-eval")
    ));
    group::<Verdict>(&mut out, "verdict");
    group::<Attribution>(&mut out, "attribution");
    out.push_str("      </Code>\n    </Codes>\n  </CodeBook>\n");
    out.push_str("  <Sources>\n");
    for (k, source) in parts.sources.iter().enumerate() {
        out.push_str(&format!(
            "    <TextSource guid=\"{}\" name=\"{}\" plainTextPath=\"internal://{}.txt\" creatingUser=\"{user}\" creationDateTime=\"{created}\">\n",
            source.guid,
            xml(&source.name),
            source.guid
        ));
        for s in parts.selections.iter().filter(|s| s.source == k) {
            let id = guid(&format!(
                "selection:{}:{}:{}:{}",
                source.name, s.name, s.start, s.end
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
        out.push_str("    </TextSource>\n");
    }
    out.push_str("  </Sources>\n");
    out.push_str(&format!(
        "  <Description>{}</Description>\n",
        xml(&format!(
            "Verdicts of corpus-eval {}; signature: {}",
            env!("CARGO_PKG_VERSION"),
            parts.signature
        ))
    ));
    out.push_str("</Project>\n");
    out
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

    #[test]
    fn text_xml_forbids_is_dropped() {
        assert_eq!(xml("a\u{1}b<c>&\""), "ab&lt;c&gt;&amp;&quot;");
    }
}
