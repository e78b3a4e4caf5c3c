"""The social-choice leaderboards (`method="copeland" | "schulze" | "ranked-pairs" |
"kemeny" | "nash-averaging" | "alpha-rank"`) against independent implementations on
random profiles and logs: pref_voting 1.18 (Copeland scores, Schulze's beat-path
winners, ranked-pairs and Kemeny–Young winners over every tie-break), OpenSpiel 2.0
(the full Schulze, ranked-pairs and Kemeny–Young orders; α-Rank's stationary
distribution) and nashpy 0.0.40 (the equilibria of the log-odds game), and the command
line's numbers."""

from __future__ import annotations

import math
import warnings

import pytest

import verdict_arena as verdict
from _support import LOG, cli_json, without_notes

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")


def names(k):
    return [f"m{c}" for c in range(k)]


def profile_battles(rankings, k):
    """One battle per voter and pair: the voter's ranking decides it; sides alternate
    so that the log is not one-sided."""
    rows = []
    for v, ranking in enumerate(rankings):
        for p, above in enumerate(ranking):
            for below in ranking[p + 1 :]:
                if (v + above + below) % 2:
                    rows.append((names(k)[above], names(k)[below], "model_a"))
                else:
                    rows.append((names(k)[below], names(k)[above], "model_b"))
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


def random_profiles(count, k, voters, seed0=0):
    for seed in range(seed0, seed0 + count):
        rng = np.random.default_rng(seed)
        yield seed, [tuple(rng.permutation(k).tolist()) for _ in range(voters)]


def board(frame, method, **kwargs):
    return verdict.rank(frame, method=method, as_frame=False, **kwargs)


def order(report):
    return [int(m["name"][1:]) for m in report["models"]]


def top(report):
    best = report["models"][0]["score"]
    return {int(m["name"][1:]) for m in report["models"] if m["score"] == best}


def strict(report):
    return not any("not unique" in note for note in report["notes"])


def open_spiel_order(method, rankings):
    base = pytest.importorskip("open_spiel.python.voting.base")
    profile = base.PreferenceProfile(votes=[list(r) for r in rankings])
    return list(method.run_election(profile).ranking)


def test_copeland_scores_match_pref_voting():
    profiles = pytest.importorskip("pref_voting.profiles")
    for seed, rankings in random_profiles(30, 6, 20):  # even voters: tied pairs occur
        got = board(profile_battles(rankings, 6), "copeland")
        theirs = profiles.Profile(rankings).copeland_scores()
        assert {int(m["name"][1:]): m["score"] for m in got["models"]} == theirs, seed


def test_schulze_matches_open_spiel_and_pref_voting():
    schulze = pytest.importorskip("open_spiel.python.voting.schulze")
    profiles = pytest.importorskip("pref_voting.profiles")
    margin_methods = pytest.importorskip("pref_voting.margin_based_methods")
    checked = 0
    for seed, rankings in random_profiles(60, 6, 21):
        got = board(profile_battles(rankings, 6), "schulze")
        winners = set(margin_methods.beat_path(profiles.Profile(rankings)))
        if strict(got):
            assert order(got) == open_spiel_order(schulze.SchulzeVoting(), rankings), seed
            assert winners == {order(got)[0]}, seed
            checked += 1
    assert checked >= 30


def test_ranked_pairs_matches_open_spiel_and_pref_voting():
    ranked_pairs = pytest.importorskip("open_spiel.python.voting.ranked_pairs")
    profiles = pytest.importorskip("pref_voting.profiles")
    margin_methods = pytest.importorskip("pref_voting.margin_based_methods")
    unique = 0
    # 101 voters make equal margins rare: pref_voting's ranked pairs tries every
    # tie-break order, which takes seconds on a 21-voter profile.
    for seed, rankings in random_profiles(60, 6, 101):
        got = board(profile_battles(rankings, 6), "ranked-pairs")
        winners = set(margin_methods.ranked_pairs(profiles.Profile(rankings)))
        # Whatever tie-break was used, its winner is one some tie-break gives.
        assert order(got)[0] in winners, seed
        if strict(got):
            assert winners == {order(got)[0]}, seed
            theirs = open_spiel_order(ranked_pairs.RankedPairsVoting(), rankings)
            assert order(got) == theirs, seed
            unique += 1
    assert unique >= 20


def test_kemeny_matches_open_spiel_and_pref_voting():
    kemeny_young = pytest.importorskip("open_spiel.python.voting.kemeny_young")
    profiles = pytest.importorskip("pref_voting.profiles")
    other = pytest.importorskip("pref_voting.other_methods")
    unique = 0
    for seed, rankings in random_profiles(40, 6, 21):
        got = board(profile_battles(rankings, 6), "kemeny")
        theirs, _ = other.kemeny_young_rankings(profiles.Profile(rankings))
        assert tuple(order(got)) in {tuple(r) for r in theirs}, seed
        optimal = [n for n in got["notes"] if "reached by" in n][0]
        assert optimal.endswith(f"reached by {len(theirs)} order" + ("" if len(theirs) == 1 else "s"))
        if len(theirs) == 1:
            assert order(got) == open_spiel_order(kemeny_young.KemenyYoungVoting(), rankings)
            unique += 1
    assert unique >= 20


