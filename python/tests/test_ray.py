"""`corpus_eval.ray.evaluate` against the command line, on generated input:
in local mode, on a running cluster it joins, and on a three-node cluster
(`ray.cluster_utils.Cluster`: a head and two workers) with `file://`
inputs. The summary must be equal (means, counts, intervals, signature),
and every answer's score and every quote's verdict; a lost partition is
caught. Skipped only when Ray cannot be imported (the reason is printed
with `pytest -rs`)."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _ray():
    pytest.importorskip("ray", reason="Ray is not installed: pip install 'ray[data]'")
    pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed")
    import ray

    import corpus_eval.ray

    return ray, corpus_eval.ray


def _check_items(out: Path, folder: Path) -> None:
    """Every answer's score and every quote's verdict equal the run
    folder's, one row per item."""
    import pyarrow.parquet as pq

    answers = pq.read_table(out / "answers").to_pylist()
    answers.sort(key=lambda r: (r["pair_index"], r["answer_index"]))
    with open(folder / "items.csv", encoding="utf-8", newline="") as f:
        items = list(csv.DictReader(f))
    assert len(answers) == len(items)
    for a, row in zip(answers, items):
        assert a["score"] == (float(row["score"]) if row["score"] else None), row
    quotes = pq.read_table(out / "quotes").to_pylist()
    quotes.sort(key=lambda r: (r["pair_index"], r["answer_index"], r["quote_index"]))
    with open(folder / "quotes.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(quotes) == len(rows)
    for q, row in zip(quotes, rows):
        assert (q["verdict"], q["attribution"] or "") == (row["verdict"], row["attribution"]), row
        assert str(q["span_start"] if q["span_start"] is not None else "") == row["span_start"], row


def test_ray_module_equals_the_cli_in_local_mode(tmp_path):
    ray, cer = _ray()
    from test_corpus_eval import generated_run

    data, folder = generated_run(tmp_path, 0.5)
    want = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert want["counts"]["answers"] >= 20_000
    try:
        # Already connected: the module uses this cluster as it is.
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        got = cer.evaluate(str(data / "questions.json"), str(data / "transcripts.json"), str(tmp_path / "ray"),
                           partitions=4)
        assert ray.cluster_resources().get("CPU") == 2.0
    finally:
        ray.shutdown()
    assert got == want
    assert json.loads((tmp_path / "ray" / "summary.json").read_text(encoding="utf-8")) == want
    _check_items(tmp_path / "ray", folder)


def test_issue_45_three_nodes_file_uris_and_a_lost_partition(tmp_path):
    """A head and two worker nodes; inputs and output as file:// URIs;
    rows in = rows out; the summary from partial aggregates (any split)
    equals the CLI's; doubled rows, and one answers file removed, make the
    summary fail naming the pairs."""
    ray, cer = _ray()
    from ray.cluster_utils import Cluster

    import corpus_eval.arrow as cea
    import pyarrow.parquet as pq
    from test_corpus_eval import generated_run

    data, folder = generated_run(tmp_path, 0.05)
    want = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    out = tmp_path / "cluster"
    try:
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 3
        got = cer.evaluate((data / "questions.json").as_uri(), (data / "transcripts.json").as_uri(), out.as_uri(),
                           partitions=6, batch_size=512)
        assert got == want
        _check_items(out, folder)
        pairs = pq.read_table(out / "items" / "pairs.parquet")
        answers = pq.read_table(out / "answers")
        quotes = pq.read_table(out / "quotes")
        assert answers.num_rows == want["counts"]["answers"]
        assert quotes.num_rows == sum(pairs.column("quotes").to_pylist())
        # The summary again, from other splits of the pairs into parts.
        for partitions in (1, 5):
            assert cer.summarize(out.as_uri(), partitions=partitions) == want
        # Parts made with other settings do not combine under these.
        with pytest.raises(ValueError, match="other settings"):
            cea.combine([cea.summary_parts(pairs, answers, quotes, seed=7)])
        # Doubled rows (a retried task written twice) are caught.
        doubled = out / "answers" / "doubled.parquet"
        pq.write_table(answers.slice(0, 3), doubled)
        with pytest.raises(ValueError, match="pair"):
            cer.summarize(out.as_uri())
        doubled.unlink()
        # A lost partition: one of the answers files gone.
        files = sorted((out / "answers").iterdir())
        assert len(files) >= 2, files
        files[0].unlink()
        with pytest.raises(ValueError, match="pair"):
            cer.summarize(out.as_uri())
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_issue_45_joins_a_running_cluster(tmp_path):
    """Not connected, on a machine where a Ray cluster runs: the module
    joins it (`address="auto"`) instead of starting one, and gives the
    CLI's summary; the example is a thin caller of the module."""
    ray, cer = _ray()
    from test_corpus_eval import generated_run

    data, folder = generated_run(tmp_path, 0.05)
    want = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    cli = str(Path(sys.executable).parent / "ray")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    started = subprocess.run([cli, "start", "--head", "--num-cpus", "3", "--include-dashboard", "false"],
                             capture_output=True, text=True, env=env)
    assert started.returncode == 0, started.stderr
    try:
        assert not ray.is_initialized()
        got = cer.evaluate(str(data / "questions.json"), str(data / "transcripts.json"), str(tmp_path / "ray"))
        # Joined the running cluster (its 3 CPUs), not a new local one.
        assert ray.cluster_resources().get("CPU") == 3.0
        ray.shutdown()
        example = subprocess.run([sys.executable, str(REPO / "examples" / "ray_evaluate.py"),
                                  str(data / "questions.json"), str(data / "transcripts.json"),
                                  str(tmp_path / "example")], capture_output=True, text=True, env=env)
        assert example.returncode == 0, example.stderr
    finally:
        ray.shutdown()
        subprocess.run([cli, "stop", "--force"], capture_output=True, env=env)
    assert got == want
    assert json.loads((tmp_path / "example" / "summary.json").read_text(encoding="utf-8")) == want
