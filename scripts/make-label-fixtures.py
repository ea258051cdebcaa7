#!/usr/bin/env python3
"""Writes fixtures/labels/: one short interview per speaker-label style and
per JSON utterance export (written from each tool's public description of
its output), and expected.json, what tests/regression_54.rs checks of each:
the speakers, the participant's role and first time, and the attribution of
three quotes (the participant's words attributed to them: ok; to the
interviewer: wrong_speaker; the interviewer's question attributed to the
participant: interviewer).

    python3 scripts/make-label-fixtures.py
"""
import io
import json
import os
import zipfile

OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "labels")
Q1 = "Why did you leave the harbour town?"
A1 = "We left in the spring of 1987 after the cannery closed."
Q2 = "And what did your father do then?"
A2 = "He sold the boat to a cousin in Vigo."

expected = []


def write(name, text, *, interviewer, participant, role=None, start=None, flags=None, mode="w"):
    path = os.path.join(OUT, name)
    if mode == "wb":
        with open(path, "wb") as f:
            f.write(text)
    else:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    expected.append({
        "file": name,
        "interviewer": interviewer,
        "participant": participant,
        "role": role,
        "start": start,
        "flags": flags or [],
    })


def dialog(i, p):
    """Four lines, `i(text)` and `p(text)` writing each speaker's line."""
    return "".join([i(Q1), p(A1), i(Q2), p(A2)])


