"""The Python module against the command line on the same input (identical numbers),
frame input against file input, the maximal lottery against closed forms and
scipy's linear program, and bad input raising ValueError with the place named."""

from __future__ import annotations

import pytest

import verdict_arena as verdict
from _support import GENAI, LOG, TUTORIAL, cli_json, without_notes


@pytest.mark.parametrize("method", ["bt", "elo", "lottery", "all"])
@pytest.mark.parametrize("allow_unobserved", [False, True])
def test_rank_gives_the_command_lines_numbers(method, allow_unobserved):
    if method == "lottery" and not allow_unobserved:
        return  # pairs of llmfao never met: refused, see the bad-input test
    flags = ["--allow-unobserved"] if allow_unobserved else []
    expected = cli_json("rank", str(LOG), "--method", method, "--bootstrap", "50", *flags)
    got = verdict.rank(
        LOG, method=method, bootstrap=50, allow_unobserved=allow_unobserved, as_frame=False
    )
    assert without_notes(got) == without_notes(expected)
    assert len(got["notes"]) == len(expected["notes"])
    assert not any("--" in note for note in got["notes"]), got["notes"]


@pytest.mark.parametrize("option", ["bradley-terry", "low-rank", "core"])
def test_each_fill_of_the_missing_pairs_gives_the_command_lines_numbers(option):
    expected = cli_json(
        "rank", str(LOG), "--method", "lottery", "--unobserved", option, "--bootstrap", "20"
    )
    got = verdict.rank(LOG, method="lottery", unobserved=option, bootstrap=20, as_frame=False)
    assert without_notes(got) == without_notes(expected)
    assert got["lottery"]["unobserved_diagnosis"]["filled_by"] == option


def test_a_frame_ranks_as_its_file():
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(TUTORIAL)
    from_file = verdict.rank(TUTORIAL, bootstrap=100, seed=3)
    from_frame = verdict.rank(frame, bootstrap=100, seed=3)
    assert list(from_frame.index) == list(from_file.index)
    assert from_frame["score"].tolist() == from_file["score"].tolist()
    assert from_frame["ci_low"].tolist() == from_file["ci_low"].tolist()
    renamed = frame.rename(columns={"model_a": "a", "model_b": "b", "winner": "w"})
    again = verdict.rank(renamed, model_a_col="a", model_b_col="b", winner_col="w", bootstrap=100, seed=3)
    assert again["score"].tolist() == from_file["score"].tolist()


@pytest.mark.parametrize(
    "flags, keywords",
    [
        (["--filter", "anony=true"], {"filter": {"anony": True}}),
        (["--filter", "anony=true", "--ties", "drop"], {"filter": ["anony=true"], "ties": "drop"}),
        (["--anchor", "imagenhub_SDXLTurbo_generation=1200"], {"anchor": ("imagenhub_SDXLTurbo_generation", 1200)}),
        (["--l2", "0.5"], {"l2": 0.5}),
        (["--ci", "sandwich"], {"ci": "sandwich"}),
        (["--ci", "0.9", "--seed", "11"], {"ci": 0.9, "seed": 11}),
        (["--ci", "sandwich:0.9", "--matrix"], {"ci": "sandwich:0.9", "matrix": True}),
        (
            ["--method", "elo", "--k", "16", "--initial", "1500", "--order-by", "tstamp"],
            {"method": "elo", "k": 16, "initial": 1500, "order_by": "tstamp"},
        ),
        (["--method", "elo", "--shuffle-seed", "5"], {"method": "elo", "shuffle_seed": 5}),
        (
            # MM fits the plain MLE, which exists on the generation battles alone.
            ["--filter", "model_a~_generation", "--filter", "model_b~_generation", "--solver", "mm",
             "--tol", "1e-10", "--mean", "1200", "--max-iter", "50000"],
            {"filter": ["model_a~_generation", "model_b~_generation"], "solver": "mm", "tol": 1e-10,
             "mean": 1200, "max_iter": 50000},
        ),
        (
            ["--method", "lottery", "--rho", "0.01", "--allow-unobserved"],
            {"method": "lottery", "rho": 0.01, "allow_unobserved": True},
        ),
    ],
)
def test_settings_give_the_command_lines_numbers(flags, keywords):
    # The GenAI log holds a few self-battles: dropped on both faces.
    expected = cli_json("rank", str(GENAI), "--bootstrap", "40", "--skip-self-battles", *flags)
    got = verdict.rank(GENAI, bootstrap=40, skip_self_battles=True, as_frame=False, **keywords)
    assert without_notes(got) == without_notes(expected)


