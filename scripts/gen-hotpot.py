#!/usr/bin/env python3
"""Generates HotpotQA-shaped test and benchmark data with edge cases.

  gen-hotpot.py official N SEED OUTDIR [PARAGRAPHS]  # gold.json (with contexts) + predictions.json
  gen-hotpot.py simple N SEED OUTDIR                 # gold.json + predictions.json

Answers mix yes/no/noanswer, empty strings, "insufficient context",
punctuation, articles and non-ASCII text; predictions copy, perturb or
replace the gold answer; about 1% of ids lack a predicted answer and 1%
lack supporting facts; supporting facts repeat now and then.
"""
import json
import os
import random
import sys

ANSWERS = ["yes", "no", "noanswer", "", "  ", "Arthur's Magazine", "the Beatles", "Île-de-France",
           "naïve café", "ΣΑΣ", "3/4", "1,000 people", "the—a", "l’the", "insufficient context",
           "Insufficient context.", "Paris, France", "An American actor", "Guns N' Roses",
           "1844", "Chief of Protocol", "Saint-Denis", "東京", "a", "The The"]
WORDS = ("river city film band album novel war king queen station club league poet island "
         "museum county bridge tower empire church school award opera").split()


def perturb(rng, answer):
    r = rng.random()
    if r < 0.45:
        return answer
    if r < 0.6:
        return answer.upper() + rng.choice(["", ".", "!", " "])
    if r < 0.7:
        return "the " + answer
    if r < 0.8:
        return " ".join(answer.split()[:1] + rng.sample(WORDS, 1))
    if r < 0.9:
        return rng.choice(ANSWERS)
    return " ".join(rng.sample(WORDS, rng.randint(1, 4)))


def sentence(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))).capitalize() + "."


def official(n, seed, out, paragraphs):
    rng = random.Random(seed)
    gold, answers, sps = [], {}, {}
    for i in range(n):
        _id = "%024x" % rng.getrandbits(96)
        titles = [" ".join(rng.sample(WORDS, 2)).title() + ("" if rng.random() < 0.9 else " (é)")
                  for _ in range(paragraphs)]
        context = [[t, [sentence(rng) for _ in range(rng.randint(2, 5))]] for t in titles]
        facts = [[t, rng.randint(0, 3)] for t in rng.sample(titles, rng.randint(0, min(3, len(titles))))]
        answer = rng.choice(ANSWERS) if rng.random() < 0.5 else " ".join(rng.sample(WORDS, rng.randint(1, 3)))
        gold.append({"_id": _id, "answer": answer, "question": "Which %s?" % " ".join(rng.sample(WORDS, 5)),
                     "supporting_facts": facts, "context": context, "type": "bridge", "level": "hard"})
        if rng.random() > 0.01:
            answers[_id] = perturb(rng, answer)
        if rng.random() > 0.01:
            pred = [f for f in facts if rng.random() < 0.8]
            if rng.random() < 0.3:
                pred.append([rng.choice(titles), rng.randint(0, 4)])
            if pred and rng.random() < 0.1:
                pred.append(list(pred[0]))
            sps[_id] = pred
    answers["not-in-gold"] = "x"
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "gold.json"), "w") as f:
        json.dump(gold, f, ensure_ascii=False)
    with open(os.path.join(out, "predictions.json"), "w") as f:
        json.dump({"answer": answers, "sp": sps}, f, ensure_ascii=False)


def simple(n, seed, out):
    rng = random.Random(seed)
    gold, preds = [], []
    for i in range(n):
        answer = rng.choice(ANSWERS) if rng.random() < 0.6 else " ".join(rng.sample(WORDS, rng.randint(1, 3)))
        cites = [rng.randint(0, 9) for _ in range(rng.randint(0, 3))]
        pc = [c for c in cites if rng.random() < 0.8] + [rng.randint(0, 9) for _ in range(rng.randint(0, 2))]
        gold.append({"id": "q%d" % i, "question": "Question %d?" % i, "answer": answer, "citations": cites})
        preds.append({"id": "q%d" % i, "answer": perturb(rng, answer), "citations": pc})
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "gold.json"), "w") as f:
        json.dump(gold, f, ensure_ascii=False, indent=0)
    with open(os.path.join(out, "predictions.json"), "w") as f:
        json.dump(preds, f, ensure_ascii=False, indent=0)


if __name__ == "__main__":
    mode, n, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    if mode == "official":
        official(n, seed, out, int(sys.argv[5]) if len(sys.argv) > 5 else 10)
    else:
        simple(n, seed, out)