def main():
    os.makedirs(OUT, exist_ok=True)
    # Name and colon, with a role beside the name.
    write("role_paren.txt", dialog(lambda t: f"Dana Whitfield (Interviewer): {t}\n",
                                   lambda t: f"Ana Lopez (SL): {t}\n"),
          interviewer="Dana Whitfield", participant="Ana Lopez", role="SL")
    write("role_bracket.txt", dialog(lambda t: f"Dana Whitfield [Interviewer]: {t}\n",
                                     lambda t: f"Ana Lopez [Participant]: {t}\n"),
          interviewer="Dana Whitfield", participant="Ana Lopez", role="Participant")
    write("role_dash.txt", dialog(lambda t: f"Dana Whitfield - Interviewer: {t}\n",
                                  lambda t: f"Ana Lopez - Participant: {t}\n"),
          interviewer="Dana Whitfield", participant="Ana Lopez", role="Participant")
    # Roles in any case, numbered.
    write("roles_lower.txt", dialog(lambda t: f"interviewer: {t}\n", lambda t: f"interviewee: {t}\n"),
          interviewer="interviewer", participant="interviewee")
    write("roles_upper.txt", dialog(lambda t: f"INTERVIEWER: {t}\n", lambda t: f"RESPONDENT: {t}\n"),
          interviewer="INTERVIEWER", participant="RESPONDENT")
    write("roles_numbered.txt", f"Interviewer 1: {Q1}\nParticipant 3: {A1}\nInterviewer 1: {Q2}\nParticipant 3: {A2}\n",
          interviewer="Interviewer 1", participant="Participant 3")
    write("roles_glued.txt", f"Interviewer1: {Q1}\nP3: {A1}\nInterviewer1: {Q2}\nP3: {A2}\n",
          interviewer="Interviewer1", participant="P3")
    write("roles_codes.txt", dialog(lambda t: f"I: {t}\n", lambda t: f"R: {t}\n"),
          interviewer="I", participant="R")
    write("roles_int.txt", dialog(lambda t: f"INT: {t}\n", lambda t: f"Moderator: {t}\n".replace("Moderator", "P2")),
          interviewer="INT", participant="P2")
    # Diarization labels.
    write("diarized.txt", dialog(lambda t: f"SPEAKER_00: {t}\n", lambda t: f"SPEAKER_01: {t}\n"),
          interviewer="SPEAKER_00", participant="SPEAKER_01", flags=["--interviewer-labels", "SPEAKER_00"])
    write("diarized_brackets.txt", dialog(lambda t: f"[SPEAKER_00]: {t}\n", lambda t: f"[SPEAKER_01]: {t}\n"),
          interviewer="SPEAKER_00", participant="SPEAKER_01", flags=["--interviewer-labels", "SPEAKER_00"])
    write("diarized_bare.txt", dialog(lambda t: f"[SPEAKER_00] {t}\n", lambda t: f"[SPEAKER_01] {t}\n"),
          interviewer="SPEAKER_00", participant="SPEAKER_01", flags=["--interviewer-labels", "SPEAKER_00"])
    write("speaker_numbers.txt", dialog(lambda t: f"Speaker 1: {t}\n", lambda t: f"Speaker 2: {t}\n"),
          interviewer="Speaker 1", participant="Speaker 2", flags=["--interviewer-labels", "Speaker 1"])
    write("speaker_letters.txt", dialog(lambda t: f"Speaker A: {t}\n", lambda t: f"Speaker B: {t}\n"),
          interviewer="Speaker A", participant="Speaker B",
          flags=["--speaker-map", "Speaker A=Interviewer,Speaker B=Ana Lopez"])
    # Markdown.
    write("bold_inside.md", dialog(lambda t: f"**Interviewer:** {t}\n\n", lambda t: f"**Ana Lopez:** {t}\n\n"),
          interviewer="Interviewer", participant="Ana Lopez")
    write("bold_outside.md", dialog(lambda t: f"**Interviewer**: {t}\n\n", lambda t: f"**Ana Lopez**: {t}\n\n"),
          interviewer="Interviewer", participant="Ana Lopez")
    write("underscore.md", dialog(lambda t: f"__Interviewer:__ {t}\n\n", lambda t: f"__Ana Lopez:__ {t}\n\n"),
          interviewer="Interviewer", participant="Ana Lopez")
    write("italic.md", dialog(lambda t: f"*Interviewer:* {t}\n\n", lambda t: f"*Ana Lopez:* {t}\n\n"),
          interviewer="Interviewer", participant="Ana Lopez")
    write("otter_bracket.md",
          f"**Interviewer** [0:00] {Q1}\n\n**Ana Lopez** [0:05] {A1}\n\n**Interviewer** [0:12] {Q2}\n\n**Ana Lopez** [0:15] {A2}\n",
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    write("otter_lines.md",
          f"**Interviewer**  0:00\n{Q1}\n\n**Ana Lopez**  0:05\n{A1}\n\n**Interviewer**  0:12\n{Q2}\n\n**Ana Lopez**  0:15\n{A2}\n",
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    # Markup that is not speech: escapes and character references.
    write("escaped.md",
          f"**Interviewer:** \\[00:00\\] {Q1}\n\n**Ana Lopez:** \\[00:05\\] {A1.replace('We', 'We')}\n\n"
          f"**Interviewer:** {Q2}\n\n**Ana Lopez:** {A2.replace('boat', '*boat*')} &amp; that was it.\n",
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    # Time-bearing label lines.
    write("otter.txt", f"Interviewer  0:00\n{Q1}\n\nAna Lopez  0:05\n{A1}\n\nInterviewer  0:12\n{Q2}\n\nAna Lopez  0:15\n{A2}\n",
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    write("meet.txt", f"Interviewer 0:00\n{Q1}\nAna Lopez 0:05\n{A1}\nInterviewer 0:12\n{Q2}\nAna Lopez 0:15\n{A2}\n",
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    write("name_time.txt", f"Interviewer (00:00): {Q1}\nAna Lopez (00:05): {A1}\nInterviewer (00:12): {Q2}\nAna Lopez (00:15): {A2}\n",
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    write("time_name.txt", f"[00:00:00] Interviewer: {Q1}\n[00:00:05] Ana Lopez: {A1}\n[00:00:12] Interviewer: {Q2}\n[00:00:15] Ana Lopez: {A2}\n",
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    write("krisp.txt", f"00:00:00  Interviewer  {Q1}\n00:00:05  Ana Lopez  {A1}\n00:00:12  Interviewer  {Q2}\n00:00:15  Ana Lopez  {A2}\n",
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    write("spelled.txt",
          f"Interviewer   0 seconds\n{Q1}\nAna Lopez   5 seconds\n{A1}\nInterviewer   12 seconds\n{Q2}\nAna Lopez   1 minute 15 seconds\n{A2}\n",
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    # Teams' Word transcript: a `Name   0:03` paragraph, then the words.
    paragraphs = [f"Interviewer   0:00", Q1, "Ana Lopez   0:05", A1, "Interviewer   0:12", Q2, "Ana Lopez   0:15", A2]
    body = "".join(f'<w:p><w:r><w:t xml:space="preserve">{p}</w:t></w:r></w:p>' for p in paragraphs)
    document = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                f"<w:body>{body}</w:body></w:document>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo("word/document.xml", date_time=(2026, 1, 1, 0, 0, 0))
        z.writestr(info, document)
    write("teams.docx", buf.getvalue(), interviewer="Interviewer", participant="Ana Lopez", start=5.0, mode="wb")
    # Caption cue text (whisperX's and Zoom's writers).
    vtt = "WEBVTT\n\n"
    for k, (who, text) in enumerate([("[SPEAKER_00]", Q1), ("[SPEAKER_01]", A1), ("[SPEAKER_00]", Q2), ("[SPEAKER_01]", A2)]):
        vtt += f"00:00:{5 * k:02d}.000 --> 00:00:{5 * k + 4:02d}.000\n{who}: {text}\n\n"
    write("whisperx.vtt", vtt, interviewer="SPEAKER_00", participant="SPEAKER_01", start=5.0,
          flags=["--interviewer-labels", "SPEAKER_00"])
    srt = ""
    for k, (who, text) in enumerate([("Dana Whitfield (Interviewer)", Q1), ("Ashlee Kupor (SL)", A1),
                                     ("Dana Whitfield (Interviewer)", Q2), ("Ashlee Kupor (SL)", A2)]):
        srt += f"{k + 1}\n00:00:{5 * k:02d},000 --> 00:00:{5 * k + 4:02d},000\n{who}: {text}\n\n"
    write("zoom_roles.srt", srt, interviewer="Dana Whitfield", participant="Ashlee Kupor", role="SL", start=5.0)
    # JSON utterance exports.
    lines = [("A", Q1, 0), ("B", A1, 5), ("A", Q2, 12), ("B", A2, 15)]
    speaker_map = ["--speaker-map", "Speaker A=Interviewer,Speaker B=Ana Lopez"]
    write("assemblyai.json", json.dumps({"id": "t1", "status": "completed", "text": " ".join(t for _, t, _ in lines),
                                          "utterances": [{"speaker": s, "text": t, "start": a * 1000, "end": a * 1000 + 4000,
                                                          "confidence": 0.9} for s, t, a in lines]}, indent=1),
          interviewer="Interviewer", participant="Ana Lopez", start=5.0, flags=speaker_map)
    write("deepgram.json", json.dumps({"metadata": {"request_id": "r"}, "results": {"channels": [], "utterances": [
        {"start": a, "end": a + 4, "confidence": 0.9, "channel": 0, "transcript": t, "speaker": "AB".index(s), "id": str(k)}
        for k, (s, t, a) in enumerate(lines)]}}, indent=1),
          interviewer="Interviewer", participant="Ana Lopez", start=5.0,
          flags=["--speaker-map", "Speaker 0=Interviewer,Speaker 1=Ana Lopez"])

    def rev_elements(text, at):
        out = []
        words = text[:-1].split(" ")
        for k, w in enumerate(words):
            if k:
                out.append({"type": "punct", "value": " "})
            out.append({"type": "text", "value": w, "ts": at + k * 0.3, "end_ts": at + k * 0.3 + 0.25, "confidence": 1.0})
        out.append({"type": "punct", "value": text[-1]})
        return out

    write("revai.json", json.dumps({"monologues": [{"speaker": "AB".index(s), "elements": rev_elements(t, a)}
                                                   for s, t, a in lines]}, indent=1),
          interviewer="Interviewer", participant="Ana Lopez", start=5.0,
          flags=["--speaker-map", "Speaker 0=Interviewer,Speaker 1=Ana Lopez"])
    items, segments = [], []
    for s, t, a in lines:
        label = f"spk_{'AB'.index(s)}"
        seg_items = []
        for k, w in enumerate(t[:-1].split(" ")):
            st, en = f"{a + k * 0.3:.2f}", f"{a + k * 0.3 + 0.25:.2f}"
            items.append({"start_time": st, "end_time": en, "alternatives": [{"confidence": "0.99", "content": w}],
                          "type": "pronunciation"})
            seg_items.append({"start_time": st, "end_time": en, "speaker_label": label})
        items.append({"alternatives": [{"confidence": "0.0", "content": t[-1]}], "type": "punctuation"})
        segments.append({"start_time": seg_items[0]["start_time"], "end_time": seg_items[-1]["end_time"],
                         "speaker_label": label, "items": seg_items})
    write("aws.json", json.dumps({"jobName": "j", "accountId": "1", "results": {
        "transcripts": [{"transcript": " ".join(t for _, t, _ in lines)}],
        "speaker_labels": {"speakers": 2, "segments": segments}, "items": items}, "status": "COMPLETED"}, indent=1),
          interviewer="Interviewer", participant="Ana Lopez", start=5.0,
          flags=["--speaker-map", "spk_0=Interviewer,spk_1=Ana Lopez"])
    write("list.json", json.dumps([{"speaker": "Interviewer" if s == "A" else "Ana Lopez", "text": t,
                                    "start": a, "end": a + 4} for s, t, a in lines], indent=1),
          interviewer="Interviewer", participant="Ana Lopez", start=5.0)
    with open(os.path.join(OUT, "expected.json"), "w", encoding="utf-8") as f:
        json.dump({"quotes": {"participant": A1, "interviewer": Q2}, "fixtures": expected}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
