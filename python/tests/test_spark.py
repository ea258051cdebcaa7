"""examples/spark_evaluate.py (mapInArrow, local[2]) against the command
line: the same summary. Skipped only when PySpark cannot be imported or no
Java runtime is found (the reason is printed with `pytest -rs`)."""

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_spark_pipeline_equals_the_cli(tmp_path):
    pytest.importorskip("pyspark", reason="PySpark is not installed: pip install pyspark")
    pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    if shutil.which("java") is None:
        pytest.skip("no Java runtime (Spark needs Java 17)")
    from test_corpus_eval import generated_run

    data, folder = generated_run(tmp_path, 0.1)
    want = json.loads((folder / "summary.json").read_text(encoding="utf-8"))

    spec = importlib.util.spec_from_file_location("spark_evaluate", REPO / "examples" / "spark_evaluate.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    got = example.run(str(data / "questions.json"), str(data / "transcripts.json"), str(tmp_path / "spark"))
    assert got == want
