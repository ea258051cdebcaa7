#!/usr/bin/env python3
"""Generates a large input for `corpus-eval evaluate` (the benchmark input of
the speed and attribution measurements): labelled interview transcripts and
a question file whose answers quote them.

    scripts/gen-evaluate.py OUT_DIR [--scale 1.0] [--seed 7] [--swapped SHARE] [--words N]

At scale 1: 40 transcripts of ~750,000 characters (30 M in all, chunked into
~700-character documents as the sample corpus is), 20,000 question pairs of
all six types with 40,000 answers, and ~30,000 quotes (0 to 1 per answer): 60% taken verbatim
from a participant's turn, 20% altered (case, punctuation, a word changed),
20% invented. Some quotes name their speaker. With --swapped SHARE (0 to 1)
the mix is the one of the whole-job measurement instead: 60% verbatim, 20%
changed only in case, whitespace, diacritics or apostrophes (the same once
normalized), 20% invented, of which SHARE are real sentences with two words
swapped and the rest fresh sentences of the transcripts' vocabulary. With
--words N (4 to 81) the text draws on N words only (N - 4 nouns, 4 verbs): the
adversarial input of the fuzzy search, where chance alignments crowd the
floor. Writes OUT_DIR/questions.json
and OUT_DIR/transcripts.json. Deterministic for a seed; standard library
only.
"""
import argparse
import json
import os
import random

WORDS = (
    "garden cooperative harvest market neighbours council landlord repair bicycle toaster river "
    "boat fish clams crab water summer winter rent meeting board volunteers tools money school "
    "children families tenants committee village mill factory farm tractor potatoes leeks kale "
    "rhubarb soil rain drought flood road bus train bridge church hall library park festival "
    "music dance bread cheese wine olive lemon orange forest hill mountain lake island harbour"
).split()
VERBS = "grew sold bought repaired opened closed started stopped built shared paid asked told moved lived worked".split()
NAMES = ["Anna", "Bo", "Carl", "Dana", "Emil", "Fatima", "Georg", "Hana", "Ivo", "Jana", "Karim", "Lena"]
INTERVIEWER = ["Interviewer", "Moderator"]


