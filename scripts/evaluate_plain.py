#!/usr/bin/env python3
"""The main job of `corpus-eval evaluate`, written as plain Python (what a
researcher would write): the side-by-side peer of
`corpus-eval evaluate QUESTIONS TRANSCRIPTS --no-plots --no-html` in the
speed benchmark.

    evaluate_plain.py QUESTIONS.json TRANSCRIPTS.json OUT.json [--compare RESULTS.json]

What it does, corpus-eval's rules ported one to one: scores every answer by
question type (the answer normalizer, number words <-> digits, WordNet lemmas
and synonyms from the lexicon corpus-eval embeds, Jaro-Winkler for Pick
options; None when the type or metric is unusable); checks every quote in its
source transcript (the chunks of one FILE joined with "\n", speaker labels
taken out): found when the trimmed quote is in the spoken text, or its
normalized form (case, whitespace, typographic quotes/dashes, diacritics
ignored) in the normalized spoken text, or, for a quote that carries a
speaker label, in the text as written; writes scores, `found`, existence
scores and a summary with 95% percentile-bootstrap intervals (2000
resamples, Python's `random` seeded with 42 per group, so the intervals,
unlike the means, are not corpus-eval's).

What it deliberately does not do: fuzzy quote matching (a quote corpus-eval
calls `fuzzy` is not found here, nor at corpus-eval's default match level),
attribution classes (ok, other_source, stitched, fabricated; strict
existence), spans, the HTML report, charts and manifest.

--compare RESULTS.json checks the results against corpus-eval's results.json
(scores to 1e-9, `found` on every quote), prints the counts and the first 10
mismatches, and exits 1 on any difference. Standard library only, Python 3.9+.
"""
import argparse
import functools
import gzip
import json
import math
import os
import random
import re
import sys
import time
import unicodedata

# ---------------------------------------------------------------- text ----

# Unicode White_Space: what Rust's char::is_whitespace, str::trim and \s take.
RUST_WS = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
           "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
WS_CLASS = "[" + "".join("\\u%04x" % ord(c) for c in RUST_WS) + "]"
DIGIT_GROUP_COMMA = re.compile(r"(?<=[0-9]),(?=[0-9]{3}(?![0-9]))")
KEPT_RUN = re.compile(r"(?:[^\W_]|(?<=[0-9])\.(?=[0-9]))+")


def trim(s):
    return s.strip(RUST_WS)


def normalize(text):
    """The answer normalizer: NFKD without combining marks, lower case,
    everything but letters and digits a space ("1,000" -> "1000" and "3.5"
    kept), whitespace collapsed."""
    if text.isascii():
        text = text.lower()
    else:
        text = "".join(c.lower() for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c)[0] != "M")
    return " ".join(KEPT_RUN.findall(DIGIT_GROUP_COMMA.sub("", text)))


# Punctuation (Unicode category P, and the backtick): an apostrophe or
# hyphen between two letters or digits joins them, a comma or period
# between two digits too; any other mark breaks words. Filler words
# standing alone are dropped (src/text/aligned.rs).
JOINED = re.compile(r"(?<=[^\W_])['\u2019\u2018\u02bc`\-\u2010\u2011](?=[^\W_])|(?<=[0-9])[.,](?=[0-9])")
FILLERS = {"um", "uh", "er", "erm", "ah", "hmm", "mm", "mhm"}


class PunctFold(dict):
    """str.translate table: punctuation to a space, other chars kept."""

    def __missing__(self, cp):
        c = chr(cp)
        out = " " if c == "`" or unicodedata.category(c)[0] == "P" else c
        self[cp] = out
        return out


PUNCT_FOLD = PunctFold()


class BaseFold(dict):
    """str.translate table: each character's NFKD decomposition without
    marks, in lower case; whitespace a space (typographic marks are
    punctuation, dropped after)."""

    def __missing__(self, cp):
        c = chr(cp)
        if cp < 128:
            out = " " if c in " \t\n\x0c\r" else c.lower()
        elif c in RUST_WS:
            out = " "
        else:
            out = ""
            for d in unicodedata.normalize("NFKD", c):
                if unicodedata.category(d)[0] != "M":
                    out += " " if d in RUST_WS else d.lower()
        self[cp] = out
        return out


