"""The Python package against the command line on the bundled sample data.

CORPUS_EVAL_BIN names the CLI binary (default: the repository's
target/debug/corpus-eval, which `cargo test` builds)."""

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

import corpus_eval

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("CORPUS_EVAL_BIN", str(REPO / "target" / "debug" / "corpus-eval"))


def load(rel):
    with open(REPO / rel, encoding="utf-8") as f:
        return json.load(f)


def cli(*args, cwd):
    out = subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def only_run_folder(parent):
    (folder,) = [p for p in Path(parent).iterdir() if p.is_dir() and not p.is_symlink()]
    return folder


def generated_run(tmp_path, scale):
    """The generated benchmark input at `scale` (scripts/gen-evaluate.py)
    under tmp_path/data, and the run folder of `corpus-eval evaluate` on it
    under tmp_path/runs."""
    data = tmp_path / "data"
    subprocess.run(["python3", str(REPO / "scripts/gen-evaluate.py"), str(data), "--scale", str(scale)],
                   check=True, capture_output=True)
    run = subprocess.run([BIN, "evaluate", str(data / "questions.json"), str(data / "transcripts.json"),
                          "--no-plots", "--no-html", "--out", "runs"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return data, only_run_folder(tmp_path / "runs")


def test_evaluate_equals_the_cli(tmp_path):
    q, t = "evaluation/data_fixture.json", "datasets/corpus.json"
    cli("evaluate", str(REPO / q), str(REPO / t), "--no-plots", "--no-html", "--out", "runs", cwd=tmp_path)
    folder = only_run_folder(tmp_path / "runs")
    out = corpus_eval.evaluate(load(q), load(t))
    assert out["results"] == json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert out["summary"] == json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    # A setting as a keyword argument, as the config file names it.
    exact = corpus_eval.evaluate(load(q), load(t), match="exact", seed=7)
    assert exact["summary"]["signature"] != out["summary"]["signature"]
    assert "match:exact" in exact["summary"]["signature"]


def test_score_answer_equals_the_cli(tmp_path):
    for answer, qtype, metric in [
        ("Yes, three meetings.", "Yes/No", "yes"),
        ("No.", "Yes/No", "yes"),
        ("Potatoes and leeks", "ListMany", ["potatoes", "leeks", "kale"]),
        ("whatever", "Unknown type", "yes"),
    ]:
        want = json.loads(
            cli("score", "--type", qtype, "--metric", metric if isinstance(metric, str) else json.dumps(metric),
                answer, "--json", cwd=tmp_path)
        )["score"]
        assert corpus_eval.score_answer(answer, qtype, metric) == want, (answer, qtype, metric)


def test_hotpot_equals_the_cli(tmp_path):
    p, g = "evaluation/hotpot/predictions.json", "evaluation/hotpot/gold.json"
    cli("hotpot", str(REPO / p), str(REPO / g), "--no-plots", "--out", "runs", cwd=tmp_path)
    folder = only_run_folder(tmp_path / "runs")
    out = corpus_eval.hotpot(load(p), load(g))
    assert out["metrics"] == json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    assert out["per_example"] == json.loads((folder / "per_example.json").read_text(encoding="utf-8"))
    _same_items(out, folder)


def _same_items(out, folder):
    """`.items` is the run folder's items.csv as a DataFrame; `.items()` is
    still the dict's items (issue 43)."""
    pd = pytest.importorskip("pandas")
    frame = out.items
    assert isinstance(frame, pd.DataFrame)
    want = pd.read_csv(folder / "items.csv", keep_default_na=False, na_values=[""])
    pd.testing.assert_frame_equal(pd.DataFrame(frame), want)
    assert dict(out.items()) == dict(out)


def test_similarity_and_embed_equal_the_cli(tmp_path):
    a, b = "The capital of France is London", "The capital of France is Paris"
    want = json.loads(cli("similarity", a, b, "--json", cwd=REPO))["similarity"]
    assert corpus_eval.similarity(a, b) == pytest.approx(want, abs=1e-12)
    vectors = corpus_eval.embed([a, b])
    assert vectors.shape == (2, 384)
    assert float(vectors[0] @ vectors[1]) == pytest.approx(want, abs=1e-6)


def test_errors_are_type_and_value_errors(tmp_path):
    q, t = load("evaluation/data_fixture.json"), load("datasets/corpus.json")
    with pytest.raises(TypeError, match="unknown field `bogus`"):
        corpus_eval.evaluate(q, t, bogus=1)
    with pytest.raises(TypeError, match="unknown field `nope`"):
        corpus_eval.text_eval([], nope=True)
    with pytest.raises(ValueError, match="qa_pairs"):
        corpus_eval.evaluate({"qa_pairs": 3}, t)
    with pytest.raises(ValueError, match="fuzzy-threshold"):
        corpus_eval.evaluate(q, t, fuzzy_threshold=1.5)
    with pytest.raises(ValueError, match="version 9"):
        corpus_eval.evaluate(q, t, version=9)
    with pytest.raises(ValueError):
        corpus_eval.hotpot([{"answer": "a"}], [])
    # The message is the command line's, the input named where it names the file.
    bad = {"qa_pairs": [{"id": "q7", "question": {"text": "Q?", "metric": "yes"}, "answers": []}]}
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    run = subprocess.run([BIN, "evaluate", "bad.json", str(REPO / "datasets/corpus.json"), "--out", "o"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 2
    cli_message = run.stderr.strip().removeprefix("error: ")
    with pytest.raises(ValueError) as err:
        corpus_eval.evaluate(bad, t)
    assert str(err.value) == cli_message.replace("bad.json", "questions")
    with pytest.raises(ValueError, match="unknown category"):
        corpus_eval.text_eval([{"id": "1", "category": "Gossip", "question": "q", "reference": "r", "response": "s"}],
                              no_embeddings=True)


def test_verify_quotes_equals_evaluates_quotes(tmp_path):
    q, t = "evaluation/data_fixture.json", "datasets/corpus.json"
    cli("evaluate", str(REPO / q), str(REPO / t), "--no-plots", "--no-html", "--out", "runs", cwd=tmp_path)
    results = json.loads((only_run_folder(tmp_path / "runs") / "results.json").read_text(encoding="utf-8"))
    quotes, want = [], []
    for pi, p in enumerate(results["qa_pairs"]):
        for ai, a in enumerate(p["answers"]):
            for k, v in enumerate(a.get("verbatims") or []):
                quotes.append({"id": f"{p['id']}/{ai}/{k}", "quote": v["quote"], "source": v.get("source"),
                               "speaker": v.get("speaker"), "answer": f"{pi}/{ai}"})
                fields = {key: v[key] for key in v if key not in ("quote", "source", "speaker")}
                want.append({"id": f"{p['id']}/{ai}/{k}", **fields})
    got = corpus_eval.verify_quotes(quotes, load(t))
    assert got == want
    # Through Arrow: the same fields, one row per quote, in order.
    pa = pytest.importorskip("pyarrow")
    import corpus_eval.arrow as A

    table = A.verify_quotes(pa.Table.from_pylist(quotes), load(t))
    assert table.column("id").to_pylist() == [w["id"] for w in want]
    for name in ["verdict", "found", "similarity", "span_speaker", "attribution"]:
        assert table.column(name).to_pylist() == [w[name] for w in want], name
    spans = [w["span"] for w in want]
    assert table.column("span_start").to_pylist() == [s and s["start"] for s in spans]
    assert table.column("span_end").to_pylist() == [s and s["end"] for s in spans]
    # Issue 40: what was ignored to find each quote, `;`-joined.
    assert table.column("differences").to_pylist() == \
        [None if w["differences"] is None else ";".join(w["differences"]) for w in want]
    assert any(w["differences"] for w in want)
    others = [json.dumps(w["other_source"]) if "other_source" in w else None for w in want]
    assert [o and json.loads(o) for o in table.column("other_source").to_pylist()] == \
        [o and json.loads(o) for o in others]
    # A batch, or a reader, works as well as a table.
    batch = pa.RecordBatch.from_pylist(quotes[:5])
    assert A.verify_quotes(batch, load(t)).num_rows == 5


def test_text_eval_grounding_lexical_agreement_equal_the_cli(tmp_path):
    rows = load("evaluation/text-eval/sample.json")
    cli("text-eval", str(REPO / "evaluation/text-eval/sample.json"), "--no-embeddings", "--out", "te", cwd=tmp_path)
    folder = only_run_folder(tmp_path / "te")
    out = corpus_eval.text_eval(rows, no_embeddings=True)
    assert out["results"] == json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert out["summary"] == json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    _same_items(out, folder)

    rows = load("evaluation/grounding/sample.json")
    cli("grounding", str(REPO / "evaluation/grounding/sample.json"), "--out", "g", cwd=tmp_path)
    folder = only_run_folder(tmp_path / "g")
    out = corpus_eval.grounding(rows)
    assert out["results"] == json.loads((folder / "grounding.json").read_text(encoding="utf-8"))
    assert out["summary"] == json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    _same_items(out, folder)

    pairs = REPO / "fixtures/lexical/pairs.jsonl"
    items = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    want = json.loads(cli("lexical", str(pairs), "--metric", "rouge1,rougeL,bleu,chrf,squad", "--json",
                          "--per-item", "per.jsonl", cwd=tmp_path))
    out = corpus_eval.lexical(items, metrics=["rouge1", "rougeL", "bleu", "chrf", "squad"])
    assert out["summary"] == want
    per = [json.loads(line) for line in (tmp_path / "per.jsonl").read_text(encoding="utf-8").splitlines()]
    assert out["items"] == per

    table = REPO / "fixtures/agreement/paradox.csv"
    want = json.loads(cli("agreement", str(table), "--id", "quote_id", "--json", cwd=tmp_path))
    import csv

    with open(table, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    got = corpus_eval.agreement(rows, id="quote_id")
    assert got == want
    cli("agreement", str(table), "--id", "quote_id", "--out", "ag", cwd=tmp_path)
    _same_items(got, only_run_folder(tmp_path / "ag"))
    assert len(corpus_eval.lexical(items, metrics=["rouge1"]).items) == len(items)


def test_score_answers_and_summarize_through_arrow_equal_the_cli(tmp_path):
    """The kernels a data engine calls, put back together, give evaluate's
    summary.json exactly (means, counts, intervals, signature)."""
    pa = pytest.importorskip("pyarrow")
    import corpus_eval.arrow as A

    q, t = "evaluation/data_fixture.json", "datasets/corpus.json"
    cli("evaluate", str(REPO / q), str(REPO / t), "--no-plots", "--no-html", "--out", "runs", cwd=tmp_path)
    folder = only_run_folder(tmp_path / "runs")
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    doc = load(q)
    pairs, answers, quotes = [], [], []
    for pi, p in enumerate(doc["qa_pairs"]):
        pid = str(p["id"]) if p.get("id") is not None else str(pi)
        pairs.append({"pair_index": pi, "id": pid, "type": p["question"]["type"],
                      "metric": json.dumps(p["question"]["metric"])})
        for ai, a in enumerate(p["answers"]):
            answers.append({"pair_index": pi, "answer_index": ai, "source": a.get("source"),
                            "answer": a.get("answer") or "", "type": p["question"]["type"],
                            "metric": json.dumps(p["question"]["metric"])})
            for k, v in enumerate(a.get("verbatims") or []):
                quotes.append({"pair_index": pi, "answer_index": ai, "quote_index": k, "quote": v["quote"],
                               "source": v.get("source"), "speaker": v.get("speaker"), "answer": f"{pi}/{ai}"})
    scored = A.score_answers(pa.Table.from_pylist(answers))
    want_scores = [a["score"] for p in results["qa_pairs"] for a in p["answers"]]
    assert scored.column("score").to_pylist() == want_scores
    checked = A.verify_quotes(pa.Table.from_pylist(quotes), load(t))
    # In any row order: reversed.
    answer_table = pa.Table.from_pylist([
        {"pair_index": a["pair_index"], "answer_index": a["answer_index"], "source": a["source"], "score": s}
        for a, s in zip(answers, want_scores)
    ])[::-1]
    quote_table = pa.Table.from_pylist([
        {"pair_index": qq["pair_index"], "answer_index": qq["answer_index"], "quote_index": qq["quote_index"],
         "source": qq["source"], "verdict": c["verdict"], "found": c["found"], "attribution": c["attribution"]}
        for qq, c in zip(quotes, checked.to_pylist())
    ])[::-1]
    summary = A.summarize(pa.Table.from_pylist(pairs), answer_table, quote_table)
    assert summary == json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    # Issue 45: summaries from partial aggregates. The pairs split into
    # ranges, each range's summary parts made from its rows alone and
    # combined in any order, give the same summary.json.
    import pyarrow.compute as pc

    pair_table = pa.Table.from_pylist(pairs)
    n = len(pairs)
    for cuts in ([0, n], [0, n // 3, n // 2, n], [0, 1, 2, n - 1, n]):
        parts = []
        for lo, hi in zip(cuts, cuts[1:]):
            def keep(t):
                return t.filter(pc.and_(pc.greater_equal(t["pair_index"], lo), pc.less(t["pair_index"], hi)))
            parts.append(A.summary_parts(keep(pair_table), keep(answer_table), keep(quote_table)))
        assert A.combine(parts[::-1]) == summary, cuts
    with pytest.raises(ValueError, match="at least one"):
        A.combine([])
    with pytest.raises(ValueError, match="summary part 0"):
        A.combine(["{}"])
    # Issue 45: with the pairs' counts (item_tables writes them), rows lost
    # or doubled are a ValueError naming the pairs, not a smaller summary.

    counted, _, _ = A.item_tables(doc)
    assert A.summarize(counted, answer_table, quote_table) == summary
    last = quotes[-1]
    lost = quote_table.filter(pc.invert(pc.and_(
        pc.equal(quote_table["pair_index"], last["pair_index"]),
        pc.equal(quote_table["answer_index"], last["answer_index"]))))
    with pytest.raises(ValueError, match=r"rows lost or doubled: 1 pair\(s\).*quotes expected"):
        A.summarize(counted, answer_table, lost)
    trailing = [a for a in answers if a["pair_index"] == answers[-1]["pair_index"]]
    if len(trailing) > 1:
        fewer = answer_table.filter(pc.invert(pc.and_(
            pc.equal(answer_table["pair_index"], trailing[-1]["pair_index"]),
            pc.equal(answer_table["answer_index"], trailing[-1]["answer_index"]))))
        kept = quote_table.filter(pc.invert(pc.and_(
            pc.equal(quote_table["pair_index"], trailing[-1]["pair_index"]),
            pc.equal(quote_table["answer_index"], trailing[-1]["answer_index"]))))
        with pytest.raises(ValueError, match="answers expected"):
            A.summarize(counted, fewer, kept)


def _generated(tmp_path, scale):
    data = tmp_path / f"gen-{scale}"
    subprocess.run(["python3", str(REPO / "scripts/gen-evaluate.py"), str(data), "--scale", str(scale)],
                   check=True, capture_output=True)
    return (data / "questions.json").read_text(encoding="utf-8"), (data / "transcripts.json").read_text(encoding="utf-8")


def test_the_gil_is_released_while_the_core_works(tmp_path):
    """While one thread is inside the core, this thread keeps running Python
    (it could not, were the GIL held), and two threads are inside the core
    at once: their calls overlap."""
    import sys
    import time

    questions, transcripts = _generated(tmp_path, 0.5)
    corpus_eval.evaluate(questions, transcripts)  # the lexicon loaded beforehand
    span = {}

    def work(name):
        span[name + "0"] = time.perf_counter()
        span[name] = corpus_eval.evaluate(questions, transcripts)
        span[name + "1"] = time.perf_counter()

    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        worker = threading.Thread(target=work, args=("a",))
        worker.start()
        stamps = []
        while worker.is_alive():
            stamps.append(time.perf_counter())
        worker.join()
        inside = sum(1 for s in stamps if span["a0"] < s < span["a1"])
        # Two threads in the core at once.
        threads = [threading.Thread(target=work, args=(n,)) for n in ("b", "c")]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        sys.setswitchinterval(previous)
    assert inside > 1000, inside
    assert span["b0"] < span["c1"] and span["c0"] < span["b1"]
    assert span["b"] == span["c"] == span["a"]


def test_a_pandas_round_trip():
    pd = pytest.importorskip("pandas")
    out = corpus_eval.evaluate(load("evaluation/data_fixture.json"), load("datasets/corpus.json"))
    frame = pd.DataFrame(out["results"]["qa_pairs"])
    assert len(frame) == out["summary"]["counts"]["pairs"]
    assert {"id", "existence_score", "answers"} <= set(frame.columns)
    answers = pd.json_normalize(out["results"]["qa_pairs"], record_path="answers", meta=["id"])
    assert len(answers) == out["summary"]["counts"]["answers"]
    assert answers["score"].mean() == pytest.approx(out["summary"]["overall"]["mean"], abs=1e-12)


def test_issue_39_nan_and_infinity_name_the_field():
    q = load("evaluation/data_fixture.json")
    t = load("datasets/corpus.json")
    with pytest.raises(ValueError, match=r"config\.fuzzy_threshold: nan is not a finite number"):
        corpus_eval.evaluate(q, t, fuzzy_threshold=float("nan"))
    with pytest.raises(ValueError, match=r"items\[1\]\.score: inf is not a finite number"):
        corpus_eval.lexical([{"prediction": "a", "reference": "a"}, {"prediction": "b", "reference": "b", "score": float("inf")}])
    bad = json.loads(json.dumps(q))
    bad["qa_pairs"][0]["answers"][0]["weight"] = float("-inf")
    with pytest.raises(ValueError, match=r"questions\.qa_pairs\[0\]\.answers\[0\]\.weight: -inf"):
        corpus_eval.evaluate(bad, t)


def test_issue_43_transcript_files_times_and_dataframes():
    pd = pytest.importorskip("pandas")
    q = load("datasets/interview-questions.json")
    vtt = REPO / "datasets" / "interview" / "harbour.vtt"
    out = corpus_eval.evaluate(q, vtt)
    first = out["results"]["qa_pairs"][0]["answers"][0]["verbatims"][0]
    assert (first["verdict"], first["time"]) == ("exact", {"start": 4.5, "end": 9.0})
    quotes = out.quotes
    assert isinstance(quotes, pd.DataFrame)
    assert list(quotes["time_start"][:2]) == [4.5, 11.5]
    assert pd.isna(quotes["time_start"][2])
    assert len(out.items) == 1
    assert sorted(k for k, _ in out.items()) == ["results", "summary"]
    # A str path, a whisperX file with its speaker map, a project.
    mapped = corpus_eval.evaluate(q, str(REPO / "datasets/interview/harbour.json"),
                                  speaker_map="SPEAKER_00=Interviewer,SPEAKER_01=Ana Lopez")
    assert mapped.quotes["attribution"][0] == "ok"
    corpus = corpus_eval.Corpus(REPO / "datasets/interview/harbour.qdpx")
    assert corpus.files() == ["harbour"]
    checked = corpus_eval.verify_quotes([{"quote": "after the cannery closed", "source": "harbour"}], corpus)
    assert checked[0]["time"]["start"] == 6.8
    assert checked.quotes["time_start"][0] == 6.8
    # The same through a path given to verify_quotes.
    again = corpus_eval.verify_quotes([{"quote": "after the cannery closed", "source": "harbour"}],
                                      REPO / "datasets/interview/harbour.srt")
    assert again[0]["time"] == {"start": 6.8, "end": 9.0}
    # Nothing is written: out= is refused, not ignored.
    with pytest.raises(TypeError, match="out"):
        corpus_eval.evaluate(q, vtt, out="runs")
    # A bad file is a ValueError naming it and the line.
    with pytest.raises(ValueError, match=r"bad\.srt:2:"):
        bad = REPO / "target" / "bad.srt"
        bad.parent.mkdir(exist_ok=True)
        bad.write_text("1\nno timing\nhi\n", encoding="utf-8")
        corpus_eval.Corpus(bad)


def test_issue_44_check_report_returns_the_records_of_the_cli(tmp_path):
    sample = REPO / "evaluation" / "check-report"
    records = corpus_eval.check_report(sample / "report.md", sample / "transcripts",
                                       sources=sample / "sources.csv")
    assert [r["quote_id"] for r in records[:2]] == ["q1", "q2"]
    classes = sorted(r["attribution"] for r in records)
    assert classes.count("ok") == 6 and "fabricated" in classes and "stitched" in classes
    # The same records as the CLI's results.json.
    out = tmp_path / "runs"
    subprocess.run([BIN, "check-report", str(sample / "report.md"), str(sample / "transcripts"),
                    "--sources", str(sample / "sources.csv"), "--out", str(out)], check=True,
                   capture_output=True)
    folder = next(out.iterdir())
    cli = json.loads((folder / "results.json").read_text(encoding="utf-8"))["quotes"]
    assert records == cli
    # The report as text, the .docx, a Corpus, settings.
    text = (sample / "report.md").read_text(encoding="utf-8")
    assert corpus_eval.check_report(text, str(sample / "transcripts"),
                                    sources=str(sample / "sources.csv")) == records
    docx = corpus_eval.check_report(sample / "report.docx", corpus_eval.Corpus(sample / "transcripts"),
                                    sources=sample / "sources.csv")
    assert [r["attribution"] for r in docx] == [r["attribution"] for r in records]
    assert corpus_eval.check_report("He said “we never went back”.", sample / "transcripts", min_words=9) == []
    with pytest.raises(ValueError, match="min_words|--min-words"):
        corpus_eval.check_report(text, sample / "transcripts", min_words=0)
    with pytest.raises(TypeError):
        corpus_eval.check_report(42, sample / "transcripts")


def _python_blocks():
    """Every ```python block of the README and the docs/ chapters."""
    blocks = []
    for md in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        for i, part in enumerate(text.split("```python\n")[1:]):
            blocks.append(pytest.param(part.split("```", 1)[0], id=f"{md.name}-{i}"))
    return blocks


@pytest.mark.parametrize("code", _python_blocks())
def test_every_python_example_of_the_docs_runs_as_written(code, monkeypatch):
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    monkeypatch.chdir(REPO)
    exec(compile(code, "<docs>", "exec"), {"__name__": "__docs__"})


def test_item_tables_are_read_by_the_core_loader():
    """Issue 45: the question file is flattened by the Rust core (the CLI's
    loader): ids as the CLI writes them (a number as its JSON text, the
    position when absent), counts per pair, the answer key of every quote,
    and a bad document is a ValueError naming the file, the record and the
    field, as the CLI's exit-2 message does."""
    import corpus_eval.arrow as A

    doc = {"qa_pairs": [
        {"id": 7, "question": {"text": "Q1", "type": "Yes/No", "metric": "yes"},
         "answers": [{"answer": "Yes", "source": "a.txt",
                      "verbatims": [{"quote": "x y", "source": "a.txt", "speaker": "Ann"},
                                    {"quote": "z", "source": "b.txt"}]},
                     {"answer": None}]},
        {"question": {"text": "Q2", "type": "Multiple Choice", "metric": {"a": 1}}, "answers": []},
    ]}
    pairs, answers, quotes = A.item_tables(doc)
    assert pairs.schema == A.PAIRS_SCHEMA()
    assert answers.schema == A.ANSWERS_SCHEMA()
    assert quotes.schema == A.QUOTES_SCHEMA()
    assert pairs.column("id").to_pylist() == ["7", "1"]
    assert pairs.column("answers").to_pylist() == [2, 0]
    assert pairs.column("quotes").to_pylist() == [2, 0]
    assert [json.loads(m) for m in pairs.column("metric").to_pylist()] == ["yes", {"a": 1}]
    assert answers.column("answer").to_pylist() == ["Yes", ""]
    assert answers.column("source").to_pylist() == ["a.txt", None]
    assert quotes.column("answer").to_pylist() == ["0/0", "0/0"]
    assert quotes.column("speaker").to_pylist() == ["Ann", None]
    assert quotes.column("quote_index").to_pylist() == [0, 1]
    # The text and the document give the same tables.
    assert A.item_tables(json.dumps(doc))[2].equals(quotes)
    bad = {"qa_pairs": [{"question": {"text": "Q", "metric": "yes"}}]}
    with pytest.raises(ValueError, match=r"q\.json.*question\.type"):
        A.item_tables(bad, "q.json")
    with pytest.raises(ValueError, match=r"q\.json"):
        A.item_tables("{not json", "q.json")


def test_chunk_corpora_split_by_transcript_load_as_their_transcripts(tmp_path):
    """Issue 45: the Ray partitioning task's native split of a JSON chunk
    corpus: FILE names in the corpus's order, each partition file loads as
    exactly its transcripts of the whole corpus, and bad corpora are a
    ValueError naming the file and the chunk."""
    from corpus_eval import _native

    src = REPO / "datasets" / "corpus.json"
    whole = corpus_eval.Corpus(str(src))
    names, sizes = _native.chunk_files(str(src))
    assert names == whole.files() and len(names) > 2
    assert _native.transcript_files(str(src)) == names
    assert all(s > 0 for s in sizes)
    doc = json.loads(src.read_text(encoding="utf-8-sig"))
    chunks = doc if isinstance(doc, list) else doc["documents"]
    for name, size in zip(names, sizes):
        assert size == sum(len(c["page_content"].encode("utf-8")) for c in chunks if c["metadata"]["FILE"] == name)
    partition_of = {n: k % 2 for k, n in enumerate(names)}
    dests = [str(tmp_path / f"part-{k}.json") for k in range(2)]
    _native.write_chunk_partitions(str(src), partition_of, dests)
    for k, dest in enumerate(dests):
        mine = json.loads(open(dest, encoding="utf-8").read())
        assert mine == [c for c in chunks if partition_of[c["metadata"]["FILE"]] == k]
        assert corpus_eval.Corpus(dest).files() == [n for n in names if partition_of[n] == k]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"page_content": "x", "metadata": {}}]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json: chunk 0: field `metadata\.FILE`: expected a string"):
        _native.chunk_files(str(bad))
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json:1:2: "):
        _native.chunk_files(str(bad))
    with pytest.raises(ValueError, match="has no partition"):
        _native.write_chunk_partitions(str(src), {}, dests)


def test_issue_53_12_a_mistyped_path_is_an_error_not_a_document(tmp_path):
    transcripts = tmp_path / "t.txt"
    transcripts.write_text("Ana: we left in the spring of that year.\n")
    # A report path that names no file: refused, not read as text.
    for missing in ["/nonexistent/report.md", "notes/report.docx", tmp_path / "gone.md"]:
        with pytest.raises(FileNotFoundError):
            corpus_eval.check_report(missing, str(transcripts))
    # A transcripts path that names nothing.
    with pytest.raises(FileNotFoundError):
        corpus_eval.Corpus(str(tmp_path / "no-such-folder"))
    # Text stays text.
    checks = corpus_eval.check_report("Ana said “we left in the spring of that year” (t.txt).", str(transcripts))
    assert [q["verdict"] for q in checks] == ["exact"]
    for bad in [42, 4.2, None, object()]:
        with pytest.raises(TypeError):
            corpus_eval.Corpus(bad)


def test_issue_54_the_formats_come_from_the_readers_table(tmp_path):
    formats = corpus_eval.TRANSCRIPT_FORMATS
    for ext in [".txt", ".md", ".vtt", ".srt", ".docx", ".qdpx", ".json"]:
        assert ext in formats, formats
    assert "AssemblyAI" in formats[".json"]
    # A label style of a real export, read in Python as the CLI reads it.
    t = tmp_path / "zoom.txt"
    t.write_text("Dana Whitfield (Interviewer): Why did you leave?\nAna Lopez (SL): We left in the spring of 1987.\n")
    checks = corpus_eval.verify_quotes(
        [{"quote": "We left in the spring of 1987.", "source": "zoom.txt", "speaker": "Dana Whitfield"},
         {"quote": "Why did you leave?", "source": "zoom.txt", "speaker": "Ana Lopez"}],
        str(t),
    )
    assert [c["attribution"] for c in checks] == ["wrong_speaker", "interviewer"]


def test_issue_56_transcript_aliases_are_the_loaders_rule(tmp_path):
    from corpus_eval import _native

    ids = ["wave2/IS-004.txt", "b.vtt", "b.srt", "c", "c.txt", "d/e.f/g", ".hidden", "x.y.z"]
    assert _native.transcript_aliases(ids) == {"wave2/IS-004": "wave2/IS-004.txt", "x.y": "x.y.z"}
    assert _native.transcript_aliases([]) == {}
    # The loaders find a transcript by the same stems: a folder of two files.
    (tmp_path / "IS-004.txt").write_text("Ana: We left in May.\n", encoding="utf-8")
    (tmp_path / "IS-005.txt").write_text("Ben: The boats stayed.\n", encoding="utf-8")
    names = _native.transcript_files(str(tmp_path))
    assert _native.transcript_aliases(names) == {"IS-004": "IS-004.txt", "IS-005": "IS-005.txt"}


def test_issue_56_class_constants_come_from_the_one_list():
    from corpus_eval import ray as ce_ray

    assert list(corpus_eval.VERDICTS)[:3] == ["exact", "normalized", "edited"]
    assert "fabricated" in corpus_eval.ATTRIBUTIONS and "sic" in corpus_eval.DIFFERENCES
    assert all(isinstance(v, str) and v for v in corpus_eval.ATTRIBUTIONS.values())
    assert ce_ray._MISSING == ("other_source", "altered", "stitched", "paraphrase", "fabricated")
    # Every attribution results.json gives is a listed one.
    out = corpus_eval.evaluate(load("datasets/interview-questions.json"), REPO / "datasets" / "interview" / "harbour.vtt")
    seen = {
        v["attribution"]
        for p in out["results"]["qa_pairs"]
        for a in p["answers"]
        for v in a["verbatims"]
        if v.get("attribution")
    }
    assert seen and seen <= set(corpus_eval.ATTRIBUTIONS)
    verdicts = {v["verdict"] for p in out["results"]["qa_pairs"] for a in p["answers"] for v in a["verbatims"]}
    assert verdicts <= set(corpus_eval.VERDICTS)


def test_issue_57_meaning_on_every_quote_record():
    t = {"documents": [{"page_content": "Ana: We sometimes checked the nets before the storm, and I would not change a thing.",
                        "metadata": {"FILE": "a.txt"}}]}
    out = corpus_eval.verify_quotes(
        [{"quote": "We always checked the nets before the storm, and I would not change a thing", "source": "a.txt"},
         {"quote": "We sometimes checked the nets before the storm", "source": "a.txt"}],
        json.dumps(t), match="fuzzy")
    assert out[0]["meaning"] == [{"class": "quantifier", "quote": "always", "source": "sometimes"}]
    assert out[0]["attribution"] == "altered" and out[0]["found"] is True
    assert out[1]["meaning"] == [] and out[1]["attribution"] == "ok"
    assert list(corpus_eval.MEANINGS) == ["negation", "number", "quantifier", "hedge", "person", "antonym"]


def test_issue_57_a_quotes_cited_place():
    t = {"documents": [{"page_content": "Interviewer: And then?\nAna: We sold the boats in the spring.",
                        "metadata": {"FILE": "a.txt"}}]}
    out = corpus_eval.verify_quotes(
        [{"quote": "We sold the boats in the spring", "source": "a.txt", "line": 2},
         {"quote": "We sold the boats in the spring", "source": "a.txt", "line": "1"},
         {"quote": "We sold the boats in the spring", "source": "a.txt", "time": "00:01:00"}],
        json.dumps(t))
    assert out[0]["attribution"] == "ok"
    assert out[0]["location"] == {"unit": "lines", "cited": [2, 2], "found": 2, "delta": 0}
    assert out[1]["attribution"] == "wrong_location" and out[1]["location"]["delta"] == 1
    # No times in the transcript: the place is not checked.
    assert out[2]["attribution"] == "ok"
    assert out[2]["location"] == {"unit": "seconds", "cited": 60.0, "found": None, "delta": None}
    assert "wrong_location" in corpus_eval.ATTRIBUTIONS and "paraphrase" in corpus_eval.ATTRIBUTIONS
    with pytest.raises(ValueError, match="time"):
        corpus_eval.verify_quotes([{"quote": "We sold", "source": "a.txt", "time": "soon"}], json.dumps(t))


def _check_report_run(runs):
    """check-report on the bundled sample report, its run folder under
    `runs`."""
    sample = REPO / "evaluation" / "check-report"
    subprocess.run([BIN, "check-report", str(sample / "report.md"), str(sample / "transcripts"),
                    "--sources", str(sample / "sources.csv"), "--out", str(runs), "--no-html"],
                   check=True, capture_output=True)
    return next(runs.iterdir())


def test_issue_58_export_qdpx_from_a_run_folder(tmp_path):
    import zipfile
    run = _check_report_run(tmp_path / "runs")
    out = tmp_path / "out.qdpx"
    done = corpus_eval.export_qdpx(run, out)
    assert done["sources"] == 3 and done["selections"] > 5
    with zipfile.ZipFile(out) as z:
        project = z.read("project.qde").decode("utf-8")
    assert 'name="corpus-eval ' in project and "<PlainTextSelection " in project
    with pytest.raises(ValueError, match="manifest.json"):
        corpus_eval.export_qdpx(tmp_path, tmp_path / "x.qdpx")


def _pyrefiqda():
    """pyrefiqda (an independent REFI-QDA reader), or a skip saying why;
    CORPUS_EVAL_REQUIRE_PYREFIQDA=1 (set by .ci/run) makes its absence a
    failure."""
    try:
        import pyrefiqda
    except ImportError:
        if os.environ.get("CORPUS_EVAL_REQUIRE_PYREFIQDA") == "1":
            pytest.fail("pyrefiqda is required (CORPUS_EVAL_REQUIRE_PYREFIQDA=1) but not installed")
        pytest.skip("pyrefiqda is not installed (pip install pyrefiqda)")
    return pyrefiqda


def _read_back(pyrefiqda, qdpx, extract):
    """The project as pyrefiqda reads it: the tool's user, every code by
    GUID, and each selection as (source name, selection name, its text as
    the source's characters from startPosition to endPosition, its codes'
    names, its codings' users)."""
    project = pyrefiqda.RefiProject.load(qdpx, extract_dir=str(extract))
    users = {u.guid: u.name for u in project.users.user}
    codes = {}

    def walk(code):
        codes[code.guid] = code.name
        for child in code.code:
            walk(child)

    for code in project.code_book.codes.code:
        walk(code)
    out = []
    for source in project.sources.text_source:
        path = pyrefiqda.RefiProject.resolve_source_path(source.plain_text_path, extract)
        text = path.read_text(encoding="utf-8")
        for sel in source.plain_text_selection:
            assert 0 <= sel.start_position < sel.end_position <= len(text), sel.name
            out.append((source.name, sel.name, text[sel.start_position:sel.end_position],
                        [codes[c.code_ref.target_guid] for c in sel.coding],
                        {users[c.creating_user] for c in sel.coding}))
    return users, out


def test_issue_58_an_independent_reader_reads_the_export(tmp_path):
    """pyrefiqda reads both samples' exports: one user, `corpus-eval
    <version>`, made every coding; each exact quote's selection, read as the
    source's characters (Python's str indexes code points, as the standard
    counts), is the quote's span text, and each edited quote's segments are
    their own selections; the sources hold non-ASCII names before quotes."""
    pyrefiqda = _pyrefiqda()
    run = _check_report_run(tmp_path / "report")
    corpus_eval.export_qdpx(run, tmp_path / "report.qdpx")
    users, got = _read_back(pyrefiqda, tmp_path / "report.qdpx", tmp_path / "x1")
    version = subprocess.run([BIN, "--version"], check=True, capture_output=True, text=True).stdout.split()[-1]
    assert list(users.values()) == [f"corpus-eval {version}"]
    assert all(u == set(users.values()) for *_, u in got)
    by_name = {name: (said, codes) for _, name, said, codes, _ in got}
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    exact = edited = 0
    for q in results["quotes"]:
        if q["verdict"] == "exact":
            said, codes = by_name[q["quote_id"]]
            assert said == q["text"], q["quote_id"]
            assert "exact" in codes and q["attribution"] in codes
            exact += 1
        if q["verdict"] == "edited":
            for k, piece in enumerate(q["pieces"]):
                assert by_name[f"{q['quote_id']} piece {k + 1}"][0] == piece["text"]
            edited += 1
    assert exact > 3 and edited >= 1
    # The README sample (an evaluate run): every exact verbatim stands in a
    # selection, sources with `Bérénice`, `Jürgen`, `Núria` before them.
    subprocess.run([BIN, "evaluate", str(REPO / "evaluation" / "data_fixture.json"),
                    str(REPO / "datasets" / "corpus.json"), "--out", str(tmp_path / "eval"),
                    "--no-plots", "--no-html", "--no-progress"], check=True, capture_output=True)
    run = next((tmp_path / "eval").iterdir())
    corpus_eval.export_qdpx(run, tmp_path / "eval.qdpx")
    _, got = _read_back(pyrefiqda, tmp_path / "eval.qdpx", tmp_path / "x2")
    said = {s for _, _, s, _, _ in got}
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    quotes = [v["quote"].strip() for p in results["qa_pairs"] for a in p["answers"]
              for v in a.get("verbatims") or [] if v["verdict"] == "exact"]
    assert len(quotes) > 20 and all(q in said for q in quotes)
    assert any(source.startswith(("FR-068", "DE-012")) for source, *_ in got)


def test_issue_57_arrow_quotes_with_a_cited_place():
    import pyarrow as pa
    from corpus_eval import arrow as ce_arrow
    t = {"documents": [{"page_content": "Interviewer: And then?\nAna: We sold the boats in the spring.",
                        "metadata": {"FILE": "a.txt"}}]}
    batch = pa.table({"quote": ["We sold the boats in the spring"] * 2, "source": ["a.txt"] * 2,
                      "line": ["2", "1"]})
    out = ce_arrow.verify_quotes(batch, json.dumps(t)).to_pylist()
    assert [r["attribution"] for r in out] == ["ok", "wrong_location"]
    assert json.loads(out[1]["location"]) == {"unit": "lines", "cited": [1, 1], "found": 2, "delta": 1}
    plain = ce_arrow.verify_quotes(batch.drop_columns(["line"]), json.dumps(t))
    assert "location" not in plain.column_names


def _two_coder_project(path):
    """A REFI-QDA project where Alice and Bob coded one source (non-ASCII
    text, positions in characters)."""
    import zipfile

    text = "Ana López: Im Frühling 1987, nachdem die Fabrik schloss. Es gab kein Geld.\n"
    users = {"Alice": "00000000-0000-4000-8000-0000000000a1", "Bob": "00000000-0000-4000-8000-0000000000b1"}
    codes = {"Leaving": "00000000-0000-4000-8000-0000000000c1", "Money": "00000000-0000-4000-8000-0000000000c2"}

    def at(needle):
        s = text.index(needle)
        return s, s + len(needle)

    marks = [("Alice", "Leaving", *at("Im Frühling 1987, nachdem die Fabrik schloss.")),
             ("Bob", "Leaving", *at("Im Frühling 1987")),
             ("Alice", "Money", *at("kein Geld")), ("Bob", "Money", *at("kein Geld"))]
    selections = "".join(
        f'<PlainTextSelection guid="00000000-0000-4000-8000-00000000010{i}" startPosition="{s}" '
        f'endPosition="{e}" creatingUser="{users[u]}"><Coding guid="00000000-0000-4000-8000-00000000020{i}" '
        f'creatingUser="{users[u]}"><CodeRef targetGUID="{codes[c]}"/></Coding></PlainTextSelection>'
        for i, (u, c, s, e) in enumerate(marks))
    qde = ('<?xml version="1.0" encoding="utf-8"?><Project name="p" xmlns="urn:QDA-XML:project:1.0"><Users>'
           + "".join(f'<User guid="{g}" name="{n}"/>' for n, g in users.items())
           + "</Users><CodeBook><Codes>"
           + "".join(f'<Code guid="{g}" name="{n}" isCodable="true"/>' for n, g in codes.items())
           + '</Codes></CodeBook><Sources><TextSource guid="00000000-0000-4000-8000-000000000301" name="ana" '
           + f'plainTextPath="internal://ana.txt">{selections}</TextSource></Sources></Project>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("project.qde", qde)
        z.writestr("sources/ana.txt", text)
    return path


def test_issue_58_span_agreement_returns_the_codes_as_a_dataframe(tmp_path):
    project = _two_coder_project(tmp_path / "p.qdpx")
    got = corpus_eval.span_agreement([project], resamples=0)
    assert (got["first"]["coder"], got["second"]["coder"]) == ("Alice", "Bob")
    codes = got.codes
    assert list(codes["code"]) == ["Leaving", "Money"]
    leaving = codes.iloc[0]
    # 45 characters (ü counts one) against Bob's 16 inside them.
    assert (leaving["chars_first"], leaving["chars_second"], leaving["chars_both"]) == (45, 16, 16)
    assert leaving["precision"] == 1.0 and abs(leaving["recall"] - 16 / 45) < 1e-12
    assert codes.iloc[1]["unitized_alpha"] == 1.0
    assert got["unitized_alpha"]["value"] == pytest.approx(float(got["unitized_alpha"]["value"]))
    assert got["signature"].startswith("agreement:spans|")
    # The CLI gives the same figures.
    cli = json.loads(subprocess.run([BIN, "agreement", "--spans", str(project), "--resamples", "0", "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    assert cli["codes"] == got["codes"] and cli["unitized_alpha"] == got["unitized_alpha"]
    with pytest.raises(ValueError, match="no coder `Dave`"):
        corpus_eval.span_agreement([project], coders=["Alice", "Dave"])


def test_issue_58_a_run_on_a_project_exports_it_with_the_coders_codings_kept(tmp_path):
    """A run on a coder's project exports that project with the tool's
    codings added; pyrefiqda reads Alice's and Bob's selections as they
    were, and the tool's as the quote's text."""
    pyrefiqda = _pyrefiqda()
    project = _two_coder_project(tmp_path / "p.qdpx")
    (tmp_path / "report.md").write_text('# R\n\nAna López said: "nachdem die Fabrik schloss. Es gab kein Geld."\n',
                                        encoding="utf-8")
    subprocess.run([BIN, "check-report", str(tmp_path / "report.md"), str(project), "--out",
                    str(tmp_path / "runs"), "--no-html"], check=True, capture_output=True)
    done = corpus_eval.export_qdpx(tmp_path / "runs" / "latest", tmp_path / "out.qdpx")
    assert done["selections"] == 1
    _, before = _read_back(pyrefiqda, project, tmp_path / "x1")
    users, after = _read_back(pyrefiqda, tmp_path / "out.qdpx", tmp_path / "x2")
    version = subprocess.run([BIN, "--version"], check=True, capture_output=True, text=True).stdout.split()[-1]
    assert sorted(users.values()) == sorted(["Alice", "Bob", f"corpus-eval {version}"])
    humans = [s for s in after if f"corpus-eval {version}" not in s[4]]
    assert humans == before
    tool = [s for s in after if s[4] == {f"corpus-eval {version}"}]
    assert [s[2] for s in tool] == ["nachdem die Fabrik schloss. Es gab kein Geld."]


def test_issue_58_span_agreement_writes_a_run_folder_with_out(tmp_path):
    project = _two_coder_project(tmp_path / "p.qdpx")
    got = corpus_eval.span_agreement([project], resamples=0, out=str(tmp_path / "agr"))
    folder = next(p for p in (tmp_path / "agr").iterdir() if p.name != "latest")
    written = json.loads((folder / "agreement.json").read_text(encoding="utf-8"))
    assert written["codes"] == got["codes"]
    assert (folder / "codes.csv").read_text(encoding="utf-8").startswith("code,unitized_alpha,")
