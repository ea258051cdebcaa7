#!/usr/bin/env python3
"""Generates N prediction/reference pairs of ~30 words (a reference drawn
from a 5,000-word Zipf vocabulary with punctuation and numbers, the
prediction a perturbed copy: words dropped, replaced, repeated) as JSON
Lines, deterministic for a seed.

    gen-lexical-pairs.py OUT.jsonl [--n 100000] [--seed 1]
"""
import argparse
import json
import random

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--n", type=int, default=100_000)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rng = random.Random(a.seed)
syll = ["ka", "lo", "mi", "ren", "sto", "va", "tek", "pu", "dra", "ne", "is", "or", "ul", "fa", "gri"]
vocab = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(1, 4))) for _ in range(8000)})[:5000]
weights = [1.0 / (k + 1) for k in range(len(vocab))]
extras = [",", ".", "!", "?", "3.5", "1,000", "2019", "5-6", "(", ")", "\"", "'s"]


def sentence(n):
    words = rng.choices(vocab, weights, k=n)
    for _ in range(n // 8):
        words.insert(rng.randrange(len(words)), rng.choice(extras))
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


with open(a.out, "w", encoding="utf-8") as f:
    for i in range(a.n):
        ref = sentence(rng.randint(24, 34))
        out = []
        for w in ref.split(" "):
            r = rng.random()
            if r < 0.1:
                continue
            if r < 0.25:
                out.append(rng.choices(vocab, weights)[0])
            elif r < 0.28:
                out.extend([w, w])
            else:
                out.append(w)
        f.write(json.dumps({"id": f"p{i}", "prediction": " ".join(out), "reference": ref}) + "\n")
