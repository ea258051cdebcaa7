#!/usr/bin/env python3
"""Reference values for `corpus-eval lexical`, computed once by the
reference libraries themselves; the parity test compares against them.

Run in a throwaway venv:
    python3 -m venv /tmp/lexvenv
    /tmp/lexvenv/bin/pip install rouge-score==0.1.2 sacrebleu==2.6.0 nltk numpy
    /tmp/lexvenv/bin/python scripts/lexical_reference.py [WORDNET_DICT_DIR]

Writes fixtures/lexical/pairs.jsonl (the inputs), fixtures/lexical/expected.json
(rouge-score, sacrebleu and SQuAD numbers) and fixtures/lexical/porter.tsv
(NLTK Porter stems of words drawn from WordNet's index files, default
/usr/share/wordnet). The SQuAD functions below transcribe the official v1.1
and v2.0 evaluation scripts (they are not on PyPI).
"""
import collections
import json
import os
import random
import re
import string
import sys

import nltk
import sacrebleu
from nltk.stem import porter
from rouge_score import rouge_scorer

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "lexical")


# --- SQuAD, as the official scripts -------------------------------------
def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def v1_f1(prediction, ground_truth):
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = collections.Counter(prediction_tokens) & collections.Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def v1_em(prediction, ground_truth):
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def v1_score(pred, golds):
    return (
        max(v1_em(pred, g) for g in golds),
        max(v1_f1(pred, g) for g in golds),
    )


def v2_tokens(s):
    if not s:
        return []
    return normalize_answer(s).split()


def v2_exact(a_gold, a_pred):
    return int(normalize_answer(a_gold) == normalize_answer(a_pred))


