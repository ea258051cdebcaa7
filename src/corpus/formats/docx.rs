//! Word documents (`.docx`): the paragraphs of `word/document.xml` in
//! order (the text of their runs, tabs and breaks; a table's paragraphs
//! where the table stands), then read as a text transcript (labels,
//! timestamps). Read with the `zip` and `quick-xml` crates, no office
//! suite.

use super::{reference, xml_error, Archive};
use crate::corpus::CorpusError;
use quick_xml::events::Event;
use std::path::Path;

/// The paragraphs of a WordprocessingML document, in order.
pub(crate) fn paragraphs(path: &Path, xml: &str) -> Result<Vec<String>, CorpusError> {
    Ok(styled_paragraphs(path, xml)?
        .into_iter()
        .map(|(text, _)| text)
        .collect())
}

/// The paragraphs of a WordprocessingML document, in order, each with its
/// paragraph style's id (`w:pStyle`), if it has one.
pub(crate) fn styled_paragraphs(
    path: &Path,
    xml: &str,
) -> Result<Vec<(String, Option<String>)>, CorpusError> {
    let part = "word/document.xml";
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    // Open paragraphs (a text box's paragraphs nest inside one): the
    // innermost is written to, and each is a line when it closes.
    let mut paras: Vec<(String, Option<String>)> = Vec::new();
    let mut in_text = false;
    // Inside a run: tabs and breaks of a paragraph's properties (its tab
    // stops) are not text.
    let mut runs = 0usize;
    loop {
        let at = reader.buffer_position();
        match reader
            .read_event()
            .map_err(|e| xml_error(path, part, at, e))?
        {
            Event::Start(e) => match e.local_name().as_ref() {
                b"p" => paras.push((String::new(), None)),
                b"r" => runs += 1,
                b"t" => in_text = true,
                _ => {}
            },
            Event::Empty(e) => match (e.local_name().as_ref(), paras.last_mut()) {
                (b"tab", Some(p)) if runs > 0 => p.0.push('\t'),
                (b"br" | b"cr", Some(p)) if runs > 0 => p.0.push('\n'),
                (b"pStyle", Some(p)) if runs == 0 => {
                    p.1 = e
                        .attributes()
                        .flatten()
                        .find(|a| a.key.local_name().as_ref() == b"val")
                        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()));
                }
                (b"p", _) => out.push((String::new(), None)),
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                b"p" => out.extend(paras.pop()),
                b"r" => runs = runs.saturating_sub(1),
                b"t" => in_text = false,
                _ => {}
            },
            Event::Text(t) if in_text => {
                if let Some(p) = paras.last_mut() {
                    p.0.push_str(&t.decode().map_err(|e| xml_error(path, part, at, e))?);
                }
            }
            Event::GeneralRef(r) if in_text => {
                if let Some(p) = paras.last_mut() {
                    p.0.push_str(&reference(&r));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}

/// The paragraphs of a `.docx` file, in order (a soft line break inside
/// one is a `\n` in it).
pub(crate) fn paragraph_texts(path: &Path) -> Result<Vec<String>, CorpusError> {
    let mut archive = Archive::open(path, "Word document")?;
    let xml = archive.part("word/document.xml")?;
    paragraphs(path, &xml)
}

/// The style names Word gives a quotation paragraph (`Quote`, `Intense
/// Quote`), compared without spaces or case.
const QUOTE_STYLES: [&str; 2] = ["quote", "intensequote"];

/// The paragraphs of a `.docx` file, in order, each with whether it is set
/// in one of Word's quotation styles (`Quote`, `Intense Quote`): by its
/// style's name in `word/styles.xml` (a localized Word keeps these names),
/// or by its style id when the document has no styles part.
pub(crate) fn paragraphs_quoted(path: &Path) -> Result<Vec<(String, bool)>, CorpusError> {
    let mut archive = Archive::open(path, "Word document")?;
    let xml = archive.part("word/document.xml")?;
    let paragraphs = styled_paragraphs(path, &xml)?;
    let names = match archive.part("word/styles.xml") {
        Ok(styles) => style_names(&styles),
        Err(_) => Default::default(),
    };
    let is_quote = |id: &str| {
        let name = names.get(id).map_or(id, String::as_str);
        let key: String = name
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect();
        QUOTE_STYLES.contains(&key.as_str())
    };
    Ok(paragraphs
        .into_iter()
        .map(|(text, style)| {
            let quoted = style.as_deref().is_some_and(is_quote);
            (text, quoted)
        })
        .collect())
}

/// Each paragraph style's id and name (`w:style w:styleId` and its
/// `w:name w:val`) of a styles part; unreadable XML gives what was read.
fn style_names(xml: &str) -> std::collections::HashMap<String, String> {
    let mut out = std::collections::HashMap::new();
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut id: Option<String> = None;
    let val = |e: &quick_xml::events::BytesStart<'_>, key: &[u8]| {
        e.attributes()
            .flatten()
            .find(|a| a.key.local_name().as_ref() == key)
            .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
    };
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if e.local_name().as_ref() == b"style" => id = val(&e, b"styleId"),
            Ok(Event::Empty(e)) if e.local_name().as_ref() == b"name" => {
                if let (Some(i), Some(name)) = (&id, val(&e, b"val")) {
                    out.insert(i.clone(), name);
                }
            }
            Ok(Event::End(e)) if e.local_name().as_ref() == b"style" => id = None,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    out
}

/// The text of a `.docx` file: its paragraphs, one per line.
pub(crate) fn text(path: &Path) -> Result<String, CorpusError> {
    Ok(paragraph_texts(path)?.join("\n"))
}

/// The turns of a `.docx` transcript (its paragraphs read as text lines).
pub(crate) fn parse(path: &Path) -> Result<super::text::Parsed, CorpusError> {
    super::text::parse(path, &text(path)?, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_runs_tabs_breaks_and_tables_in_place() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>
<w:p><w:r><w:t>Ana: We lived </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">by the </w:t></w:r><w:r><w:t>sea &amp; more.</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Tomas:</w:t><w:tab/><w:t>Why?</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p/>
<w:p><w:r><w:t>Ana: one</w:t><w:br/><w:t>two</w:t></w:r></w:p>
</w:body></w:document>"#;
        let p = paragraphs(Path::new("d.docx"), xml).unwrap();
        assert_eq!(
            p,
            [
                "Ana: We lived by the sea & more.",
                "Tomas:\tWhy?",
                "",
                "Ana: one\ntwo"
            ]
        );
        // Tab stops are not tabs; a text box's paragraph is its own line.
        let xml = r#"<w:document xmlns:w="w"><w:body><w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="1440"/></w:tabs></w:pPr><w:r><w:t xml:space="preserve">Ana: a </w:t></w:r><w:r><w:pict><w:txbxContent><w:p><w:r><w:t>box</w:t></w:r></w:p></w:txbxContent></w:pict></w:r><w:r><w:t>b</w:t></w:r></w:p></w:body></w:document>"#;
        assert_eq!(
            paragraphs(Path::new("d.docx"), xml).unwrap(),
            ["box", "Ana: a b"]
        );
    }

    #[test]
    fn not_a_zip_or_no_document_names_the_file_and_part() {
        let dir = std::env::temp_dir().join(format!("ce-docx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.docx");
        std::fs::write(&bad, "not a zip").unwrap();
        let e = parse(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.docx") && e.contains("zip"), "{e}");
        let empty = dir.join("empty.docx");
        let mut w = zip::ZipWriter::new(std::fs::File::create(&empty).unwrap());
        w.start_file("other.xml", zip::write::SimpleFileOptions::default())
            .unwrap();
        w.finish().unwrap();
        let e = parse(&empty).unwrap_err().to_string();
        assert!(
            e.contains("empty.docx") && e.contains("word/document.xml"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
