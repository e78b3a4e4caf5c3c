"""Judges that share their mistakes, on real judges (EXPERIMENTS.md, "Judges that share
their mistakes: real judges"):

    .venv/bin/python bench/shared_judges.py ../shared/data

1. AlpacaFarm: two GPT-4 set-ups (b1, b5), four seeds each on the same 648 pairs —
   repeated calls, so call noise and item bias separate.
2. AlpacaEval 1: GPT-4 against Claude on the same (prompt, output) items (two
   families), and AlpacaEval 2's three GPT-4-turbo judges (one family: the bias they
   share is not identifiable without another family or gold labels).
3. JudgeBench: six judges with ground truth (which answer is right), each in both
   orders: the moment estimate against the biases measured from the truth, and the
   coverage of the true labels and of their mean by the consensus and the bias-aware
   intervals of `verdict_arena.judge` over resampled panels (3 of the 6 judges) and
   item subsets (100 of 350), 200 resamples.

Every estimate is `verdict_arena.shared_errors` or `verdict_arena.judge`; pandas and
numpy only read and resample.
"""
import itertools
import pathlib
import sys
import tempfile

import numpy as np
import pandas as pd

import verdict_arena as verdict

DATA = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")


def show(title: str, found: dict) -> None:
    e = found["estimate"]
    judges = found["judges"]
    print(f"\n### {title}: {found['items']} items")
    print("| judge | family | call sd | bias sd |")
    print("|---|---|---|---|")
    n = len(judges)
    for j, name in enumerate(judges):
        bias = e["bias_covariance"][j * n + j]
        measured = e["call_variance_measured"][j]
        call = f"{np.sqrt(e['call_variance'][j]):.3f}" if measured else "– (one call)"
        print(f"| {name} | {found['families'][j]} | {call} | {np.sqrt(max(bias, 0.0)):.3f} |")
    spread = e["score_variance"]
    print(
        f"true scores' sd {np.sqrt(spread):.3f}" if spread is not None else "bias not identified",
        f"; panel's effective judges {e['panel_effective_judges']:.2f} of {n}"
        if e["panel_effective_judges"] is not None
        else "",
    )
    pairs = [
        (judges[i], judges[j], found["bias_correlation"][i * n + j], found["shared_items"][i * n + j])
        for i, j in itertools.combinations(range(n), 2)
        if found["families"][i] == found["families"][j]
    ]
    for a, b, r, shared in pairs:
        print(f"within-family bias correlation {a} / {b}: {r if r is None else round(r, 3)} ({shared} shared items)")


def alpacafarm() -> None:
    seeds = pd.read_csv(DATA / "alpacaeval-judges" / "alpacafarm_repeated_seeds.csv")
    score = seeds["preference"] - 1.0
    for structure in ("pooled", "per-judge"):
        found = verdict.shared_errors(seeds["pair_id"], seeds["annotator"], score, structure=structure)
        show(f"AlpacaFarm, GPT-4 b1 and b5, four seeds each ({structure})", found)
    # Seed-to-seed agreement of one set-up, for the record.
    for name, part in seeds.groupby("annotator"):
        wide = part.pivot(index="pair_id", columns="seed", values="preference")
        agree = np.mean([(wide[a] == wide[b]).mean() for a, b in itertools.combinations(wide.columns, 2)])
        print(f"{name}: seed-to-seed agreement {agree:.3f}")


def alpacaeval() -> None:
    rows = pd.read_csv(DATA / "alpacaeval-judges" / "alpacaeval_judgments.csv.gz")
    rows = rows[rows["preference"].between(1.0, 2.0)]
    # An item: a prompt and the output judged against the run's reference (the
    # reference's own text was regenerated between runs, so its digest is left out).
    rows = rows.assign(item=rows["instruction_id"].astype(str) + "/" + rows["output_2_md5"])
    # One judgment per (item, annotator): cached copies are not re-judgments.
    rows = rows.drop_duplicates(["item", "annotator"])
    # GPT-4 and Claude share 4,805 items; the other two AlpacaEval-1 judges (GPT-4-0613,
    # Claude on Bedrock) share almost none with them.
    v1 = rows[rows["annotator"].isin(["alpaca_eval_gpt4", "claude"])]
    families = {"alpaca_eval_gpt4": "openai", "claude": "anthropic"}
    found = verdict.shared_errors(v1["item"], v1["annotator"], v1["preference"] - 1.0, families=families)
    show("AlpacaEval 1: GPT-4 against Claude (pooled; one call each)", found)
    turbo = ["weighted_alpaca_eval_gpt4_turbo", "alpaca_eval_cot_gpt4_turbo_fn", "alpaca_eval_gpt4_turbo_fn"]
    v2 = rows[rows["annotator"].isin(turbo)]
    for label, fams in (("one family", {t: "openai" for t in turbo}), ("taken as independent", {})):
        found = verdict.shared_errors(v2["item"], v2["annotator"], v2["preference"] - 1.0, families=fams, structure="per-judge")
        show(f"AlpacaEval 2: three GPT-4-turbo judges, {label}", found)