BASE_FOLD = BaseFold()


def quote_normalize(text):
    text = text.lower() if text.isascii() else text.translate(BASE_FOLD)
    text = JOINED.sub("", text).translate(PUNCT_FOLD)
    return " ".join(w for w in text.split() if w not in FILLERS)


# ------------------------------------------------------------- numbers ----

SMALL = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen").split()
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBER_WORDS = {w: ("small", i) for i, w in enumerate(SMALL)}
NUMBER_WORDS.update({w: ("tens", 20 + 10 * i) for i, w in enumerate(TENS)})
NUMBER_WORDS.update({"hundred": ("hundred", 100), "thousand": ("scale", 10 ** 3),
                     "million": ("scale", 10 ** 6), "billion": ("scale", 10 ** 9),
                     "trillion": ("scale", 10 ** 12)})
MEGAS = "thousand million billion trillion quadrillion quintillion".split()


def can_follow(last, kind, v, current, last_scale):
    """Whether a number word of `kind` continues a number whose last word
    was of kind `last` (src/text/numbers.rs Acc::push)."""
    if last is None:
        return True
    if last in ("small", "tens") and kind in ("small", "tens"):
        return last == "tens" and kind == "small" and 1 <= v <= 9
    if last in ("hundred", "scale") and kind == "hundred":
        return False
    if kind == "scale":
        return last_scale == 0 or v < last_scale
    if kind == "hundred":
        return 0 < current < 100
    return current % 100 == 0


def parse_prefix(tokens):
    """The longest English number at the start of `tokens`: (value, tokens
    used), or None."""
    total = current = last_scale = used = i = 0
    last = None
    while i < len(tokens):
        if tokens[i] == "and":  # "two hundred and five"
            nxt = NUMBER_WORDS.get(tokens[i + 1]) if i + 1 < len(tokens) else None
            if last in ("hundred", "scale") and nxt and nxt[0] in ("small", "tens"):
                i += 1
                continue
            break
        w = NUMBER_WORDS.get(tokens[i])
        if w is None or not can_follow(last, w[0], w[1], current, last_scale):
            break
        kind, v = w
        if kind in ("small", "tens"):
            current += v
        elif kind == "hundred":
            current = max(current, 1) * 100
        else:
            total, current, last_scale = total + max(current, 1) * v, 0, v
        last = kind
        i += 1
        used = i
    return (total + current, used) if used else None


def canonical_tokens(text):
    """Normalized words, runs of number words as digits ("twenty-one" -> "21")."""
    toks = normalize(text).split()
    out, i = [], 0
    while i < len(toks):
        if toks[i] in NUMBER_WORDS:
            value, used = parse_prefix(toks[i:])
            out.append(str(value))
            i += used
        else:
            out.append(toks[i])
            i += 1
    return out


@functools.lru_cache(maxsize=None)
def phrase_tokens(text):
    return tuple(canonical_tokens(text))


def num2words(n):
    """The num2words crate's English cardinal: "and" only before the last
    group ("one thousand and five", but "one hundred five")."""
    if n == 0:
        return "zero"
    triplets = []
    while n:
        triplets.append(n % 1000)
        n //= 1000
    words, first = [], True
    for i in range(len(triplets) - 1, -1, -1):
        t = triplets[i]
        hundreds, tens, units = t // 100 % 10, t // 10 % 10, t % 10
        if hundreds:
            words += [SMALL[hundreds], "hundred"]
        if tens or units:
            if i == 0 and not first:
                words.append("and")
            first = False
            if tens < 2:
                words.append(SMALL[10 * tens + units])
            else:
                words.append(TENS[tens - 2] + ("-" + SMALL[units] if units else ""))
        if i and t:
            words.append(MEGAS[i - 1])
    return " ".join(words)