def test_lottery_costs_and_budget_give_the_command_lines_numbers(tmp_path):
    costs = tmp_path / "costs.csv"
    costs.write_text("model,cost\nA,4\nB,2\nC,1\nD,1\n")
    expected = cli_json(
        "rank", str(TUTORIAL), "--method", "lottery", "--costs", str(costs), "--budget", "2"
    )
    got = verdict.rank(
        TUTORIAL, method="lottery", costs={"A": 4, "B": 2, "C": 1, "D": 1}, budget=2, as_frame=False
    )
    assert without_notes(got) == without_notes(expected)
    spent = sum(m["probability"] * {"A": 4, "B": 2, "C": 1, "D": 1}[m["name"]] for m in got["models"])
    assert spent <= 2 + 1e-9


def test_pandas_polars_and_pyarrow_frames_rank_identically():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    frame = pd.read_json(GENAI)
    frames = {
        "pandas": frame,
        "polars": pl.from_pandas(frame),
        "pyarrow": pa.Table.from_pandas(frame),
        "path": GENAI,
    }
    reports = {
        name: verdict.rank(table, method="all", bootstrap=30, filter=["anony=true"])
        for name, table in frames.items()
    }
    for name, report in reports.items():
        assert numbers(report) == numbers(reports["path"]), name
    # Polars in, polars out; the same rows as the pandas frame.
    from_polars = verdict.rank(frames["polars"], bootstrap=30, skip_self_battles=True)
    assert isinstance(from_polars, pl.DataFrame)
    from_pandas = verdict.rank(frame, bootstrap=30, skip_self_battles=True)
    assert from_polars["name"].to_list() == list(from_pandas.index)
    assert from_polars["score"].to_list() == from_pandas["score"].tolist()


def numbers(report: dict) -> dict:
    """The report without notes and without the source's label (a path, or
    ``<battles table>`` for a frame)."""
    return {
        **without_notes(report),
        "leaderboards": [
            {k: v for k, v in board.items() if k != "source"} for board in report["leaderboards"]
        ],
    }


def test_rock_paper_scissors_is_uniform_and_a_dominated_agent_gets_nothing():
    # Closed form: the unique maximal lottery of RPS with a fourth agent every one of
    # them beats puts 1/3 on each of the three and 0 on the fourth.
    matrix = [
        [0, -1, 1, 0.5],
        [1, 0, -1, 0.5],
        [-1, 1, 0, 0.5],
        [-0.5, -0.5, -0.5, 0],
    ]
    result = verdict.maximal_lottery(matrix, ["rock", "paper", "scissors", "well"])
    probabilities = {m["name"]: m["probability"] for m in result["models"]}
    for name in ("rock", "paper", "scissors"):
        assert probabilities[name] == pytest.approx(1 / 3, abs=1e-9)
    assert probabilities["well"] == pytest.approx(0, abs=1e-9)
    assert result["exploitability"] < 1e-9
    assert result["unique"]


def test_the_lottery_matches_scipys_linear_program():
    np = pytest.importorskip("numpy")
    optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(7)
    upper = np.triu(rng.uniform(-1, 1, size=(7, 7)), 1)
    matrix = upper - upper.T
    # max v s.t. (A^T pi)_k >= v, sum pi = 1, pi >= 0: variables (pi, v), minimise -v.
    k = matrix.shape[0]
    solved = optimize.linprog(
        c=np.r_[np.zeros(k), -1.0],
        A_ub=np.c_[-matrix.T, np.ones(k)],
        b_ub=np.zeros(k),
        A_eq=np.r_[np.ones(k), 0.0].reshape(1, -1),
        b_eq=[1.0],
        bounds=[(0, None)] * k + [(None, None)],
        method="highs",
    )
    ours = verdict.maximal_lottery(matrix.tolist())
    assert ours["unique"], "a random game's equilibrium is unique almost surely"
    probabilities = [m["probability"] for m in ours["models"]]
    assert probabilities == pytest.approx(solved.x[:k].tolist(), abs=1e-6)


