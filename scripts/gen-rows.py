#!/usr/bin/env python3
"""Generates benchmark inputs for `text-eval` and `grounding`.

    scripts/gen-rows.py text N OUT.jsonl       rows varied from evaluation/text-eval/sample.json
    scripts/gen-rows.py grounding N OUT.jsonl  ~100-word responses, ~1,000-word contexts cut
                                               from datasets/corpus.json, with numbers and dates

Deterministic (seeded); every row differs.
"""
import json
import random
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(42)

if kind == "text":
    base = json.loads((root / "evaluation/text-eval/sample.json").read_text())
    with open(out, "w") as f:
        for i in range(n):
            r = dict(base[i % len(base)])
            words = r["response"].split()
            if words:
                k = rng.randrange(len(words))
                words.insert(k, rng.choice(["really", "indeed", "also", "often", str(i)]))
            r["response"] = " ".join(words)
            r["id"] = f"r{i}"
            f.write(json.dumps(r) + "\n")
elif kind == "grounding":
    chunks = [c["page_content"] for c in json.loads((root / "datasets/corpus.json").read_text())]
    words = " ".join(chunks).split()
    extras = ["in 1987", "on March 3, 2021", "$5 million", "twenty-one", "1,000", "at 9 am", "3.5"]
    with open(out, "w") as f:
        for i in range(n):
            start = rng.randrange(len(words) - 1100)
            ctx_words = words[start:start + 1000]
            for e in extras:
                ctx_words.insert(rng.randrange(len(ctx_words)), e)
            ctx = " ".join(ctx_words)
            cut = rng.randrange(0, 900)
            resp = words[start + cut:start + cut + 90] + rng.sample(extras, 3) + ["The", "project", "employs", "engineers."]
            f.write(json.dumps({
                "id": f"g{i}",
                "query": " ".join(words[start + cut:start + cut + 12]) + "?",
                "response": " ".join(resp),
                "context": [ctx[: len(ctx) // 2], ctx[len(ctx) // 2:]],
            }) + "\n")
else:
    sys.exit(f"unknown kind {kind}")
