"""NashEval from Python against the command line: the same simulation files, model
files byte for byte (from paths and from frames), the same predictions, payoffs and
evaluation; the interpreter released during a fit; bad input named."""

from __future__ import annotations

import json
import threading
import time

import pytest

import verdict_arena as verdict
from _support import cli, cli_json, ctrl_c_delivered

pd = pytest.importorskip("pandas")

# Small and quick: the solver policy, three folds.
SETTINGS = {"policy": "solver", "folds": 3}
FLAGS = ["--policy", "solver", "--folds", "3"]


@pytest.fixture(scope="module")
def simulation(tmp_path_factory):
    out = tmp_path_factory.mktemp("nasheval") / "sim"
    return verdict.simulate(out, contexts=1500, test_contexts=300, seed=5, rho=0.001)


@pytest.fixture(scope="module")
def fitted(simulation):
    return verdict.NashEval(**SETTINGS).fit(
        simulation.path("contexts.parquet"), simulation.path("feedback.parquet")
    )


def test_simulate_writes_the_command_lines_files(simulation, tmp_path):
    out = tmp_path / "cli-sim"
    cli("simulate", "--contexts", "1500", "--test-contexts", "300", "--seed", "5", "--rho", "0.001", "--out", str(out))
    for name in ("contexts.parquet", "feedback.parquet", "test_contexts.parquet", "truth.parquet", "test_truth.parquet"):
        assert (out / name).read_bytes() == open(simulation.path(name), "rb").read(), name
    assert json.loads((out / "manifest.json").read_text()) == simulation.manifest
    assert len(simulation.contexts) == 1500 and len(simulation.test_contexts) == 300


def test_model_files_are_byte_identical_to_verdict_fits(simulation, fitted, tmp_path):
    cli(
        "fit", "--contexts", simulation.path("contexts.parquet"),
        "--feedback", simulation.path("feedback.parquet"), *FLAGS, "--out", str(tmp_path / "cli.json"),
    )
    fitted.save(tmp_path / "paths.json")
    from_frames = verdict.NashEval(**SETTINGS).fit(simulation.contexts, simulation.feedback)
    from_frames.save(tmp_path / "frames.json")
    expected = (tmp_path / "cli.json").read_bytes()
    assert (tmp_path / "paths.json").read_bytes() == expected
    assert (tmp_path / "frames.json").read_bytes() == expected


def test_every_setting_of_verdict_fit_gives_the_same_model_from_python(simulation, tmp_path):
    # A value other than the default for each setting the command line has, the
    # policy network's included, and the oracle variant reading the simulation's truth.
    settings = {
        "outcome_backbone": "linear", "propensity_backbone": "linear", "payoff_backbone": "gbdt",
        "linear_penalty": 2.0, "payoff_regression": "per-pair", "aggregator": "cubic:1",
        "propensity_floor": 0.05, "propensity_floor_share": 0.1, "network_init": "random",
        "hidden": 8, "learning_rate": 1e-2, "weight_decay": 1e-4, "batch_size": 64,
        "max_epochs": 5, "patience": 2, "folds": 3, "seed": 4,
    }
    flags = [
        "--outcome-backbone", "linear", "--propensity-backbone", "linear", "--payoff-backbone", "gbdt",
        "--linear-penalty", "2", "--payoff-regression", "per-pair", "--aggregator", "cubic:1",
        "--propensity-floor", "0.05", "--propensity-floor-share", "0.1", "--network-init", "random",
        "--hidden", "8", "--learning-rate", "0.01", "--weight-decay", "0.0001", "--batch-size", "64",
        "--max-epochs", "5", "--patience", "2", "--folds", "3", "--seed", "4",
    ]
    log = ["--contexts", simulation.path("contexts.parquet"), "--feedback", simulation.path("feedback.parquet")]
    for variant, extra, oracle in (("debiased", [], {}), ("oracle", ["--truth", simulation.directory], {"truth": simulation})):
        cli("fit", *log, *flags, "--variant", variant, *extra, "--out", str(tmp_path / f"cli-{variant}.json"))
        model = verdict.NashEval(variant=variant, **settings, **oracle).fit(
            simulation.path("contexts.parquet"), simulation.path("feedback.parquet")
        )
        model.save(tmp_path / f"py-{variant}.json")
        assert (tmp_path / f"py-{variant}.json").read_bytes() == (tmp_path / f"cli-{variant}.json").read_bytes(), variant
    with pytest.raises(verdict.errors.SettingError, match="oracle needs `truth`"):
        verdict.NashEval(variant="oracle").fit(simulation.path("contexts.parquet"), simulation.path("feedback.parquet"))