JUDGEBENCH_FAMILIES = {
    "o1-mini-2024-09-12": "openai",
    "Skywork/Skywork-Reward-Gemma-2-27B": "skywork",
    "Skywork/Skywork-Reward-Llama-3.1-8B": "skywork",
    "internlm/internlm2-20b-reward": "internlm",
    "internlm/internlm2-7b-reward": "internlm",
    "Ray2333/GRM-Gemma-2B-rewardmodel-ft": "grm",
}


def judgebench_calls() -> pd.DataFrame:
    rows = pd.read_csv(DATA / "judgebench-judges" / "judgebench_judgments.csv")
    rows = rows[rows["response_model"] == "gpt-4o-2024-05-13"].dropna(subset=["decision"])
    said_a = rows["decision"].map({"A>B": 1.0, "B>A": 0.0, "A=B": 0.5})
    # Trial 1 showed the answers swapped: its "A" is the original B.
    rows = rows.assign(score=np.where(rows["trial"] == 1, 1.0 - said_a, said_a), truth=(rows["label"] == "A>B").astype(float))
    return rows


def judgebench() -> None:
    rows = judgebench_calls()
    found = verdict.shared_errors(rows["pair_id"], rows["judge_model"], rows["score"], families=JUDGEBENCH_FAMILIES, structure="per-judge")
    show("JudgeBench, six judges, both orders (per judge, no truth used)", found)
    # The same components measured with the truth: a judge's bias at an item is the
    # mean of its two orders minus the true label.
    means = rows.groupby(["pair_id", "judge_model"])["score"].mean().unstack()
    truth = rows.groupby("pair_id")["truth"].first().loc[means.index]
    bias = means.sub(truth, axis=0)
    print("\nmeasured with the truth: bias sd per judge")
    print(bias.std().round(3).to_string())
    print("mean bias per judge (the model assumes 0):")
    print(bias.mean().round(3).to_string())
    print("bias correlation with the true label (the model assumes 0):")
    print(bias.corrwith(truth).round(3).to_string())
    print("bias correlations between judges:")
    print(bias.corr().round(2).to_string())


def judgebench_coverage(resamples: int = 200, items: int = 100, size: int = 3) -> None:
    rows = judgebench_calls()
    judges = sorted(JUDGEBENCH_FAMILIES)
    calls = {(p, j): list(part.sort_values("trial")["score"]) for (p, j), part in rows.groupby(["pair_id", "judge_model"])}
    truth = rows.groupby("pair_id")["truth"].first()
    complete = [p for p in truth.index if all(len(calls.get((p, j), [])) == 2 for j in judges)]
    rng = np.random.default_rng(0)
    tallies = {"consensus": [0, 0, 0], "bias-aware": [0, 0, 0], "gold (PPI++, 30 labels)": [0, 0, 0]}
    unidentified = 0
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(resamples):
            panel = list(rng.choice(judges, size=size, replace=False))
            chosen = list(rng.choice(complete, size=items, replace=False))
            asked = {}

            def recorded(name):
                def score(item):
                    key = (item["id"], name)
                    n = asked.get(key, 0)
                    asked[key] = n + 1
                    return calls[key][n % 2]

                return score

            pool = [verdict.Judge(j, recorded(j), 1.0, family=JUDGEBENCH_FAMILIES[j]) for j in panel]
            true = truth.loc[chosen]
            # Gold labels for 30 of the items: PPI++ corrects the panel's mean, bias
            # shared by every judge included.
            labelled = {p: float(true[p]) for p in rng.choice(chosen, size=30, replace=False)}
            got = verdict.judge(
                [{"id": p} for p in chosen], pool, budget=2.0 * size * items,
                ledger=pathlib.Path(scratch) / f"run{r}.jsonl", method="uniform", gold=labelled,
            )
            corrected = got.gold["mean"]["corrected"]
            tallies["gold (PPI++, 30 labels)"][1] += corrected["low"] <= true.mean() <= corrected["high"]
            tallies["gold (PPI++, 30 labels)"][2] += 1
            shared = got.shared_errors
            consensus = got.intervals
            held = ((consensus["low"] <= true) & (true <= consensus["high"])).sum()
            mean_held = got.mean["low"] <= true.mean() <= got.mean["high"]
            tallies["consensus"][0] += held
            tallies["consensus"][1] += mean_held
            tallies["consensus"][2] += 1
            if not shared["identified"]:
                unidentified += 1
                continue
            aware = pd.DataFrame(shared["items"]).set_index("id").loc[chosen]
            held = ((aware["low"] <= true) & (true <= aware["high"])).sum()
            tallies["bias-aware"][0] += held
            tallies["bias-aware"][1] += shared["mean"]["low"] <= true.mean() <= shared["mean"]["high"]
            tallies["bias-aware"][2] += 1
    print(f"\nJudgeBench coverage of the true labels, {resamples} resamples of {size} judges × {items} items, both orders each:")
    for name, (held, mean_held, runs) in tallies.items():
        if runs:
            shown = f"items {held / (runs * items):.3f}, " if held else ""
            print(f"{name}: {shown}the mean {mean_held / runs:.3f} ({runs} runs)")
    print(f"bias not identified (the panel in one family): {unidentified} runs")


if __name__ == "__main__":
    alpacafarm()
    alpacaeval()
    judgebench()
    judgebench_coverage()