def number_forms(value):
    """The other spellings of a number: words for digits, digits for words."""
    t = trim(value)
    if t and all(c in "0123456789," for c in t) and t.replace(",", "") \
            and int(t.replace(",", "")) < 2 ** 64:
        n = int(t.replace(",", ""))
        words = num2words(n)
        without_and = words.replace(" and ", " ")
        if n > 100 and n % 100:  # the British "and" after hundreds too
            words = "%s and %s" % (num2words(n - n % 100), num2words(n % 100))
        out = []
        for form in (words, without_and, words.replace("-", " "), without_and.replace("-", " ")):
            if form not in out:
                out.append(form)
        return out
    toks = normalize(value).split()
    parsed = parse_prefix(toks)
    return [str(parsed[0])] if parsed and parsed[1] == len(toks) else []


# ------------------------------------------------------------- lexicon ----

RULES = {"n": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
               ("shes", "sh"), ("men", "man"), ("ies", "y")],
         "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
               ("ing", "e"), ("ing", "")],
         "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
         "r": []}
POS_BIT = {"n": 1, "v": 2, "a": 4, "r": 8}
STOP_WORDS = set("""i me my myself we our ours ourselves you you're you've you'll you'd your yours
yourself yourselves he him his himself she she's her hers herself it it's its itself they them
their theirs themselves what which who whom this that that'll these those am is are was were be
been being have has had having do does did doing a an the and but if or because as until while of
at by for with about against between into through during before after above below to from up down
in out on off over under again further then once here there when where why how all any both each
few more most other some such no nor not only own same so than too very s t can will just don
don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn
doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn
needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't""".split())


class Lexicon:
    """The compact WordNet lexicon corpus-eval embeds: synsets, lemmas with
    their parts of speech and synset ids, and the morphy exception lists."""

    def __init__(self, path):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines[0] != "corpus-eval-lexicon 1":
            raise SystemExit("%s: not a corpus-eval lexicon" % path)
        n = int(lines[2].split("\t")[1])
        self.synsets = lines[3:3 + n]
        at = 3 + n
        m = int(lines[at].split("\t")[1])
        self.lemmas = {}
        for line in lines[at + 1:at + 1 + m]:
            key, mask, ids = line.split("\t", 2)
            self.lemmas.setdefault(key, (int(mask), ids))
        at += 1 + m
        self.exceptions = {}
        for line in lines[at + 1:at + 1 + int(lines[at].split("\t")[1])]:
            f = line.split("\t")
            self.exceptions.setdefault(f[1], []).append((f[0][:1], f[2:]))
        self.forms_cache, self.enrich_cache = {}, {}

    def morphy(self, word, pos):
        """WordNet's morphy: the base forms of `word` in the index for `pos`."""
        out = []
        candidates = [word]
        exceptions = [bases for p, bases in self.exceptions.get(word, ()) if p == pos]
        if exceptions:
            candidates += [b for bases in exceptions for b in bases]
        else:
            candidates += [word[:-len(s)] + r for s, r in RULES[pos]
                           if word.endswith(s) and len(word) > len(s)]
        for c in candidates:
            entry = self.lemmas.get(c)
            if entry and entry[0] & POS_BIT[pos] and c not in out:
                out.append(c)
        return out

    def lemma_forms(self, word):
        """The word and its base forms over every part of speech."""
        forms = self.forms_cache.get(word)
        if forms is None:
            forms = [word]
            if not all(c in "0123456789." for c in word):
                for pos in "nvar":
                    forms += [f for f in self.morphy(word, pos) if f not in forms]
            self.forms_cache[word] = forms
        return forms

    def analyze(self, text):
        return [self.lemma_forms(t) for t in canonical_tokens(text)]

    def synonyms(self, value):
        """Every lemma of every synset of `value` or its base forms."""
        key = " ".join(w for w in re.split(WS_CLASS + "|_", value) if w).lower()
        keys = [key] + ([normalize(key)] if normalize(key) not in ("", key) else [])
        lemmas = []
        for k in keys:
            for pos in "nvar":
                lemmas += [f for f in self.morphy(k, pos) if f not in lemmas]
        out = []
        for lemma in lemmas:
            for sid in self.lemmas[lemma][1].split(" "):
                if sid.isdigit() and int(sid) < len(self.synsets):
                    out += [w for w in self.synsets[int(sid)].split("\t")[1:]
                            if w != key and w not in out]
        return out

    def enrich(self, value):
        """Synonyms (no one-letter forms, no stop words) then number forms."""
        if value not in self.enrich_cache:
            own = normalize(value)
            out = [s for s in self.synonyms(value)
                   if normalize(s) != own and len(normalize(s)) > 1 and normalize(s) not in STOP_WORDS]
            out += [f for f in number_forms(value) if f not in out and f != value]
            self.enrich_cache[value] = out
        return self.enrich_cache[value]