def test_bad_input_raises_value_error_naming_the_place(tmp_path):
    bad = tmp_path / "battles.csv"
    bad.write_text("model_a,model_b,winner\na,b,model_a\nb,c,banana\n")
    with pytest.raises(ValueError, match=r"battles.csv:3.*winner.*banana"):
        verdict.rank(bad)
    with pytest.raises(ValueError, match="never met.*`unobserved`.*bradley-terry.*core"):
        verdict.rank(LOG, method="lottery")
    with pytest.raises(ValueError, match="allow_unobserved.*low-rank"):
        verdict.rank(LOG, method="lottery", allow_unobserved=True, unobserved="low-rank")
    with pytest.raises(ValueError, match="method"):
        verdict.rank(TUTORIAL, method="glicko")
    with pytest.raises(ValueError, match="skew"):
        verdict.maximal_lottery([[0, 1], [1, 0]], ["a", "b"])
    with pytest.raises(ValueError, match=r"<battles table>.*winner"):
        verdict.rank(pd_frame_lacking_winner())
    with pytest.raises(ValueError, match="filter"):
        verdict.rank(TUTORIAL, filter=["no operator"])
    with pytest.raises(ValueError, match="ci"):
        verdict.rank(TUTORIAL, ci="wide")
    with pytest.raises(TypeError, match="path or a table"):
        verdict.rank(42)


def pd_frame_lacking_winner():
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "outcome": ["model_a"]})


def test_the_lottery_of_a_voting_profile_matches_pref_voting():
    # Odd numbers of voters give odd margins, hence a unique maximal lottery
    # (Laffond, Laslier & Le Breton 1997); profiles with no Condorcet winner mix.
    np = pytest.importorskip("numpy")
    profiles = pytest.importorskip("pref_voting.profiles")
    methods = pytest.importorskip("pref_voting.probabilistic_methods")
    mixed = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        rankings = [tuple(rng.permutation(5).tolist()) for _ in range(21)]
        profile = profiles.Profile(rankings)
        margins = np.array(profile.margin_matrix, dtype=float) / profile.num_voters
        ours = verdict.maximal_lottery(margins.tolist())
        theirs = methods.maximal_lottery(profile)
        assert ours["unique"]
        got = [m["probability"] for m in ours["models"]]
        assert got == pytest.approx([theirs[c] for c in profile.candidates], abs=1e-7), seed
        mixed += max(got) < 1 - 1e-9
    assert mixed >= 3, "the check must include cyclic profiles"


def test_the_lottery_of_a_battle_log_is_the_lottery_of_its_margin_matrix():
    # The tutorial log: the margin matrix by hand (wins minus losses over battles per
    # pair, NashEval Eq. 78) gives the same equilibrium as the log.
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(TUTORIAL)
    from_log = verdict.maximal_lottery(frame)
    names = sorted(set(frame.model_a) | set(frame.model_b))
    margin = {(a, b): 0.0 for a in names for b in names}
    count = {(a, b): 0 for a in names for b in names}
    for a, b, w in zip(frame.model_a, frame.model_b, frame.winner):
        s = {"model_a": 1.0, "model_b": -1.0}.get(w, 0.0)
        margin[a, b] += s
        margin[b, a] -= s
        count[a, b] += 1
        count[b, a] += 1
    matrix = [[margin[a, b] / count[a, b] if count[a, b] else 0.0 for b in names] for a in names]
    from_matrix = verdict.maximal_lottery(matrix, names)
    by_name = {m["name"]: m["probability"] for m in from_matrix["models"]}
    assert {m["name"]: m["probability"] for m in from_log["models"]} == pytest.approx(by_name)
    assert from_log["unique"] and from_log["support"] == ["A"] and from_log["condorcet_winner"] == "A"


def test_lottery_bootstrap_only_when_asked_and_elo_reports_its_median():
    plain = verdict.rank(LOG, method="lottery", allow_unobserved=True, as_frame=False)
    assert plain["interval"] is None
    assert all("support_share" not in m for m in plain["models"])
    boot = verdict.rank(LOG, method="lottery", allow_unobserved=True, bootstrap=30)
    assert boot["support_share"].between(0, 1).all()
    assert (boot["ci_low"] <= boot["ci_high"]).all()
    elo = verdict.rank(LOG, method="elo", bootstrap=30, as_frame=False)
    assert elo["point"] == "bootstrap-median"
    assert verdict.rank(LOG, method="elo", bootstrap=0, as_frame=False)["point"] == "fit"