def v2_f1(a_gold, a_pred):
    gold_toks = v2_tokens(a_gold)
    pred_toks = v2_tokens(a_pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def v2_score(pred, golds):
    golds = [g for g in golds if normalize_answer(g)]
    if not golds:
        golds = [""]
    return max(v2_exact(g, pred) for g in golds), max(v2_f1(g, pred) for g in golds)


# --- inputs ---------------------------------------------------------------
WORDS = """the a an of and to in is was it that for on with as by at from this be are
farm farmer farming farms farmed soil sandy irrigation irrigated water watering
running runs ran generalization generalizations happily happiness relational
conditional electrical adoption controlling rolled skies dying lying news innings
interview interviews interviewed interviewing transcript transcripts quoted quote
village villages harvest harvested harvesting potatoes potato barley wheat
cooperative cooperatives cooperation weather rainfall drought droughts
agreed feed plastered motoring sing conflated troubled sized hopping falling filing
hopefulness formalize sensitiviti triplicate probabilistic logically analogies
""".split()
UNICODE = ["Århus", "café", "naïve", "İstanbul", "ΟΔΟΣ", "東京", "🙂", "—", "“home”",
           "Ünïcode", "straße", "KELVIN\u212a", "x\u00a0y", "a\u3000b", "tab\tsep", "sep\x1cx",
           "déjà-vu", "١٢٣", "½", "naïve—café"]
PUNCT = [",", ".", "!", "?", ";", ":", "'s", "\"", "(", ")", "-", "--", "...", "&amp;",
         "&lt;tag&gt;", "&quot;", "<skipped>", "$", "%", "@", "#", "/", "[x]", "{y}", "~", "`", "^", "_"]
NUMBERS = ["3.5", "1,000", "5-6", "2019", "3", "0.25", "10%", "$3.50", "1-2", "v2.0", "42", "7,5"]


def word(rng):
    r = rng.random()
    if r < 0.70:
        w = rng.choice(WORDS)
        return w.capitalize() if rng.random() < 0.15 else (w.upper() if rng.random() < 0.03 else w)
    if r < 0.80:
        return rng.choice(PUNCT)
    if r < 0.90:
        return rng.choice(NUMBERS)
    return rng.choice(UNICODE)


def sentence(rng, n):
    out = []
    for _ in range(n):
        w = word(rng)
        if out and rng.random() < 0.15 and w in PUNCT:
            out[-1] += w  # attached punctuation
        else:
            out.append(w)
    s = " ".join(out)
    if rng.random() < 0.1:
        s = s + rng.choice([" ", "  ", "\t", "\n", " \u00a0"])
    return s


def text(rng, lo, hi):
    r = rng.random()
    if r < 0.04:
        return ""
    if r < 0.07:
        return rng.choice(["the the the the", "a", "the", "...", "\n\n", "42"])
    k = 1 if rng.random() < 0.6 else rng.randint(2, 4)
    return "\n".join(sentence(rng, rng.randint(lo, hi)) for _ in range(k))


def perturb(rng, ref):
    words = ref.split(" ")
    out = []
    for w in words:
        r = rng.random()
        if r < 0.12:
            continue
        if r < 0.22:
            out.append(word(rng))
        elif r < 0.27:
            out.extend([w, w])
        else:
            out.append(w)
    if rng.random() < 0.2:
        rng.shuffle(out)
    return " ".join(out)


def pairs(rng, n):
    items = []
    for i in range(n):
        ref = text(rng, 1, 30)
        k = 1 if rng.random() < 0.7 else rng.randint(2, 4)
        refs = [ref] + [perturb(rng, ref) if rng.random() < 0.7 else text(rng, 1, 20) for _ in range(k - 1)]
        r = rng.random()
        if r < 0.05:
            pred = ""
        elif r < 0.10:
            pred = ref
        elif r < 0.85:
            pred = perturb(rng, ref)
        else:
            pred = text(rng, 1, 25)
        item = {"id": f"p{i:03d}", "prediction": pred}
        if k == 1 and rng.random() < 0.5:
            item["reference"] = ref
        else:
            item["references"] = refs
        items.append(item)
    return items


def refs_of(item):
    return item["references"] if "references" in item else [item["reference"]]


def main():
    rng = random.Random(20261124)
    items = pairs(rng, 400)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "pairs.jsonl"), "w", encoding="utf-8") as f:
        for it in items:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")

    types = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]
    per_item = [dict(id=it["id"]) for it in items]
    for stem in (False, True):
        scorer = rouge_scorer.RougeScorer(types, use_stemmer=stem)
        key = "rouge_stem" if stem else "rouge"
        for it, out in zip(items, per_item):
            s = scorer.score_multi(refs_of(it), it["prediction"])
            out[key] = {t: [s[t].precision, s[t].recall, s[t].fmeasure] for t in types}
    # rougeLsum alone (rouge-score skips the whole-text tokens then).
    only = rouge_scorer.RougeScorer(["rougeLsum"])
    for it, out in zip(items, per_item):
        out["rougeLsum_alone"] = only.score_multi(refs_of(it), it["prediction"])["rougeLsum"].fmeasure

    hyps = [it["prediction"] for it in items]
    width = max(len(refs_of(it)) for it in items)
    streams = [[(refs_of(it)[k] if k < len(refs_of(it)) else None) for it in items] for k in range(width)]
    corpus = {}
    for tok in ("13a", "intl", "char", "none"):
        for smooth in ("exp", "floor", "add-k", "none"):
            bleu = sacrebleu.BLEU(tokenize=tok, smooth_method=smooth)
            corpus[f"bleu/{tok}/{smooth}"] = bleu.corpus_score(hyps, streams).score
            sent = sacrebleu.BLEU(tokenize=tok, smooth_method=smooth, effective_order=True)
            for it, out in zip(items, per_item):
                out[f"bleu/{tok}/{smooth}"] = sent.sentence_score(it["prediction"], refs_of(it)).score
    corpus["bleu/13a/floor0.3"] = sacrebleu.BLEU(smooth_method="floor", smooth_value=0.3).corpus_score(hyps, streams).score
    corpus["bleu/13a/add-k2"] = sacrebleu.BLEU(smooth_method="add-k", smooth_value=2).corpus_score(hyps, streams).score
    chrf = sacrebleu.CHRF()
    corpus["chrf"] = chrf.corpus_score(hyps, streams).score
    for it, out in zip(items, per_item):
        out["chrf"] = chrf.sentence_score(it["prediction"], refs_of(it)).score
        out["tok13a"] = sacrebleu.BLEU().tokenizer(it["prediction"].rstrip())
        out["tokintl"] = sacrebleu.BLEU(tokenize="intl").tokenizer(it["prediction"].rstrip())

    for version, fn in (("1.1", v1_score), ("2.0", v2_score)):
        em_sum, f1_sum = 0, 0
        for it, out in zip(items, per_item):
            em, f1 = fn(it["prediction"], refs_of(it))
            out[f"squad{version}"] = [float(em), float(f1)]
            em_sum += em
            f1_sum += f1
        corpus[f"squad{version}/em"] = 100.0 * em_sum / len(items)
        corpus[f"squad{version}/f1"] = 100.0 * f1_sum / len(items)

    for t in types:
        for key in ("rouge", "rouge_stem"):
            corpus[f"{key}/{t}"] = sum(o[key][t][2] for o in per_item) / len(items)

    versions = {"rouge-score": "0.1.2", "sacrebleu": sacrebleu.__version__, "nltk": nltk.__version__}
    with open(os.path.join(OUT, "expected.json"), "w", encoding="utf-8") as f:
        json.dump({"versions": versions, "corpus": corpus, "items": per_item}, f, ensure_ascii=False, indent=0)

    # Porter stems of WordNet lemmas and inflections of them.
    wn = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet"
    lemmas = set()
    for pos in ("noun", "verb", "adj", "adv"):
        with open(os.path.join(wn, f"index.{pos}"), encoding="latin-1") as f:
            for line in f:
                if line.startswith(" "):
                    continue
                w = line.split(" ", 1)[0]
                if re.fullmatch(r"[a-z]+", w):
                    lemmas.add(w)
    lemmas = sorted(lemmas)
    rng = random.Random(7)
    sample = rng.sample(lemmas, 12000)
    suffixes = ["s", "es", "ed", "ing", "ly", "ness", "ational", "ization", "fulness", "ies", "ied", "y", "alli", "logi", "ement"]
    words = set(sample)
    for w in rng.sample(lemmas, 6000):
        words.add(w + rng.choice(suffixes))
    words.update(["sky", "skies", "dying", "lying", "tying", "news", "innings", "outing", "cannings", "howe", "proceed", "exceed", "succeed", "ties", "dies", "yy", "ayy", "byy", "syzygy", "by", "cried"])
    stemmer = porter.PorterStemmer()
    with open(os.path.join(OUT, "porter.tsv"), "w", encoding="utf-8") as f:
        for w in sorted(words):
            f.write(f"{w}\t{stemmer.stem(w)}\n")


if __name__ == "__main__":
    main()
