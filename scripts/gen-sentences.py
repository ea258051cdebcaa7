#!/usr/bin/env python3
"""Deterministic short English sentences for the embedding benchmark.

    python3 scripts/gen-sentences.py N > sentences.txt

Sentences of 6 to 20 words (about 10 to 28 tokens), all distinct, seeded, so
corpus-eval and sentence-transformers embed exactly the same texts.
"""
import random
import sys

SUBJECTS = ["The farmer", "A young teacher", "The cooperative", "Her grandmother", "The committee",
            "Our neighbour", "The interviewer", "A local nurse", "The village council", "My brother",
            "The fishermen", "Several students", "The old miller", "A visiting doctor", "The project team"]
VERBS = ["described", "remembered", "criticised", "praised", "explained", "questioned", "recorded",
         "organised", "ignored", "welcomed", "measured", "planted", "repaired", "sold", "shared"]
OBJECTS = ["the potato harvest", "the new irrigation channel", "the price of seed", "the school garden",
           "the spring flood", "the market stalls", "the compost rota", "the bus timetable",
           "the winter stores", "the water rights", "the kale beds", "the youth club",
           "the church roof", "the fishing quotas", "the grazing land", "the apple orchard"]
TAILS = ["after the long drought", "before the elections", "in great detail", "with some hesitation",
         "during the interview", "for the first time", "in nineteen eighty-four", "at the annual meeting",
         "despite the rain", "to anyone who asked", "without any help", "in 2019", "last summer",
         "with her two sons", "while the recorder was running", "because prices had doubled"]
EXTRA = ["Everyone agreed.", "Nobody was surprised.", "It took three weeks.", "Prices fell soon after.",
         "The mayor was not pleased.", "They laughed about it later.", "Records are incomplete.", ""]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    rng = random.Random(42)
    seen = set()
    while len(seen) < n:
        s = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}."
        extra = rng.choice(EXTRA)
        if extra:
            s = f"{s} {extra}"
        if rng.random() < 0.3:
            s = s.replace(".", f" ({rng.randint(1, 999)}).", 1)
        if s not in seen:
            seen.add(s)
            print(s)


if __name__ == "__main__":
    main()
