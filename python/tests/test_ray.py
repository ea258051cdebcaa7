"""examples/ray_evaluate.py on Ray Data in local mode (2 CPUs) against the
command line, on a generated input of 20,000 answers: the summary must be
equal (means, counts, intervals, signature), and every answer's score and
every quote's verdict. Skipped only when Ray cannot be imported (the reason
is printed with `pytest -rs`)."""

import csv
import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _example():
    spec = importlib.util.spec_from_file_location("ray_evaluate", REPO / "examples" / "ray_evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ray_pipeline_equals_the_cli(tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed: pip install 'ray[data]'")
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed")
    from test_corpus_eval import generated_run

    data, folder = generated_run(tmp_path, 0.5)
    want = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert want["counts"]["answers"] >= 20_000

    import ray

    example = _example()
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        got = example.run(str(data / "questions.json"), str(data / "transcripts.json"), str(tmp_path / "ray"),
                          num_cpus=2, items="parquet")
    finally:
        ray.shutdown()
    assert got == want
    assert json.loads((tmp_path / "ray" / "summary.json").read_text(encoding="utf-8")) == want

    # Item by item, against the run folder's tables.
    answers = pq.read_table(tmp_path / "ray" / "answers").to_pylist()
    answers.sort(key=lambda r: (r["pair_index"], r["answer_index"]))
    with open(folder / "items.csv", encoding="utf-8", newline="") as f:
        items = list(csv.DictReader(f))
    assert len(answers) == len(items)
    for a, row in zip(answers, items):
        assert a["score"] == (float(row["score"]) if row["score"] else None), row
    quotes = pq.read_table(tmp_path / "ray" / "quotes").to_pylist()
    quotes.sort(key=lambda r: (r["pair_index"], r["answer_index"], r["quote_index"]))
    with open(folder / "quotes.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(quotes) == len(rows)
    for q, row in zip(quotes, rows):
        assert (q["verdict"], q["attribution"] or "") == (row["verdict"], row["attribution"]), row
        assert str(q["span_start"] if q["span_start"] is not None else "") == row["span_start"], row


def test_issue_45_the_example_joins_a_running_cluster(tmp_path):
    """On a machine where a Ray cluster runs, the example joins it
    (`address="auto"`) instead of failing on `ray.init(num_cpus=...)`, and
    gives the CLI's summary."""
    pytest.importorskip("ray", reason="Ray is not installed: pip install 'ray[data]'")
    pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed")
    import os
    import sys

    from test_corpus_eval import generated_run

    data, folder = generated_run(tmp_path, 0.05)
    want = json.loads((folder / "summary.json").read_text(encoding="utf-8"))

    import ray

    cli = str(Path(sys.executable).parent / "ray")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    started = subprocess.run([cli, "start", "--head", "--num-cpus", "2", "--include-dashboard", "false"],
                             capture_output=True, text=True, env=env)
    assert started.returncode == 0, started.stderr
    try:
        got = _example().run(str(data / "questions.json"), str(data / "transcripts.json"), str(tmp_path / "ray"),
                             num_cpus=1, items="parquet")
        # Joined the running cluster (its 2 CPUs), not a new local one of 1.
        assert ray.cluster_resources().get("CPU") == 2.0
    finally:
        ray.shutdown()
        subprocess.run([cli, "stop", "--force"], capture_output=True, env=env)
    assert got == want
