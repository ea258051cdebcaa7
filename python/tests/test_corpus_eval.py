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
    (folder,) = [p for p in Path(parent).iterdir() if p.is_dir()]
    return folder


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


def test_similarity_and_embed_equal_the_cli(tmp_path):
    a, b = "The capital of France is London", "The capital of France is Paris"
    want = json.loads(cli("similarity", a, b, "--json", cwd=REPO))["similarity"]
    assert corpus_eval.similarity(a, b) == pytest.approx(want, abs=1e-12)
    vectors = corpus_eval.embed([a, b])
    assert vectors.shape == (2, 384)
    assert float(vectors[0] @ vectors[1]) == pytest.approx(want, abs=1e-6)


def test_errors_are_type_and_value_errors():
    q, t = load("evaluation/data_fixture.json"), load("datasets/corpus.json")
    with pytest.raises(TypeError, match="unknown field `bogus`"):
        corpus_eval.evaluate(q, t, bogus=1)
    with pytest.raises(ValueError, match="qa_pairs"):
        corpus_eval.evaluate({"qa_pairs": 3}, t)
    with pytest.raises(ValueError, match="fuzzy-threshold"):
        corpus_eval.evaluate(q, t, fuzzy_threshold=1.5)
    with pytest.raises(ValueError):
        corpus_eval.hotpot([{"answer": "a"}], [])


def test_the_gil_is_released_while_the_core_works():
    """Threads hand the GIL to each other every few microseconds here, so
    this thread counts only a little while the worker runs Python; it
    counts for the whole call (seconds: millions) only when the core has
    released the GIL."""
    import sys

    texts = [f"Sentence number {k} about the community garden and its harvest." for k in range(3000)]
    corpus_eval.embed(texts[:1])  # the model loaded before the measured call
    entered = threading.Event()
    done = threading.Event()
    result = {}

    def work():
        entered.set()
        result["out"] = corpus_eval.embed(texts)
        done.set()

    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        entered.wait()
        ticks = 0
        while not done.is_set():
            ticks += 1
        worker.join()
    finally:
        sys.setswitchinterval(previous)
    assert result["out"].shape == (3000, 384)
    assert ticks > 1_000_000, ticks


def test_a_pandas_round_trip():
    pd = pytest.importorskip("pandas")
    out = corpus_eval.evaluate(load("evaluation/data_fixture.json"), load("datasets/corpus.json"))
    frame = pd.DataFrame(out["results"]["qa_pairs"])
    assert len(frame) == out["summary"]["counts"]["pairs"]
    assert {"id", "existence_score", "answers"} <= set(frame.columns)
    answers = pd.json_normalize(out["results"]["qa_pairs"], record_path="answers", meta=["id"])
    assert len(answers) == out["summary"]["counts"]["answers"]
    assert answers["score"].mean() == pytest.approx(out["summary"]["overall"]["mean"], abs=1e-12)