# ------------------------------------------------------------- scoring ----

class PhraseSet:
    """Each value's phrases (the value and its enrichments, as canonical
    tokens); a phrase occurs where each of its tokens is one of the lemma
    forms of consecutive answer tokens."""

    def __init__(self, values):
        self.count = len(values)
        self.phrases = []  # (value index, tokens)
        self.by_first = {}
        for vi, texts in enumerate(values):
            for text in texts:
                toks = phrase_tokens(text)
                if toks and (vi, toks) not in self.phrases:
                    self.by_first.setdefault(toks[0], []).append(len(self.phrases))
                    self.phrases.append((vi, toks))

    def matches(self, answer):
        """Which values have a phrase in the answer (lists of lemma forms)."""
        hit = [False] * self.count
        for i, forms in enumerate(answer):
            for form in forms:
                for p in self.by_first.get(form, ()):
                    vi, toks = self.phrases[p]
                    if not hit[vi] and i + len(toks) <= len(answer) and \
                            all(t in answer[i + j] for j, t in enumerate(toks) if j):
                        hit[vi] = True
        return hit

    def equals(self, part):
        """Which values have a phrase equal to the whole part."""
        hit = [False] * self.count
        for vi, toks in self.phrases:
            if len(toks) == len(part) and all(t in f for t, f in zip(toks, part)):
                hit[vi] = True
        return hit


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def json_text(v):
    """A JSON string, number or boolean as corpus-eval reads it as text
    (numbers as serde_json writes them: 5, 2.5, 1e16)."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int) and -2 ** 63 <= v < 2 ** 64:
        return str(v)
    x = float(v)
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    mant, _, e = repr(abs(x)).partition("e")
    whole, _, frac = mant.partition(".")
    digits = (whole + frac).lstrip("0")
    point = len(whole) + int(e or 0) - (len(whole + frac) - len(digits))
    digits = digits.rstrip("0")
    if len(digits) <= point <= 16:
        s = digits + "0" * (point - len(digits)) + ".0"
    elif 0 < point <= 16:
        s = digits[:point] + "." + digits[point:]
    elif -5 < point <= 0:
        s = "0." + "0" * -point + digits
    else:
        s = digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + "e" + str(point - 1)
    return ("-" if x < 0 else "") + s


def loads(text):
    """json.loads without NaN/Infinity, which serde_json rejects."""
    return json.loads(text, parse_constant=lambda name: float("x"))


def to_weight(v):
    """A number, or a string holding one (Rust's f64 syntax); finite."""
    if is_number(v):
        x = float(v) if abs(v) < 1e308 else math.inf
    elif isinstance(v, str) and re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", trim(v)):
        x = float(trim(v))
    else:
        raise ValueError("weight %r is not a number" % (v,))
    if not math.isfinite(x):
        raise ValueError("weight %r is not finite" % (v,))
    return x


YES_WORDS = ["yes", "y", "yeah", "yep", "true", "correct", "affirmative"]
NO_WORDS = ["no", "n", "nope", "false", "incorrect", "never"]


def word_polarity(word):
    return True if word in YES_WORDS else False if word in NO_WORDS else None


def polarity(answer):
    """The answer's normalized first word as a yes- or no-word."""
    return word_polarity(normalize(answer).split(" ")[0])


def unwrap_metric(metric):
    """A metric string holding JSON is parsed; other strings are trimmed."""
    if isinstance(metric, str):
        t = trim(metric)
        if t[:1] in ("{", "[", '"'):
            try:
                return loads(t)
            except ValueError:
                pass
        return t
    return metric


def expected_from(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and word_polarity(normalize(v)) is not None:
        return word_polarity(normalize(v))
    raise ValueError("expected yes or no, found %r" % (v,))


def parse_weighted(metric):
    """{"values": [...], "weights": [...]} or {"value": weight, ...}."""
    o = unwrap_metric(metric)
    if not isinstance(o, dict):
        raise ValueError("expected an object")
    if "values" in o or "weights" in o:
        values, weights = o.get("values"), o.get("weights")
        if not isinstance(values, list) or not isinstance(weights, list) or len(values) != len(weights):
            raise ValueError("values and weights must be lists of one length")
        if any(not (isinstance(v, str) and trim(v) or is_number(v)) for v in values):
            raise ValueError("a value is not a non-empty string")
        pairs = [(json_text(v), to_weight(w)) for v, w in zip(values, weights)]
    else:
        pairs = [(k, to_weight(w)) for k, w in o.items()]
    if not pairs or any(w < 0 for _, w in pairs) or any(not trim(v) for v, _ in pairs):
        raise ValueError("no values, a negative weight or an empty value")
    return pairs


def question_type(name):
    key = "".join(c.lower() for c in name if c.isalnum())
    return {"yesno": "Yes/No", "yesnowithrationale": "Yes/No with Rationale",
            "yesnorationale": "Yes/No with Rationale", "listone": "ListOne",
            "listmany": "ListMany", "pickone": "PickOne", "pickmany": "PickMany"}.get(key)


def compile_question(t, metric, lex):
    """The metric of a question of type `t`, parsed and enriched with
    WordNet synonyms and number forms; None when it does not parse."""
    try:
        if t == "Yes/No":
            m = unwrap_metric(metric)
            return {"expected": expected_from(m["expected"] if isinstance(m, dict) else m)}
        if t == "Yes/No with Rationale":
            o = unwrap_metric(metric)
            expected = expected_from(o["expected"])  # TypeError / KeyError when not there
            r = o.get("rationale")
            if not (r is None or isinstance(r, str) or isinstance(r, list)
                    and all(isinstance(k, str) or is_number(k) for k in r)):
                raise ValueError("rationale must be a list of keywords")
            keywords = [] if r is None else [r] if isinstance(r, str) else [json_text(k) for k in r]
            w = o.get("rationale_weight")
            weight = 0.5 if w is None else to_weight(w)
            if not 0.0 <= weight <= 1.0:
                raise ValueError("rationale_weight outside [0, 1]")
            return {"expected": expected, "weight": weight,
                    "keywords": PhraseSet([[k] + lex.enrich(k) for k in keywords])}
        pairs = parse_weighted(metric)
        return {"choices": [(v, w, normalize(v)) for v, w in pairs],
                "phrases": PhraseSet([[v] + lex.enrich(v) for v, _ in pairs])}
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def strip_article(s):
    for a in ("the ", "a ", "an "):
        if s.startswith(a):
            return s[len(a):]
    return s


def jaro_winkler(a, b):
    """strsim's jaro_winkler, over characters."""
    if not a or not b:
        return 1.0 if a == b else 0.0
    reach = max(max(len(a), len(b)) // 2 - 1, 0)
    a_flags, b_flags = [False] * len(a), [False] * len(b)
    matches = 0
    for i, c in enumerate(a):
        for j in range(max(i - reach, 0), min(len(b), i + reach + 1)):
            if c == b[j] and not b_flags[j]:
                a_flags[i] = b_flags[j] = True
                matches += 1
                break
    if matches == 0:
        return 0.0
    a_seq = [c for c, f in zip(a, a_flags) if f]
    b_seq = [c for c, f in zip(b, b_flags) if f]
    transpositions = sum(x != y for x, y in zip(a_seq, b_seq)) // 2
    sim = (matches / len(a) + matches / len(b) + (matches - transpositions) / matches) / 3.0
    if sim <= 0.7:
        return sim
    prefix = 0
    while prefix < min(4, len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    return sim + 0.1 * prefix * (1.0 - sim)


def pick_option(part, q, lex):
    """The option a part names: equal after normalization (a leading article
    aside), else equal to an enrichment, else the closest by Jaro-Winkler
    when >= 0.9."""
    norm = strip_article(normalize(part))
    if not norm:
        return None
    for i, (_, _, n) in enumerate(q["choices"]):
        if strip_article(n) == norm:
            return i
    hits = q["phrases"].equals(lex.analyze(norm))
    if True in hits:
        return hits.index(True)
    sims = [jaro_winkler(norm, strip_article(n)) for _, _, n in q["choices"]]
    best = sims.index(max(sims))
    return best if sims[best] >= 0.9 else None


def split_parts(answer, q, lex):
    """A PickMany answer's parts: a JSON array of strings, or the text split
    on , ; and newlines, then on " and " unless the segment names an option."""
    answer = trim(answer)
    if answer.startswith("["):
        try:
            items = loads(answer)
            return [json_text(v) for v in items if isinstance(v, str) or is_number(v)]
        except ValueError:
            pass
    parts = []
    for seg in re.split("[,;\n]", answer):
        seg = trim(seg)
        if not seg:
            continue
        if any(n == normalize(seg) for _, _, n in q["choices"]) or \
                any(q["phrases"].equals(lex.analyze(seg))):
            parts.append(seg)
            continue
        lower = seg.lower()
        if len(lower.encode()) != len(seg.encode()):  # case mapping changed the length
            pieces = seg.split(" and ")
        else:
            pieces, start = [], 0
            for m in re.finditer(" and ", lower):
                pieces.append(seg[start:m.start()])
                start = m.end()
            pieces.append(seg[start:])
        parts += [trim(p) for p in pieces if trim(p)]
    return parts


def score_answer(t, q, answer, lex):
    """One answer's score in [0, 1] (src/scoring/mod.rs)."""
    if t == "Yes/No":
        return 1.0 if polarity(answer) == q["expected"] else 0.0
    if t == "Yes/No with Rationale":
        if polarity(answer) != q["expected"]:
            return 0.0
        rest = lex.analyze(answer)[1:]
        keywords = q["keywords"]
        if keywords.count == 0:
            coverage = 1.0 if len(rest) >= 3 else 0.0
        else:
            coverage = sum(keywords.matches(rest)) / keywords.count
        return (1.0 - q["weight"]) + q["weight"] * coverage
    if t in ("ListOne", "ListMany"):
        matched = q["phrases"].matches(lex.analyze(answer))
    else:
        matched = [False] * len(q["choices"])
        for part in (split_parts(answer, q, lex) if t == "PickMany" else [answer]):
            i = pick_option(part, q, lex)
            if i is not None:
                matched[i] = True
    weights = [w for (_, w, _), m in zip(q["choices"], matched) if m]
    if t in ("ListOne", "PickOne"):
        score = min(weights) if weights else 0.0
    else:
        score = 0.0
        for w in weights:
            score += w
    # Clamped to [0, 1] and rounded to 12 decimals (half away from zero).
    x = min(max(score, 0.0), 1.0) * 1e12
    return (math.floor(x) + (x - math.floor(x) >= 0.5)) / 1e12


# -------------------------------------------------------------- quotes ----

def speaker_pattern():
    """corpus-eval's default speaker label, ^\\s*([\\p{Lu}][\\p{L}\\p{N} .'’-]{0,40}?)\\s*:\\s
    at line starts; Python's re has no \\p{..}, so the classes are built
    from unicodedata."""
    upper, letters = [], []
    for cp in range(0x32400):
        cat = unicodedata.category(chr(cp))
        for ranges, inside in ((upper, cat == "Lu"), (letters, cat[0] in "LN")):
            if inside and ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            elif inside:
                ranges.append([cp, cp])

    def cls(ranges):
        return "".join("\\U%08x-\\U%08x" % (a, b) for a, b in ranges)
    return re.compile("^%s*([%s][%s .'\u2019-]{0,40}?)%s*:%s"
                      % (WS_CLASS, cls(upper), cls(letters), WS_CLASS, WS_CLASS), re.M)


class Transcript:
    """A transcript's spoken text (speaker labels taken out), normalized
    once, and its labels as written in lower case."""

    def __init__(self, text, pattern):
        self.text = text
        self.marks, pieces, at = set(), [], 0
        for m in pattern.finditer(text):
            pieces.append(text[at:m.start()])
            self.marks.add(trim(m.group(0)).lower())
            at = m.end()
        self.spoken = "".join(pieces) + text[at:]
        self.norm = quote_normalize(self.spoken)
        self.whole_norm = None

    def found(self, quote):
        """Found exactly or normalized (src/citations/mod.rs check_avoiding)."""
        q = trim(quote)
        if not q:
            return False
        if q in self.spoken:
            return True
        nq = quote_normalize(q)
        if not nq:
            return False
        if nq in self.norm:
            return True
        if any(m and m in q.lower() for m in self.marks):  # a quote carrying a label
            if q in self.text:
                return True
            if self.whole_norm is None:
                self.whole_norm = quote_normalize(self.text)
            return nq in self.whole_norm
        return False


# ------------------------------------------------------------- summary ----

def mean(xs):
    total = 0.0
    for x in xs:
        total += x
    return total / len(xs)


RESAMPLES = 2000


def stat(xs, seed=42):
    """Mean, n and a 95% percentile-bootstrap interval (RESAMPLES
    resamples; none with 0)."""
    resamples = RESAMPLES
    if not xs:
        return {"mean": None, "n": 0, "ci_low": None, "ci_high": None}
    m = mean(xs)
    if resamples == 0:
        return {"mean": m, "n": len(xs), "ci_low": None, "ci_high": None}
    if len(xs) < 2:
        return {"mean": m, "n": 1, "ci_low": m, "ci_high": m}
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(xs, k=len(xs))) / len(xs) for _ in range(resamples))

    def percentile(p):
        rank = p * (len(means) - 1)
        lo, hi = math.floor(rank), math.ceil(rank)
        return means[lo] + (means[hi] - means[lo]) * (rank - lo)
    return {"mean": m, "n": len(xs), "ci_low": percentile(0.025), "ci_high": percentile(0.975)}


def grouped(groups):
    return {k: stat(groups[k]) for k in sorted(groups)}


# ---------------------------------------------------------------- main ----

def evaluate(questions_path, transcripts_path):
    t0 = time.time()
    here = os.path.dirname(os.path.abspath(__file__))
    lex = Lexicon(os.path.join(here, "..", "datasets", "wordnet-lexicon.txt.gz"))
    with open(questions_path, encoding="utf-8-sig") as f:
        doc = json.load(f)
    items = doc["qa_pairs"] if isinstance(doc, dict) else doc
    with open(transcripts_path, encoding="utf-8-sig") as f:
        doc = json.load(f)
    chunks = {}
    for c in (doc["documents"] if isinstance(doc, dict) else doc):
        chunks.setdefault(json_text(c["metadata"]["FILE"]), []).append(c["page_content"])
    texts = {name: "\n".join(parts) for name, parts in chunks.items()}
    pattern = speaker_pattern()
    transcripts, compiled, pairs = {}, {}, []
    t1 = time.time()
    for index, item in enumerate(items):
        q = item["question"]
        t = question_type(q["type"])
        key = (q["type"], json.dumps(q["metric"]))  # each distinct metric compiled once
        if key not in compiled:
            compiled[key] = compile_question(t, q["metric"], lex) if t else None
        cq = compiled[key]
        answers = []
        for a in item.get("answers") or []:
            text = "" if a.get("answer") is None else json_text(a["answer"])
            quotes = []
            for v in a.get("verbatims") or []:
                src = None if v.get("source") is None else json_text(v["source"])
                if src in texts and src not in transcripts:
                    transcripts[src] = Transcript(texts[src], pattern)
                quotes.append({"found": src in texts and transcripts[src].found(v["quote"]),
                               "source": src})
            answers.append({"score": score_answer(t, cq, text, lex) if cq else None,
                            "source": None if a.get("source") is None else json_text(a["source"]),
                            "quotes": quotes})
        found = [q["found"] for a in answers for q in a["quotes"]]
        pairs.append({"id": str(index) if item.get("id") is None else json_text(item["id"]),
                      "type": t, "answers": answers,
                      "existence_score": sum(found) / len(found) if found else None})
    t2 = time.time()
    by_source, by_quote_source, by_type, overall, existence = {}, {}, {}, [], []
    for p in pairs:
        if p["existence_score"] is not None:
            existence.append(p["existence_score"])
        for a in p["answers"]:
            if a["score"] is not None:
                overall.append(a["score"])
                by_source.setdefault(a["source"] or "(no source)", []).append(a["score"])
                by_type.setdefault(p["type"], []).append(a["score"])
            for q in a["quotes"]:
                by_quote_source.setdefault(q["source"] or "(no source)", []).append(float(q["found"]))
    summary = {"overall": stat(overall), "existence": stat(existence), "by_type": grouped(by_type),
               "transcript_average_scores": grouped(by_source),
               "verbatim_average_scores": grouped(by_quote_source)}
    print("load %.1f s, score and check %.1f s, summary (bootstrap) %.1f s"
          % (t1 - t0, t2 - t1, time.time() - t2), file=sys.stderr)
    return {"pairs": [{"id": p["id"], "existence_score": p["existence_score"],
                       "answers": [{"score": a["score"],
                                    "quotes": [{"found": q["found"]} for q in a["quotes"]]}
                                   for a in p["answers"]]} for p in pairs],
            "summary": summary}


def compare(result, results_path):
    """Prints how far the results agree with corpus-eval's results.json;
    True when they agree everywhere."""
    with open(results_path, encoding="utf-8-sig") as f:
        doc = json.load(f)
    theirs = doc["qa_pairs"] if isinstance(doc, dict) else doc
    counts = {"answers": 0, "scores": 0, "quotes": 0, "found": 0}
    bad = []
    if len(theirs) != len(result["pairs"]):
        bad.append("%d pairs here, %d there" % (len(result["pairs"]), len(theirs)))
    for mine, their in zip(result["pairs"], theirs):
        their_answers = their.get("answers") or []
        if len(their_answers) != len(mine["answers"]):
            bad.append("pair %s: %d answers here, %d there"
                       % (mine["id"], len(mine["answers"]), len(their_answers)))
        for ai, (a, b) in enumerate(zip(mine["answers"], their_answers)):
            counts["answers"] += 1
            s, o = a["score"], b.get("score")
            if s is None or o is None:
                same = s is None and o is None
            else:
                same = abs(s - o) <= 1e-9
            counts["scores"] += same
            if not same:
                bad.append("pair %s answer %d: score %r here, %r there; answer %r"
                           % (mine["id"], ai, s, o, b.get("answer")))
            verbatims = b.get("verbatims") or []
            if len(verbatims) != len(a["quotes"]):
                bad.append("pair %s answer %d: %d quotes here, %d there"
                           % (mine["id"], ai, len(a["quotes"]), len(verbatims)))
            for qi, (q, v) in enumerate(zip(a["quotes"], verbatims)):
                counts["quotes"] += 1
                counts["found"] += q["found"] == v.get("found")
                if q["found"] != v.get("found"):
                    bad.append("pair %s answer %d quote %d: found %r here, %r there (verdict %s); "
                               "quote %r in %r" % (mine["id"], ai, qi, q["found"], v.get("found"),
                                                  v.get("verdict"), v.get("quote"), v.get("source")))
    print("answers compared: {answers}, scores equal: {scores}\n"
          "quotes compared: {quotes}, found equal: {found}".format(**counts))
    print("mismatches: %d" % len(bad))
    for line in bad[:10]:
        print("  " + line)
    return not bad


def main():
    ap = argparse.ArgumentParser(description="Plain Python peer of `corpus-eval evaluate`.")
    ap.add_argument("questions")
    ap.add_argument("transcripts")
    ap.add_argument("out")
    ap.add_argument("--compare", metavar="RESULTS.json",
                    help="corpus-eval's results.json to check these results against")
    ap.add_argument("--resamples", type=int, default=2000,
                    help="bootstrap resamples of the intervals (0: means only)")
    args = ap.parse_args()
    global RESAMPLES
    RESAMPLES = args.resamples
    result = evaluate(args.questions, args.transcripts)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False)
    if args.compare and not compare(result, args.compare):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
