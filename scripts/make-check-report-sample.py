#!/usr/bin/env python3
"""Writes the check-report sample under evaluation/check-report/: three short
interview transcripts (transcripts/UK-210.txt with timestamps, IS-001.vtt,
IS-002.txt), a source map (sources.csv), and one written report quoting them
as Markdown (report.md) and as Word (report.docx, the same paragraphs; its block
quote written as a quoted paragraph). The report holds a quote of every
attribution class, an edited quote, an uncited quote found elsewhere, a label
that does not resolve, a scare quote and a quote inside code. Deterministic: the
zip entries carry a fixed date.

    python3 scripts/make-check-report-sample.py [OUT]    (default: evaluation/check-report)
"""
import sys
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

UK_210 = """\
[00:00:02] Interviewer: Can you tell me about the year the mine closed?
[00:00:06] Gwen Morgan: We never went back to the old house after the strike. My father sold the van that spring.
[00:00:15] Interviewer: And your neighbours, did they stay on the street?
[00:00:19] Gwen Morgan: Most of them left for Cardiff within two years.
[00:00:24] Rhys Morgan: The chapel shut, then the school, then the shop on the corner.
[00:00:31] Interviewer: How did that feel for you at the time?
[00:00:35] Gwen Morgan: Honestly, it felt almost funny at first, like a long holiday nobody had asked for. Later it was just quiet.
"""

IS_001 = """\
WEBVTT

NOTE recorded on the quay, 2024

00:00:01.000 --> 00:00:04.000
<v Interviewer>What happened to the fishing boats?

00:00:04.500 --> 00:00:09.000
<v Declan>The boats were all sold by the winter of 1992, every last one of them.

00:00:09.500 --> 00:00:14.000
<v Declan>My brother kept his nets in the shed for years, hoping.

00:00:14.500 --> 00:00:18.000
<v Interviewer>So the harbour was empty by then?

00:00:18.500 --> 00:00:24.000
<v Declan>Empty, aye. You could hear the gulls from the kitchen.
"""

IS_002 = """\
Interviewer: What do you remember of the ferry?
Maeve: The ferry came twice a week in summer and once in winter.
Interviewer: Who met it?
Maeve: We waited on the pier with the post bags and the milk churns.
"""

SOURCES = """\
label,source,speaker
P1,UK-210,Gwen Morgan
P2,IS-001,Declan
P3,IS-002,Maeve
"""

# The report: (Markdown lines, the same as Word paragraphs) per paragraph.
REPORT = [
    ("# Leaving the coast: a synthesis", None),
    ("Participants described the closures as sudden. Gwen remembered that the family "
     "“never went back to the old house after the strike” (P1), and that “We never went back "
     "to the old house […] My father sold the van that spring” (P1).", None),
    ("Declan recalled “the boats were all sold by the winter of 1992”. Gwen described how "
     "“the chapel shut, then the school, then the shop on the corner” (P1). As one participant "
     "put it, “how did that feel for you at the time” (P1).", None),
    ("Another voice summed it up: “kept his nets in the shed for years, hoping. So the harbour "
     "was empty by then” (P2). Maeve remembered that “my brother kept his nets in the shed for "
     "years” (P3), and that “Most of them left for Cardif within two years” (P1).", None),
    ("Island life was “The ferry came twice a week in summer and we waited on the pier with "
     "the post bags” (P3). Another woman insisted “the council promised us new houses by the sea”. "
     "Some still say “Empty, aye. You could hear the gulls from the kitchen.” A travel writer "
     "noted that “The ferry came twice a week in summer” (Smith 2019).", None),
    ("For some it felt “almost funny” at first. The search for `grep \"never went back to the "
     "old house\"` finds nothing in code.", None),
    ("> Honestly, it felt almost funny at first, like a long holiday\n"
     "> nobody had asked for.\n"
     "> — P1",
     "“Honestly, it felt almost funny at first, like a long holiday nobody had asked for.” (P1)"),
]


def docx(paragraphs):
    """A minimal WordprocessingML package with one paragraph per entry."""
    body = "".join(
        f'<w:p><w:r><w:t xml:space="preserve">{escape(p)}</w:t></w:r></w:p>' for p in paragraphs
    )
    document = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body>{body}</w:body></w:document>"
    )
    content_types = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        "</Types>"
    )
    rels = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" '
        'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
        'Target="word/document.xml"/></Relationships>'
    )
    return [("[Content_Types].xml", content_types), ("_rels/.rels", rels), ("word/document.xml", document)]


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "evaluation/check-report")
    (out / "transcripts").mkdir(parents=True, exist_ok=True)
    (out / "transcripts" / "UK-210.txt").write_text(UK_210, encoding="utf-8")
    (out / "transcripts" / "IS-001.vtt").write_text(IS_001, encoding="utf-8")
    (out / "transcripts" / "IS-002.txt").write_text(IS_002, encoding="utf-8")
    (out / "sources.csv").write_text(SOURCES, encoding="utf-8")
    markdown = "\n\n".join(md for md, _ in REPORT) + "\n"
    (out / "report.md").write_text(markdown, encoding="utf-8")
    paragraphs = []
    for md, word in REPORT:
        text = word if word is not None else md
        paragraphs.append(text.lstrip("# ") if text.startswith("#") else text)
    with zipfile.ZipFile(out / "report.docx", "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in docx(paragraphs):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


if __name__ == "__main__":
    main()
