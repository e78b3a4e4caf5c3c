"""Beyond one machine, in local mode: the recipes of docs/scale-out.md (files under
examples/scale_out, imported here as a user runs them) on Spark and Ray.

- Counts folded per partition by Spark (the shipped SQL query, and ``mapInArrow``
  with verdict's fold) and by Ray Data (``map_batches``) rank as the raw log does —
  bootstrap included, every number equal — on the bundled GenAI-Arena log and on a
  generated log of a million battles split over several files.
- Predictions of a model fitted through the text encoder, made by Spark and by Ray
  over a Parquet table of prompts, equal ``verdict predict``'s Parquet output in
  every value (each float to the bit).

The engines are installed by ``scripts/setup.sh``; without them (or without Java, for
Spark) these tests are skipped, saying so — except under CI, where that is a failure."""

from __future__ import annotations

import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import verdict_arena as verdict
from _support import GENAI, ROOT, cli

sys.path.insert(0, str(ROOT / "examples" / "scale_out"))


def _engine(module: str):
    """The engine's module; under CI its absence fails the test instead of skipping."""
    if os.environ.get("CI"):
        return __import__(module)
    return pytest.importorskip(module, reason=f"{module} is not installed: run `bash scripts/setup.sh`")


@pytest.fixture(scope="module")
def spark():
    _engine("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        if os.environ.get("CI"):
            pytest.fail("Spark needs Java: run `bash scripts/setup.sh`")
        pytest.skip("Spark needs Java (a JDK 17 or later): run `bash scripts/setup.sh`")
    import spark_leaderboard

    session = spark_leaderboard.local_session()
    yield session
    session.stop()


@pytest.fixture(scope="module")
def ray_local():
    ray = _engine("ray")
    import ray_leaderboard

    ray_leaderboard.local_ray()
    yield ray
    ray.shutdown()


SETTINGS = dict(bootstrap=200, seed=9, as_frame=False)


def _board(battles, method: str = "bt", **reading) -> dict:
    """The leaderboard's numbers (without the label of its source)."""
    board = verdict.rank(battles, method, **SETTINGS, **reading)
    board.pop("source")
    return board


#: The pairs of the generated log's 24 models.
PAIRS = 24 * 23 // 2


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    """A million battles among 24 models (Bradley–Terry strengths with ties), as four
    Parquet files of a directory, and the raw log's board."""
    directory = tmp_path_factory.mktemp("million")
    rng = np.random.default_rng(17)
    models = np.array([f"model-{i:02d}" for i in range(24)])
    strength = rng.normal(0, 1, len(models))
    per_file = 250_000
    for part in range(4):
        a = rng.integers(0, len(models), per_file)
        b = (a + rng.integers(1, len(models), per_file)) % len(models)
        p = 1 / (1 + np.exp(strength[b] - strength[a]))
        u = rng.random(per_file)
        winner = np.where(u < 0.1, "tie", np.where(u < 0.1 + 0.9 * p, "model_a", "model_b"))
        table = pa.table({"model_a": models[a], "model_b": models[b], "winner": winner})
        pq.write_table(table, directory / f"part-{part}.parquet", row_group_size=100_000)
    return directory, _board(str(directory))


@pytest.mark.parametrize("method", ["bt", "lottery"])
def test_spark_counts_of_the_genai_arena_log_rank_as_the_log(spark, method):
    import spark_leaderboard

    battles = spark_leaderboard.read_log(spark, str(GENAI))
    from_log = _board(str(GENAI), method, skip_self_battles=True, allow_unobserved=True)
    by_sql = spark_leaderboard.counts_by_sql(spark, battles)
    by_arrow = spark_leaderboard.counts_by_arrow(battles.repartition(3), skip_self_battles=True)
    assert by_arrow.num_rows > by_sql.num_rows / 2  # three partitions' counts, unmerged
    assert _board(by_sql, method, allow_unobserved=True) == from_log
    assert _board(by_arrow, method, allow_unobserved=True) == from_log
    # Merged on the driver, the partitions' counts are the log's counts.
    assert verdict.battle_counts(by_arrow).equals(verdict.battle_counts(str(GENAI), skip_self_battles=True))


def test_spark_counts_of_a_million_battles_rank_as_the_log(spark, million):
    import spark_leaderboard

    directory, from_log = million
    battles = spark_leaderboard.read_log(spark, str(directory))
    assert _board(spark_leaderboard.counts_by_sql(spark, battles)) == from_log
    by_arrow = spark_leaderboard.counts_by_arrow(battles)
    assert by_arrow.num_rows > PAIRS  # several partitions' counts, merged by rank
    assert _board(by_arrow) == from_log
    assert from_log["battles"] == 1_000_000


def test_ray_counts_rank_as_the_log(ray_local, million):
    import ray.data
    import ray_leaderboard

    directory, from_log = million
    by_ray = ray_leaderboard.counts(ray.data.read_parquet(str(directory)).repartition(4))
    assert by_ray.num_rows > PAIRS
    assert _board(by_ray) == from_log
    log = json.loads(GENAI.read_text())
    genai = ray.data.from_arrow(
        pa.Table.from_pylist([{k: battle[k] for k in ("model_a", "model_b", "winner")} for battle in log])
    )
    by_ray = ray_leaderboard.counts(genai.repartition(3), skip_self_battles=True)
    assert _board(by_ray, allow_unobserved=True) == _board(str(GENAI), skip_self_battles=True, allow_unobserved=True)


def test_a_partition_its_filter_empties_folds_to_no_rows():
    battles = pa.table({"model_a": ["x"], "model_b": ["y"], "winner": ["model_a"], "lang": ["fr"]})
    assert verdict.battle_counts(battles, filter={"lang": "en"}).num_rows == 0
    assert list(verdict.fold_counts(iter([]))) == []
    with pytest.raises(verdict.errors.InputError, match="battles itself"):
        verdict.battle_counts(pa.table({"model_a": ["x"], "model_b": ["x"], "winner": ["tie"]}))


@pytest.fixture(scope="module")
def router(tmp_path_factory):
    """A model fitted on prompts through the bundled text encoder, 2,000 held-out
    prompts as three Parquet files, and ``verdict predict``'s Parquet output for them."""
    from test_text_encoder import ENCODER, _prompt, _topic_battles

    if not ENCODER.is_dir():
        pytest.skip(f"{ENCODER} is missing: run `bash scripts/setup.sh`")
    directory = tmp_path_factory.mktemp("router")
    rng = random.Random(5)
    model = directory / "router.json"
    cli("fit", "--battles", str(_topic_battles(directory, rng)), "--text-col", "prompt",
        "--encoder", str(ENCODER), "--backbone", "linear", "--policy", "solver", "--folds", "3",
        "--out", str(model))
    prompts = directory / "prompts"
    prompts.mkdir()
    ids = [f"p{i:04d}" for i in range(2000)]
    texts = [_prompt(i % 2, rng) for i in range(2000)]
    for part in range(3):
        pq.write_table(pa.table({"context_id": ids[part::3], "prompt": texts[part::3]}),
                       prompts / f"part-{part}.parquet")
    whole = directory / "prompts.parquet"
    pq.write_table(pa.table({"context_id": ids, "prompt": texts}), whole)
    expected = directory / "predicted.parquet"
    cli("predict", str(model), "--contexts", str(whole), "--encoder", str(ENCODER), "--format", "parquet",
        "--out", str(expected))
    return model, prompts, ENCODER, pq.read_table(expected)


def _sorted(table: pa.Table) -> pa.Table:
    return table.sort_by("context_id").combine_chunks()


def test_spark_predictions_are_verdict_predicts(spark, router):
    import spark_predict

    model, prompts, encoder, expected = router
    predicted = spark_predict.predict(spark.read.parquet(str(prompts)), str(model), str(encoder)).toArrow()
    assert _sorted(predicted).cast(expected.schema).equals(_sorted(expected))
    assert predicted.num_rows == 2000
    # An empty batch (an engine may hand one over) predicts to no rows, not an error.
    predictor = verdict.BatchPredictor(model, encoder=encoder)
    assert predictor(pq.read_table(prompts).slice(0, 0)).num_rows == 0


def test_ray_predictions_are_verdict_predicts(ray_local, router):
    import ray.data
    import ray_predict

    model, prompts, encoder, expected = router
    dataset = ray_predict.predict(ray.data.read_parquet(str(prompts)), str(model), str(encoder), actors=2)
    predicted = pa.concat_tables(ray_local.get(dataset.to_arrow_refs()))
    assert _sorted(predicted).cast(expected.schema).equals(_sorted(expected))


def test_duckdb_counts_of_a_million_battles_rank_as_the_log(million):
    import duckdb
    import duckdb_leaderboard

    directory, from_log = million
    counts = duckdb_leaderboard.counts(duckdb.connect(), str(directory / "*.parquet"))
    assert _board(counts) == from_log
    # The recipe as a user runs it, printing the board.
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "scale_out" / "duckdb_leaderboard.py"),
         str(directory / "*.parquet"), "--bootstrap", "200", "--seed", "9"],
        check=True, capture_output=True, text=True,
    )
    printed = json.loads(run.stdout)
    printed.pop("source")
    assert printed == from_log


def test_every_recipe_of_the_page_is_a_file_these_tests_run():
    page = (ROOT / "docs" / "scale-out.md").read_text()
    recipes = sorted(p.name for p in (ROOT / "examples" / "scale_out").glob("*.py"))
    named = set(re.findall(r"examples/scale_out/(\w+\.py)", page))
    assert named <= set(recipes)
    assert all(recipe in page for recipe in recipes)
    tests = pathlib.Path(__file__).read_text()
    for recipe in recipes:
        assert f"import {recipe.removesuffix('.py')}" in tests, recipe
