#!/usr/bin/env python3
"""Writes the same short interview in every transcript format corpus-eval
reads, under datasets/interview/: plain text with inline timestamps (.txt),
Markdown (.md), an Otter export (otter/harbour.txt), WebVTT (.vtt, with a
Teams-style GUID cue id and cue settings), SubRip (.srt), whisperX JSON
(.json, diarized SPEAKER_00/SPEAKER_01), Word (.docx) and a REFI-QDA project
(.qdpx, its project file named as ATLAS.ti names it), and under styles/
the speaker-label styles of real exports (Zoom captions with roles beside
the names, whisperX's SubRip writer, a podcast page in Markdown with
character references, a Google Meet transcript, an AssemblyAI export), plus
datasets/interview-questions.json quoting it. Deterministic: the zip entries carry a fixed date.

    python3 scripts/make-interview-formats.py [OUT]    (default: datasets/interview)
"""
import json
import sys
import zipfile
from pathlib import Path

# (speaker, [(start, end, text)]): the cues of each turn.
TURNS = [
    ("Interviewer", [(0.0, 4.0, "When did your family leave the harbour?")]),
    ("Ana Lopez", [(4.5, 6.8, "We left in the spring of 1987,"),
                   (6.8, 9.0, "after the cannery closed.")]),
    ("Interviewer", [(9.5, 11.0, "Why then?")]),
    ("Ana Lopez", [(11.5, 16.0, "There was no money & no work for my father.")]),
]
DIARIZED = {"Interviewer": "SPEAKER_00", "Ana Lopez": "SPEAKER_01"}
FIXED = (2026, 1, 1, 0, 0, 0)


def hms(t, sep="."):
    h, rest = divmod(t, 3600)
    m, s = divmod(rest, 60)
    return f"{int(h):02}:{int(m):02}:{int(s):02}{sep}{round((s % 1) * 1000):03}"


def text_lines():
    """`[hh:mm:ss.s] Speaker: text`, a timestamp before each cue."""
    lines = []
    for speaker, cues in TURNS:
        parts = []
        for k, (start, _, text) in enumerate(cues):
            stamp = f"[{hms(start)[:10]}]"
            parts.append(f"{stamp} {speaker}: {text}" if k == 0 else f"{stamp} {text}")
        lines.append(" ".join(parts))
    return lines