def sentence(rng):
    n = rng.randint(6, 16)
    words = [rng.choice(WORDS) if rng.random() < 0.7 else rng.choice(VERBS) for _ in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice([".", ".", ".", "?", "!"])


def transcript(rng, chars):
    """Turns alternating between an interviewer and one or more participants;
    returns the text and the participants' turns as (speaker, text)."""
    speakers = rng.sample(NAMES, rng.randint(1, 3))
    lines, said, total = [], [], 0
    while total < chars:
        q = "{}: {}".format(rng.choice(INTERVIEWER), sentence(rng))
        who = rng.choice(speakers)
        answer = " ".join(sentence(rng) for _ in range(rng.randint(2, 6)))
        a = "{}: {}".format(who, answer)
        lines += [q, a]
        said.append((who, answer))
        total += len(q) + len(a) + 2
    return "\n".join(lines), said


def chunks(text, size):
    out, at = [], 0
    while at < len(text):
        end = text.rfind("\n", at, at + size)
        end = len(text) if at + size >= len(text) else (end if end > at else at + size)
        out.append(text[at:end])
        at = end + 1 if end < len(text) and text[end] == "\n" else end
    return out


def alter(rng, q):
    words = q.split()
    k = rng.randrange(len(words))
    choice = rng.random()
    if choice < 0.4:
        return q.lower().replace(".", "").replace("?", "")
    if choice < 0.7:
        words[k] = rng.choice(WORDS)
        return " ".join(words)
    return q.replace(" ", "  ").upper()


def surface(rng, q):
    """A change that normalization undoes: case, whitespace, a diacritic or
    an apostrophe inside a word."""
    choice = rng.random()
    if choice < 0.25:
        return q.upper() if rng.random() < 0.5 else q.lower()
    if choice < 0.5:
        return q.replace(" ", rng.choice(["  ", " \t", "\n "]))
    words = q.split()
    k = rng.randrange(len(words))
    w = words[k]
    if choice < 0.75:
        words[k] = w.replace("e", "\u00e9", 1).replace("a", "\u00e0", 1)
    elif len(w) > 2:
        at = rng.randrange(1, len(w) - 1)
        words[k] = w[:at] + rng.choice(["'", "\u2019"]) + w[at:]
    return " ".join(words)


def swap(rng, q):
    """A real sentence with two of its words swapped."""
    words = q.split()
    if len(words) < 2:
        return sentence(rng)
    i, j = rng.sample(range(len(words)), 2)
    words[i], words[j] = words[j], words[i]
    return " ".join(words)


def metric_and_answer(rng, qtype):
    vals = rng.sample(WORDS, 4)
    if qtype == "Yes/No":
        m = rng.choice(["yes", "no"])
        return m, rng.choice(["Yes, ", "No, "]) + sentence(rng)
    if qtype == "Yes/No with Rationale":
        m = {"expected": "yes", "rationale": vals[:2], "rationale_weight": 0.5}
        return json.dumps(m), "Yes. Because of the {} and the {}.".format(vals[0], vals[1])
    if qtype == "ListOne":
        m = {"values": vals[:3], "weights": [1.0, 0.5, 0.5]}
        return json.dumps(m), "Mostly {}.".format(rng.choice(vals))
    if qtype == "ListMany":
        m = {v: 0.25 for v in vals}
        return json.dumps(m), "They mention {}, {} and {}.".format(*vals[:3])
    if qtype == "PickOne":
        m = {"values": vals[:3], "weights": [1, 0, 0]}
        return json.dumps(m), rng.choice(vals[:3])
    m = {"values": vals, "weights": [0.4, 0.3, 0.2, 0.1]}
    return json.dumps(m), "the {} and the {}".format(vals[0], vals[2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--swapped", type=float, default=None,
                    help="the whole-job mix, SHARE of the invented quotes real sentences with words swapped")
    ap.add_argument("--words", type=int, default=None, help="draw the text from N words only")
    args = ap.parse_args()
    if args.swapped is not None and not 0.0 <= args.swapped <= 1.0:
        ap.error("--swapped: a share from 0 to 1, got {}".format(args.swapped))
    if args.words is not None:
        if not 4 <= args.words <= len(WORDS) + 4:
            ap.error("--words: 4 to {}, got {}".format(len(WORDS) + 4, args.words))
        WORDS[:] = WORDS[:args.words - 4]
        VERBS[:] = VERBS[:4]
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    n_transcripts = 40
    chars = int(750_000 * args.scale)
    docs, said = [], []
    for t in range(n_transcripts):
        name = "T{:02d}_interview.csv".format(t)
        text, turns = transcript(rng, chars)
        said.append((name, turns))
        docs += [{"page_content": c, "metadata": {"FILE": name}} for c in chunks(text, 700)]
    with open(os.path.join(args.out, "transcripts.json"), "w") as f:
        json.dump(docs, f, ensure_ascii=False)
    types = ["Yes/No", "Yes/No with Rationale", "ListOne", "ListMany", "PickOne", "PickMany"]
    pairs = []
    quotes = 0
    for i in range(int(20_000 * args.scale)):
        qtype = types[i % len(types)]
        answers = []
        for _ in range(2):
            name, turns = rng.choice(said)
            metric, answer = metric_and_answer(rng, qtype)
            verbatims = []
            for _ in range(rng.choice([0, 1, 1, 1])):
                who, text = rng.choice(turns)
                sentences = [s for s in text.replace("?", ".").replace("!", ".").split(". ") if s]
                q = rng.choice(sentences).strip()
                r = rng.random()
                if args.swapped is not None:
                    if r < 0.2:
                        q = surface(rng, q)
                    elif r < 0.4:
                        q = swap(rng, q) if rng.random() < args.swapped else sentence(rng)
                elif r < 0.2:
                    q = alter(rng, q)
                elif r < 0.4:
                    q = sentence(rng)
                v = {"quote": q, "source": name}
                if rng.random() < 0.3:
                    v["speaker"] = who if rng.random() < 0.8 else rng.choice(NAMES)
                verbatims.append(v)
                quotes += 1
            answers.append({"answer": answer, "source": name, "verbatims": verbatims})
        pairs.append({
            "id": "q{}".format(i),
            "question": {"text": "Question {} about the {}?".format(i, rng.choice(WORDS)), "type": qtype, "metric": metric},
            "answers": answers,
        })
    with open(os.path.join(args.out, "questions.json"), "w") as f:
        json.dump({"qa_pairs": pairs}, f, ensure_ascii=False)
    total = sum(len(d["page_content"]) for d in docs)
    print("{} transcripts, {} chars in {} documents; {} pairs, {} answers, {} quotes".format(
        n_transcripts, total, len(docs), len(pairs), 2 * len(pairs), quotes))


if __name__ == "__main__":
    main()
