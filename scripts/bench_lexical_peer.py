#!/usr/bin/env python3
"""The reference libraries' side of scripts/bench-lexical: times rouge-score
(rouge1, rouge2, rougeL, one process, one thread) and sacrebleu (corpus BLEU,
13a, exp; corpus chrF) on the same pairs, in process (imports excluded).
Prints one JSON object with the seconds and the numbers (for the check
that both sides agree).

    python bench_lexical_peer.py PAIRS.jsonl
"""
import json
import sys
import time

import sacrebleu
from rouge_score import rouge_scorer

items = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
preds = [i["prediction"] for i in items]
refs = [i["reference"] for i in items]

t = time.perf_counter()
scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
sums = {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
for p, r in zip(preds, refs):
    s = scorer.score(r, p)
    for k in sums:
        sums[k] += s[k].fmeasure
rouge_s = time.perf_counter() - t

t = time.perf_counter()
bleu = sacrebleu.corpus_bleu(preds, [refs]).score
bleu_s = time.perf_counter() - t

t = time.perf_counter()
chrf = sacrebleu.corpus_chrf(preds, [refs]).score
chrf_s = time.perf_counter() - t

n = len(items)
print(json.dumps({
    "n": n,
    "rouge_s": rouge_s, "bleu_s": bleu_s, "chrf_s": chrf_s,
    "rouge1": sums["rouge1"] / n, "rouge2": sums["rouge2"] / n, "rougeL": sums["rougeL"] / n,
    "bleu": bleu, "chrf": chrf,
}))
