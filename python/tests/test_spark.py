"""examples/spark_evaluate.py (mapInArrow, local[2]) against the command
line: the same summary. Skipped only when PySpark cannot be imported or no
Java runtime is found (the reason is printed with `pytest -rs`)."""

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_spark_pipeline_equals_the_cli(tmp_path):
    pytest.importorskip("pyspark", reason="PySpark is not installed: pip install pyspark")
    pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    if shutil.which("java") is None:
        pytest.skip("no Java runtime (Spark needs Java 17)")
    from test_corpus_eval import BIN, only_run_folder

    data = tmp_path / "data"
    subprocess.run(["python3", str(REPO / "scripts/gen-evaluate.py"), str(data), "--scale", "0.1"],
                   check=True, capture_output=True)
    run = subprocess.run([BIN, "evaluate", str(data / "questions.json"), str(data / "transcripts.json"),
                          "--no-plots", "--no-html", "--out", "runs"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    want = json.loads((only_run_folder(tmp_path / "runs") / "summary.json").read_text(encoding="utf-8"))

    spec = importlib.util.spec_from_file_location("spark_evaluate", REPO / "examples" / "spark_evaluate.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    got = example.run(str(data / "questions.json"), str(data / "transcripts.json"), str(tmp_path / "spark"))
    assert got == want