def test_logged_propensities_fit_as_on_the_command_line(simulation, tmp_path):
    # Each offer's probability, as a router's decision log records it (here one
    # value for every offer: what matters is that it is used, not learned).
    feedback = simulation.feedback.copy()
    feedback["propensity"] = 0.5
    path = tmp_path / "feedback.parquet"
    feedback.to_parquet(path)
    cli(
        "fit", "--contexts", simulation.path("contexts.parquet"), "--feedback", str(path),
        "--propensity-col", "propensity", *FLAGS, "--out", str(tmp_path / "cli.json"),
    )
    model = verdict.NashEval(**SETTINGS).fit(simulation.contexts, feedback, propensity_col="propensity")
    model.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert model.summary["logged_propensities"] is True
    assert model.summary["propensity_loss"] is None
    with pytest.raises(ValueError, match="propensity"):
        verdict.NashEval(**SETTINGS).fit(simulation.contexts, simulation.feedback, propensity_col="propensity")


def test_a_battle_log_fits_as_on_the_command_line(tmp_path):
    sim = verdict.simulate(tmp_path / "arena", world="arena", agents=5, contexts=1500, test_contexts=100, seed=3)
    columns = ["language", "is_code", "is_math", "length"]
    cli(
        "fit", "--battles", sim.path("battles.parquet"), "--context-cols", ",".join(columns),
        *FLAGS, "--out", str(tmp_path / "cli.json"),
    )
    model = verdict.NashEval(**SETTINGS).fit(battles=sim.battles, context_cols=columns)
    model.save(tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()


def test_predictions_payoffs_and_evaluation_match_the_command_line(simulation, fitted, tmp_path):
    path = tmp_path / "model.json"
    fitted.save(path)
    test = simulation.path("test_contexts.parquet")
    expected = cli_json("predict", str(path), "--contexts", test, "--payoff")
    got = fitted.predict(simulation.test_contexts)
    payoffs = fitted.payoffs(test)
    assert list(got.index) == [row["context_id"] for row in expected]
    for i, row in enumerate(expected):
        assert got.loc[row["context_id"], fitted.agents].tolist() == [row["equilibrium"][a] for a in fitted.agents]
        assert got.loc[row["context_id"], "winners"] == row["winners"]
        assert payoffs[i].tolist() == row["payoff"]
    assert verdict.evaluate(fitted, simulation) == cli_json("evaluate", str(path), "--truth", simulation.directory)
    # A loaded model predicts the same.
    assert verdict.NashEval.load(path).predict(test).equals(got)


def test_the_interpreter_is_released_during_a_fit(simulation):
    ticks = 0
    done = threading.Event()

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    started = time.perf_counter()
    try:
        verdict.NashEval(**SETTINGS).fit(simulation.contexts, simulation.feedback)
    finally:
        done.set()
        counter.join()
    seconds = time.perf_counter() - started
    # A thread sleeping 1 ms per tick gets hundreds of ticks a second when the fit
    # lets go of the interpreter, and at most a tick or two (before the fit takes it)
    # while a fit holds it. Ten is far from both, whatever the machine's load: no rate
    # is asked, so a busy machine cannot fail the test.
    assert ticks >= 10, (ticks, seconds)


def test_bad_input_raises_naming_the_place(simulation, tmp_path):
    with pytest.raises(ValueError, match="give `contexts` and `feedback`, or `battles`"):
        verdict.NashEval().fit(simulation.contexts)
    with pytest.raises(ValueError, match="policy"):
        verdict.NashEval(policy="oracle-ish").fit(simulation.contexts, simulation.feedback)
    lacking = simulation.contexts.drop(columns=["context_id"])
    with pytest.raises(ValueError, match=r"<contexts table>.*context_id"):
        verdict.NashEval(**SETTINGS).fit(lacking, simulation.feedback)
    with pytest.raises(RuntimeError, match="not fitted"):
        verdict.NashEval().predict(simulation.test_contexts)
    with pytest.raises(ValueError, match="model.json"):
        (tmp_path / "model.json").write_text("{}")
        verdict.NashEval.load(tmp_path / "model.json")
    with pytest.raises(ValueError, match="not a simulation"):
        verdict.Simulation.open(tmp_path)
    with pytest.raises(FileExistsError):
        simulation.write(tmp_path)


def test_ctrl_c_during_a_fit_returns_at_once(simulation):
    import _thread

    # The network policy trains for seconds in a debug build: the whole fit is timed
    # first, on this machine under its present load.
    started = time.perf_counter()
    verdict.NashEval(policy="network", folds=3).fit(simulation.contexts, simulation.feedback)
    whole = time.perf_counter() - started
    # Ctrl-C after a tenth of that.
    timer = threading.Timer(whole / 10, _thread.interrupt_main)
    started = time.perf_counter()
    with ctrl_c_delivered():
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            verdict.NashEval(policy="network", folds=3).fit(simulation.contexts, simulation.feedback)
    timer.cancel()
    # Answered within a few polls of 50 ms (the abandoned fit finishes unobserved): well
    # before the fit would have ended. Half the fit's own time leaves the interrupt four
    # tenths of it and is no race: a fit that ignored Ctrl-C would take all of it.
    assert time.perf_counter() - started < whole / 2, whole
    # The module still works afterwards.
    assert verdict.NashEval(**SETTINGS).fit(simulation.contexts, simulation.feedback).agents


def test_a_baseline_fits_as_on_the_command_line(simulation, tmp_path):
    cli(
        "fit", "--contexts", simulation.path("contexts.parquet"),
        "--feedback", simulation.path("feedback.parquet"), "--folds", "3",
        "--method", "borda", "--out", str(tmp_path / "cli.json"),
    )
    model = verdict.NashEval(method="borda", folds=3).fit(
        simulation.path("contexts.parquet"), simulation.path("feedback.parquet"))
    model.save(tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    with pytest.raises(ValueError, match="borda baseline sets the surface"):
        verdict.NashEval(method="borda", variant="plugin").fit(
            simulation.path("contexts.parquet"), simulation.path("feedback.parquet"))


def test_a_global_baseline_fits_from_frames_and_reports_its_ranking(tmp_path):
    # Six prompts rank A > B > C > D, four C > B > A > D, every pair compared at every
    # prompt: the pluralistic leaderboard ranks A, C, B, D (derived by hand beside the
    # library's test of the same profile) and plays A, B, C a third each.
    camps = [(["A", "B", "C", "D"], 6), (["C", "B", "A", "D"], 4)]
    contexts, feedback = [], []
    for order, prompts in camps:
        for _ in range(prompts):
            c = f"p{len(contexts)}"
            contexts.append({"context_id": c, "length": len(contexts) % 5})
            for i in range(4):
                for j in range(i + 1, 4):
                    feedback.append({"context_id": c, "menu": [order[i], order[j]],
                                     "modality": "pairwise", "response": order[i]})
    contexts, feedback = pd.DataFrame(contexts), pd.DataFrame(feedback)
    model = verdict.NashEval(method="pluralistic", backbone="linear", folds=3).fit(contexts, feedback)
    board = model.global_policy["detail"]
    assert [model.agents[j] for j in board["ranking"]] == ["A", "C", "B", "D"]
    policy = model.predict(contexts)
    assert policy["A"].tolist() == [1 / 3] * 10 and policy["D"].tolist() == [0.0] * 10
    assert verdict.NashEval(folds=3, policy="solver", backbone="linear").fit(
        contexts, feedback).global_policy is None
    with pytest.raises(ValueError, match="robust lottery needs groups"):
        verdict.NashEval(method="robust-lottery", backbone="linear", folds=3).fit(contexts, feedback)


def test_a_fitted_model_and_its_evaluation_make_one_page(simulation, fitted, tmp_path):
    model_file = tmp_path / "model.json"
    fitted.save(model_file)
    # From a path, the page `verdict report` draws, byte for byte.
    cli_page = tmp_path / "cli.html"
    cli("report", str(model_file), "--out", str(cli_page))
    assert verdict.report(model_file) == cli_page.read_text()
    # From the fitted object and evaluate's dict: one page with a part each.
    scores = verdict.evaluate(fitted, simulation)
    out = tmp_path / "page.html"
    page = verdict.report([fitted, scores], out, title="NashEval")
    assert out.read_text() == page
    assert "<title>NashEval</title>" in page
    for section in ("<h2>Propensities per menu</h2>", "<h2>Against the truth</h2>"):
        assert section in page
    assert f"<td>{scores['exploitability']:.4f}</td>" in page
    with pytest.raises(ValueError, match="not fitted"):
        verdict.report(verdict.NashEval())
    # In a notebook, the model shows as the same page in a frame of its own.
    import html

    shown = fitted._repr_html_()
    assert shown.startswith('<iframe srcdoc="')
    srcdoc = shown[len('<iframe srcdoc="'):shown.index('" title=')]
    assert html.unescape(srcdoc) == verdict.report(fitted, title="NashEval model")
    assert verdict.NashEval()._repr_html_() is None


def test_a_users_file_is_never_replaced_without_force(fitted, tmp_path):
    # A user's file at the model's path is refused and left as it was ...
    mine = tmp_path / "model.json"
    mine.write_text("my notes")
    with pytest.raises(FileExistsError, match="not written by verdict"):
        fitted.save(mine)
    assert mine.read_text() == "my notes"
    # ... replaced with force=True, and from then on verdict's own, replaced freely.
    fitted.save(mine, force=True)
    assert json.loads(mine.read_text())["agents"] == fitted.agents
    fitted.save(mine)
    page = tmp_path / "page.html"
    page.write_text("<p>mine</p>")
    with pytest.raises(FileExistsError, match="not written by verdict"):
        verdict.report(fitted, page)
    assert page.read_text() == "<p>mine</p>"
    verdict.report(fitted, page, force=True)
    assert "verdict" in page.read_text()


def _embedded_log(n=240, seed=3):
    """Contexts with a 4-d embedding and a length; three agents meet in pairs, and who
    wins depends on the embedding's first coordinate (a drawn, seeded log)."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(seed)
    embedding = rng.normal(size=(n, 4))
    contexts = pd.DataFrame({"context_id": [f"c{i}" for i in range(n)], "length": rng.integers(1, 5, n)})
    pairs = [("a", "b"), ("b", "c"), ("a", "c")]
    feedback = []
    for i in range(n):
        first, second = pairs[i % 3]
        wins = rng.random() < 1 / (1 + np.exp(-2 * embedding[i, 0]))
        feedback.append({"context_id": f"c{i}", "menu": [first, second], "modality": "pairwise",
                         "response": first if wins else second})
    return contexts, pd.DataFrame(feedback), embedding


def test_embeddings_from_numpy_a_frame_column_and_files_give_one_model(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    feather = pytest.importorskip("pyarrow.feather")
    contexts, feedback, embedding = _embedded_log()
    settings = {"policy": "solver", "folds": 3, "backbone": "linear",
                "nuisance_design": "structured", "surface_rank": 0}
    flags = ["--policy", "solver", "--folds", "3", "--backbone", "linear",
             "--nuisance-design", "structured", "--surface-rank", "0"]
    # The file a user's own model writes: a fixed-size list column, in Parquet and Arrow.
    table = pa.table({
        "context_id": contexts["context_id"], "length": contexts["length"],
        "embedding": pa.FixedSizeListArray.from_arrays(pa.array(embedding.ravel()), 4),
    })
    pq.write_table(table, tmp_path / "contexts.parquet")
    feather.write_feather(table, tmp_path / "contexts.arrow")
    feedback.to_json(tmp_path / "feedback.jsonl", orient="records", lines=True)
    for name in ("contexts.parquet", "contexts.arrow"):
        cli("fit", "--contexts", str(tmp_path / name), "--feedback", str(tmp_path / "feedback.jsonl"),
            *flags, "--out", str(tmp_path / f"cli-{name}.json"))
    expected = (tmp_path / "cli-contexts.parquet.json").read_bytes()
    assert (tmp_path / "cli-contexts.arrow.json").read_bytes() == expected
    from_numpy = verdict.NashEval(**settings).fit(contexts, feedback, embeddings=embedding)
    from_numpy.save(tmp_path / "numpy.json")
    assert (tmp_path / "numpy.json").read_bytes() == expected
    assert from_numpy.summary["nuisance_design"] == "Structured"
    column = contexts.assign(embedding=list(embedding))
    verdict.NashEval(**settings).fit(column, feedback).save(tmp_path / "column.json")
    assert (tmp_path / "column.json").read_bytes() == expected
    # Predictions read the embedding the same way.
    assert from_numpy.predict(contexts, embeddings=embedding).equals(from_numpy.predict(column))


def test_the_rank_choice_is_in_the_summary_and_the_criterion_is_a_setting():
    contexts, feedback, embedding = _embedded_log()
    settings = {"policy": "solver", "folds": 3, "backbone": "linear", "nuisance_design": "structured"}
    chosen = verdict.NashEval(**settings).fit(contexts, feedback, embeddings=embedding).summary
    choice = chosen["rank_choice"]
    assert choice["criterion"] == "exploitability"
    assert [c["rank"] for c in choice["candidates"]] == [0, 1, 2, 4]
    assert choice["chosen"] in (0, 1, 2, 4) and 0.0 <= choice["transitivity"]["p_value"] <= 1.0
    # The model's outcome models are at the chosen rank.
    assert chosen["outcome_structure"][0]["rank"] == choice["chosen"]
    by_log_loss = verdict.NashEval(**settings, rank_criterion="log-loss").fit(
        contexts, feedback, embeddings=embedding).summary
    assert "rank_choice" not in by_log_loss
    assert by_log_loss["outcome_structure"][0]["rank"] == choice["by_log_loss"]
    with pytest.raises(Exception, match="rank_criterion"):
        verdict.NashEval(**settings, rank_criterion="coin").fit(contexts, feedback, embeddings=embedding)


def test_a_bad_embedding_is_refused_naming_the_row():
    contexts, feedback, embedding = _embedded_log(n=60)
    broken = embedding.copy()
    broken[7, 2] = float("nan")
    with pytest.raises(verdict.errors.InputError, match=r"(?s)row 8.*embedding.*missing value \(null or NaN\)"):
        verdict.NashEval(policy="solver", folds=3).fit(contexts, feedback, embeddings=broken)
    with pytest.raises(verdict.errors.InputError, match="59 rows for 60 contexts"):
        verdict.NashEval(policy="solver", folds=3).fit(contexts, feedback, embeddings=embedding[:59])
    with pytest.raises(verdict.errors.InputError, match="2-D array"):
        verdict.NashEval(policy="solver", folds=3).fit(contexts, feedback, embeddings=embedding[:, 0])


def test_a_fitted_model_is_an_ope_candidate_as_its_file_is(simulation, fitted, tmp_path):
    """``ope`` takes a fitted NashEval as a candidate and scores it as ``verdict ope``
    scores its model file on the same decisions (contexts routed uniformly)."""
    import numpy as np

    contexts = simulation.test_contexts.copy()
    agents = fitted.agents
    rng = np.random.default_rng(3)
    chosen = rng.integers(len(agents), size=len(contexts))
    decisions = contexts.assign(
        request_id=contexts["context_id"].astype(str),
        chosen=[agents[c] for c in chosen],
        propensity=1.0 / len(agents),
    )
    outcomes = pd.DataFrame({"request_id": decisions["request_id"],
                             "outcome": rng.uniform(size=len(contexts))})
    decisions_path, outcomes_path = tmp_path / "decisions.parquet", tmp_path / "outcomes.csv"
    decisions.to_parquet(decisions_path)
    outcomes.to_csv(outcomes_path, index=False, float_format="%.17g")
    fitted.save(tmp_path / "model.json")
    ours = verdict.ope(decisions_path, outcomes_path, [fitted, f"agent:{agents[0]}"])
    theirs = cli_json("ope", "--decisions", str(decisions_path), "--outcomes", str(outcomes_path),
                      "--policy", str(tmp_path / "model.json"), "--policy", f"agent:{agents[0]}")
    for c_ours, c_theirs in zip(ours.candidates, theirs["candidates"]):
        for estimator in ("ips", "snips", "dr"):
            assert c_ours[estimator] == c_theirs[estimator]
    assert ours.candidates[0]["policy"] == "model 0"
