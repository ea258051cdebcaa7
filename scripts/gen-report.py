#!/usr/bin/env python3
"""Writes a long generated report quoting a transcripts file (corpus-eval's
JSON chunks, e.g. the benchmark corpus of scripts/gen-evaluate.py) for timing
`corpus-eval check-report`: PAGES pages of about 450 words, five quotes a page,
and a source map (sources.csv, one label P1.. per transcript). Of the quotes,
about 55% are verbatim and cited (P-label), 10% uncited verbatim, 10% cited to
the wrong transcript, 10% with a one-letter typo, 10% made up and uncited, 5%
two sentences of one turn joined. Deterministic (seeded).

    python3 scripts/gen-report.py TRANSCRIPTS.json OUT_DIR [PAGES]   (default 50)

Then, for example:

    corpus-eval check-report OUT_DIR/report.md TRANSCRIPTS.json --sources OUT_DIR/sources.csv
"""
import json
import random
import sys
from pathlib import Path

WORDS = ("participants described the change as gradual and several linked it to the "
         "closure of local services while others stressed family ties and the cost of "
         "housing in the region over the period studied").split()


def turns(text):
    """(speaker, sentence) pairs of a transcript's non-interviewer turns."""
    out = []
    for line in text.split("\n"):
        if ": " not in line:
            continue
        speaker, said = line.split(": ", 1)
        if speaker in ("Interviewer", "Moderator") or not speaker.istitle():
            continue
        for s in said.replace("!", ".").replace("?", ".").split("."):
            words = s.split()
            if 6 <= len(words) <= 30:
                out.append((speaker, " ".join(words)))
    return out


def main():
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    pages = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    rng = random.Random(44)
    doc = json.loads(src.read_text(encoding="utf-8"))
    chunks = doc["documents"] if isinstance(doc, dict) else doc
    texts = {}
    for c in chunks:
        texts.setdefault(c["metadata"]["FILE"], []).append(c["page_content"])
    files = sorted(texts)
    label = {f: f"P{k + 1}" for k, f in enumerate(files)}
    said = {f: turns("\n".join(texts[f])) for f in files}
    files = [f for f in files if said[f]]
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "sources.csv", "w", encoding="utf-8") as m:
        m.write("label,source\n")
        for f in sorted(label):
            m.write(f"{label[f]},{f}\n")
    paras = [f"# A generated synthesis of {len(files)} interviews\n"]
    for page in range(pages):
        for _ in range(5):
            f = rng.choice(files)
            speaker, sentence = rng.choice(said[f])
            kind = rng.random()
            filler = " ".join(rng.choice(WORDS) for _ in range(rng.randint(60, 90)))
            if kind < 0.55:
                quote = f"{speaker} said that “{sentence}” ({label[f]})."
            elif kind < 0.65:
                quote = f"One participant noted “{sentence}”."
            elif kind < 0.75:
                other = rng.choice([g for g in files if g != f] or [f])
                quote = f"As reported, “{sentence}” ({label[other]})."
            elif kind < 0.85:
                w = list(sentence)
                k = rng.randrange(len(w))
                w[k] = "x" if w[k] != "x" else "y"
                quote = f"It was put as “{''.join(w)}” ({label[f]})."
            elif kind < 0.95:
                made = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16)))
                quote = f"Another insisted “{made}”."
            else:
                s2 = rng.choice(said[f])[1]
                quote = f"In short, “{sentence} and {s2}” ({label[f]})."
            paras.append(f"{filler} {quote}")
        paras.append(f"Page {page + 1} ends here.")
    (out / "report.md").write_text("\n\n".join(paras) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