def random_log(seed, k=6, battles=400):
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, k)
    rows = []
    for _ in range(battles):
        a, b = rng.choice(k, 2, replace=False)
        p = 1 / (1 + math.exp(strength[b] - strength[a]))
        u = rng.random()
        winner = "tie" if u < 0.1 else ("model_a" if u < 0.1 + 0.9 * p else "model_b")
        rows.append((names(k)[a], names(k)[b], winner))
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


def win_rates(frame, k):
    wins = np.zeros((k, k))
    ties = np.zeros((k, k))
    for a, b, w in zip(frame.model_a, frame.model_b, frame.winner):
        i, j = int(a[1:]), int(b[1:])
        if w == "model_a":
            wins[i, j] += 1
        elif w == "model_b":
            wins[j, i] += 1
        else:
            ties[i, j] += 1
            ties[j, i] += 1
    return wins, ties


@pytest.mark.parametrize("alpha,population", [(0.5, 20), (10.0, 50), (100.0, 50)])
def test_alpha_rank_matches_open_spiel(alpha, population):
    alpharank = pytest.importorskip("open_spiel.python.egt.alpharank")
    for seed in range(8):
        frame = random_log(seed)
        wins, ties = win_rates(frame, 6)
        n = wins + wins.T + ties
        payoff = np.where(n > 0, (wins + ties / 2) / np.where(n > 0, n, 1), 0.5)
        np.fill_diagonal(payoff, 0.5)
        _, _, theirs, _, _ = alpharank.compute(
            [payoff], m=population, alpha=alpha, use_local_selection_model=True
        )
        got = board(frame, "alpha-rank", alpha=alpha, population=population)
        ours = {int(m["name"][1:]): m["score"] for m in got["models"]}
        assert [ours[c] for c in range(6)] == pytest.approx(theirs, abs=1e-9), seed


def test_nash_averaging_is_the_equilibrium_nashpy_finds():
    nashpy = pytest.importorskip("nashpy")
    mixed = compared = 0
    for seed, rankings in random_profiles(40, 5, 15):
        frame = profile_battles(rankings, 5)
        wins, ties = win_rates(frame, 5)
        n = wins + wins.T + ties
        rate = (wins + ties / 2 + 0.5) / (n + 1)
        log_odds = np.log(rate / (1 - rate))
        np.fill_diagonal(log_odds, 0.0)
        got = board(frame, "nash-averaging")
        ours = {int(m["name"][1:]): m for m in got["models"]}
        # Whatever nashpy says, ours must be an equilibrium of the symmetric zero-sum
        # game: no agent earns more than the value 0 against it.
        p = np.array([ours[c]["probability"] for c in range(5)])
        assert (log_odds @ p).max() <= 1e-9, seed
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            equilibria = list(nashpy.Game(log_odds, -log_odds).support_enumeration())
        if len(equilibria) != 1:
            # A 15-voter profile gives few distinct log-odds, so some games are
            # degenerate; nashpy then warns and its list is incomplete: skip the seed.
            continue
        compared += 1
        theirs = equilibria[0][0]
        assert [ours[c]["probability"] for c in range(5)] == pytest.approx(theirs, abs=1e-7)
        average = log_odds @ theirs
        assert [ours[c]["nash_average"] for c in range(5)] == pytest.approx(average, abs=1e-7)
        mixed += max(theirs) < 1 - 1e-9
    assert compared >= 30 and mixed >= 3, (compared, mixed)


@pytest.mark.parametrize(
    "method", ["copeland", "schulze", "ranked-pairs", "nash-averaging", "alpha-rank"]
)
def test_social_boards_give_the_command_lines_numbers(method):
    expected = cli_json("rank", str(LOG), "--method", method, "--allow-unobserved")
    got = verdict.rank(LOG, method=method, allow_unobserved=True, as_frame=False)
    assert without_notes(got) == without_notes(expected)
    assert got["notes"] and not any("--" in note for note in got["notes"]), got["notes"]


def test_social_boards_refuse_what_they_cannot_do():
    with pytest.raises(ValueError, match="never met.*unobserved.*bradley-terry"):
        verdict.rank(LOG, method="schulze")
    with pytest.raises(ValueError, match="core"):
        verdict.rank(LOG, method="schulze", unobserved="core")
    with pytest.raises(ValueError, match="at most 20"):
        verdict.rank(LOG, method="kemeny", allow_unobserved=True)
    with pytest.raises(ValueError, match="alpha"):
        verdict.rank(LOG, method="alpha-rank", allow_unobserved=True, alpha=0.0)
