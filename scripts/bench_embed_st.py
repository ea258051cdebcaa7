#!/usr/bin/env python3
"""sentence-transformers' side of the embedding benchmark.

    python3 scripts/bench_embed_st.py MODEL_DIR SENTENCES.txt [THREADS] [BATCH]

Encodes every line of SENTENCES.txt with the model folder (as corpus-eval
loads it) after a warm-up, and prints one JSON line: sentences, seconds,
sentences_per_s, threads, batch_size, versions.
"""
import json
import sys
import time

import torch
from sentence_transformers import SentenceTransformer


def main() -> None:
    model_dir, path = sys.argv[1], sys.argv[2]
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    batch = int(sys.argv[4]) if len(sys.argv) > 4 else 32
    torch.set_num_threads(threads)
    sentences = [l.rstrip("\n") for l in open(path, encoding="utf-8")]
    model = SentenceTransformer(model_dir, device="cpu")
    model.encode(sentences[:256], batch_size=batch)
    best = None
    for _ in range(2):
        t0 = time.perf_counter()
        model.encode(sentences, batch_size=batch, normalize_embeddings=True)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    import sentence_transformers
    print(json.dumps({
        "engine": "sentence-transformers",
        "sentences": len(sentences),
        "seconds": round(best, 3),
        "sentences_per_s": round(len(sentences) / best, 1),
        "threads": threads,
        "batch_size": batch,
        "torch": torch.__version__,
        "sentence_transformers": sentence_transformers.__version__,
    }))


if __name__ == "__main__":
    main()
