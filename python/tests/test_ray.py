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
                           partitions=4, transcript_partitions=3)
        assert ray.cluster_resources().get("CPU") == 2.0
        # Actors that would hold both CPUs (none left to read and write) are
        # refused at once, not left waiting for a CPU forever.
        with pytest.raises(ValueError, match="every CPU"):
            cer.evaluate(str(data / "questions.json"), str(data / "transcripts.json"), str(tmp_path / "ray2"),
                         threads=2)
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
        # An actor wider than every node could never be placed.
        with pytest.raises(ValueError, match="largest node has 1"):
            cer.evaluate((data / "questions.json").as_uri(), (data / "transcripts.json").as_uri(), out.as_uri(),
                         threads=2)
        with pytest.raises(ValueError, match="every CPU"):
            cer.evaluate((data / "questions.json").as_uri(), (data / "transcripts.json").as_uri(), out.as_uri(),
                         actors=3)
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


def _crossing_corpus(folder: Path) -> None:
    """Six transcripts and quotes that cross them: each quote cites one
    transcript and is found in its own, in one or two others (the first in
    corpus order wins), nowhere (fabricated), in pieces (stitched), altered
    in its own but verbatim in another (other_source wins), or cites an
    unknown transcript."""
    import random

    rng = random.Random(45)
    vocab = [f"{a}{b}" for a in ["ka", "lo", "mi", "nu", "pe", "ro", "si", "ta", "vu", "we"]
             for b in ["bar", "den", "fil", "gor", "hun", "jik", "mol", "nap", "rus", "tep"]]

    def sentence(n=10):
        return " ".join(rng.choice(vocab) for _ in range(n))

    n = 6
    own = [[sentence() for _ in range(5)] for _ in range(n)]
    shared = {(j, k): sentence() for j in range(n) for k in range(j + 1, n)}
    changed = []
    lines = [[] for _ in range(n)]
    for i in range(n):
        lines[i] += [f"Interviewer: Tell me about it.\nAnna: {s}." for s in own[i]]
    for (j, k), s in shared.items():
        lines[j].append(f"Anna: {s}.")
        lines[k].append(f"Bo: {s}.")
    for i in range(n):
        words = own[i][3].split()
        words[4] = "zzzchanged"
        changed.append(" ".join(words))
        lines[(i + 1) % n].append(f"Anna: {changed[i]}.")
    chunks = [{"page_content": "\n".join(lines[i][c::2]), "metadata": {"FILE": f"t{i}.txt"}}
              for i in range(n) for c in range(2)]
    quotes = []
    for i in range(n):
        src = f"t{i}.txt"
        quotes.append({"quote": own[i][0], "source": src})
        quotes.append({"quote": "entirely invented words that nobody ever said here", "source": src})
        quotes.append({"quote": " ".join(own[i][1].split()[:6] + own[i][2].split()[:6]), "source": src})
        quotes.append({"quote": own[i][3].replace(own[i][3].split()[4], "zzzchanged", 1), "source": src})
        for j in range(n):
            if j != i:
                quotes.append({"quote": own[j][1], "source": src})
        for (j, k), s in shared.items():
            quotes.append({"quote": s, "source": src})
    quotes.append({"quote": own[0][0], "source": "nope.txt"})
    pairs = []
    for p in range(0, len(quotes), 7):
        pairs.append({"id": f"p{p}", "question": {"text": "What?", "type": "ListOne", "metric": {"kabar": 1}},
                      "answers": [{"answer": "kabar", "source": quotes[p]["source"],
                                   "verbatims": quotes[p:p + 7]}]})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "questions.json").write_text(json.dumps({"qa_pairs": pairs}), encoding="utf-8")
    (folder / "transcripts.json").write_text(json.dumps(chunks), encoding="utf-8")
    # The same transcripts as a folder of text files.
    for i in range(n):
        (folder / "texts").mkdir(exist_ok=True)
        (folder / "texts" / f"t{i}.txt").write_text(
            "\n".join(c["page_content"] for c in chunks if c["metadata"]["FILE"] == f"t{i}.txt") + "\n",
            encoding="utf-8")


def test_issue_45_quotes_partitioned_by_transcript_equal_the_cli(tmp_path):
    """Quotes grouped by the partition of the transcript they cite, each
    partition checked alone, the not-found ones searched in the other
    partitions once: every quote's verdict, attribution, other_source and
    pieces, and the summary, equal the command line's, for 2, 3 and 6
    partitions of a chunk corpus and 3 of a folder of text files."""
    ray, cer = _ray()
    import pyarrow.parquet as pq
    from test_corpus_eval import cli, only_run_folder

    data = tmp_path / "data"
    _crossing_corpus(data)
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        for corpus, counts in (("transcripts.json", (2, 3, 6)), ("texts", (3,))):
            runs = f"runs-{corpus}"
            cli("evaluate", str(data / "questions.json"), str(data / corpus), "--no-plots", "--no-html",
                "--out", runs, cwd=tmp_path)
            folder = only_run_folder(tmp_path / runs)
            want = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
            results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
            want_quotes = [v for p in results["qa_pairs"] for a in p["answers"] for v in a["verbatims"]]
            kinds = {v["attribution"] for v in want_quotes}
            assert {"ok", "other_source", "fabricated", "stitched"} <= kinds, kinds
            for parts in counts:
                out = tmp_path / f"ray-{corpus}-{parts}"
                got = cer.evaluate(str(data / "questions.json"), str(data / corpus), str(out),
                                   transcript_partitions=parts)
                assert len(list((out / "transcripts").iterdir())) == parts
                assert got == want, (corpus, parts)
                rows = pq.read_table(out / "quotes").to_pylist()
                rows.sort(key=lambda r: (r["pair_index"], r["answer_index"], r["quote_index"]))
                assert len(rows) == len(want_quotes)
                for r, v in zip(rows, want_quotes):
                    assert (r["verdict"], r["attribution"]) == (v["verdict"], v["attribution"]), (parts, r, v)
                    assert (json.loads(r["other_source"]) if r["other_source"] else None) == v.get("other_source")
                    assert (json.loads(r["pieces"]) if r["pieces"] else None) == v.get("pieces"), (parts, r, v)
                    assert r["span_speaker"] == v["span_speaker"], (parts, r, v)
    finally:
        ray.shutdown()