def write_zip(path, files):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            info = zipfile.ZipInfo(name, FIXED)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "datasets/interview")
    (out / "otter").mkdir(parents=True, exist_ok=True)
    lines = text_lines()
    (out / "harbour.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "harbour.md").write_text("# Harbour interview\n\n" + "\n\n".join(lines) + "\n", encoding="utf-8")
    otter = []
    for speaker, cues in TURNS:
        m, s = divmod(int(cues[0][0]), 60)
        otter.append(f"{speaker}  {m}:{s:02}\n" + " ".join(c[2] for c in cues) + "\n")
    (out / "otter" / "harbour.txt").write_text("\n".join(otter), encoding="utf-8")
    vtt = ["WEBVTT", "", "NOTE exported by a meeting app", ""]
    srt = []
    n = 0
    for speaker, cues in TURNS:
        for start, end, text in cues:
            n += 1
            vtt += [f"5c7f0e2a-9a8b-4b1c-8d2e-1f2a3b4c5d6e/{n}-0",
                    f"{hms(start)} --> {hms(end)} align:start position:10%",
                    f"<v {speaker}>{xml_escape(text)}</v>", ""]
            srt += [str(n), f"{hms(start, ',')} --> {hms(end, ',')}", f"{speaker}: {text}", ""]
    (out / "harbour.vtt").write_text("\r\n".join(vtt), encoding="utf-8")
    (out / "harbour.srt").write_text("\n".join(srt), encoding="utf-8")
    segments = [{"start": s, "end": e, "text": " " + t, "speaker": DIARIZED[sp]}
                for sp, cues in TURNS for s, e, t in cues]
    (out / "harbour.json").write_text(json.dumps({"segments": segments, "language": "en"}, indent=1) + "\n",
                                      encoding="utf-8")
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    paras = "".join(f"<w:p><w:r><w:t xml:space=\"preserve\">{xml_escape(l)}</w:t></w:r></w:p>" for l in lines)
    document = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                f'<w:document xmlns:w="{w}"><w:body><w:p><w:r><w:t>Harbour interview</w:t></w:r></w:p>'
                f'{paras}</w:body></w:document>')
    write_zip(out / "harbour.docx", [
        ("[Content_Types].xml", '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'),
        ("word/document.xml", document),
    ])
    plain = "\n".join(lines) + "\n"
    start = plain.index("We left")
    end = plain.index("closed.") + len("closed.")
    qde = f'''<?xml version="1.0" encoding="utf-8"?>
<Project name="Harbour study" xmlns="urn:QDA-XML:project:1.0">
 <CodeBook><Codes><Code guid="9a1e3c52-0000-4000-8000-000000000001" name="Leaving the harbour" isCodable="true"/></Codes></CodeBook>
 <Sources>
  <TextSource guid="9a1e3c52-0000-4000-8000-000000000002" name="harbour" plainTextPath="internal://9a1e3c52-0000-4000-8000-000000000002.txt">
   <PlainTextSelection guid="9a1e3c52-0000-4000-8000-000000000003" startPosition="{start}" endPosition="{end}">
    <Coding guid="9a1e3c52-0000-4000-8000-000000000004"><CodeRef targetGUID="9a1e3c52-0000-4000-8000-000000000001"/></Coding>
   </PlainTextSelection>
  </TextSource>
 </Sources>
</Project>
'''
    write_zip(out / "harbour.qdpx", [
        ("Harbour study.qde", qde),
        ("sources/9a1e3c52-0000-4000-8000-000000000002.txt", plain),
    ])
    write_styles(out / "styles")
    quote = lambda q, speaker: {"quote": q, "source": "harbour", "speaker": speaker}
    questions = {"qa_pairs": [
        {"id": "h-01", "question": {"text": "When did the family leave?", "type": "ListOne",
                                    "metric": json.dumps({"values": ["1987"], "weights": [1.0]})},
         "answers": [{"answer": "In the spring of 1987.", "source": "harbour", "verbatims": [
             quote("We left in the spring of 1987, after the cannery closed.", "Ana Lopez"),
             quote("There was no money & no work for my father.", "Ana Lopez"),
             quote("We sold the boat to a cousin in Vigo.", "Ana Lopez")]}]},
    ]}
    (out.parent / "interview-questions.json").write_text(json.dumps(questions, indent=1) + "\n", encoding="utf-8")


def write_styles(out):
    """The interview in the label styles of real exports."""
    out.mkdir(parents=True, exist_ok=True)
    roles = {"Interviewer": "Dana Whitfield (Interviewer)", "Ana Lopez": "Ana Lopez (SL)"}
    vtt, srt, n = ["WEBVTT", ""], [], 0
    for speaker, cues in TURNS:
        for start, end, text in cues:
            n += 1
            vtt += [str(n), f"{hms(start)} --> {hms(end)}", f"{roles[speaker]}: {xml_escape(text)}", ""]
            srt += [str(n), f"{hms(start, ',')} --> {hms(end, ',')}", f"[{DIARIZED[speaker]}]: {text}", ""]
    (out / "harbour_zoom.vtt").write_text("\n".join(vtt), encoding="utf-8")
    (out / "harbour_whisperx.srt").write_text("\n".join(srt), encoding="utf-8")
    md = ["# Harbour, episode 1", ""]
    for speaker, cues in TURNS:
        said = " ".join(c[2] for c in cues).replace("&", "&amp;").replace("'", "&#39;")
        md += [f"**{speaker}:** {said}", ""]
    (out / "harbour_podcast.md").write_text("\n".join(md), encoding="utf-8")
    meet = []
    for speaker, cues in TURNS:
        m, s = divmod(int(cues[0][0]), 60)
        meet += [f"{speaker} {m}:{s:02}", " ".join(c[2] for c in cues)]
    (out / "harbour_meet.txt").write_text("\n".join(meet) + "\n", encoding="utf-8")
    letters = {"Interviewer": "A", "Ana Lopez": "B"}
    utterances = [{"speaker": letters[sp], "text": t, "start": round(s * 1000), "end": round(e * 1000)}
                  for sp, cues in TURNS for s, e, t in cues]
    (out / "harbour_assemblyai.json").write_text(
        json.dumps({"id": "harbour", "status": "completed", "utterances": utterances}, indent=1) + "\n",
        encoding="utf-8")


if __name__ == "__main__":
    main()
