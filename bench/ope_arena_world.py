"""`verdict ope` on a log a real `verdict serve` wrote in the arena world, where every
candidate's true value is known.

    cargo build --release
    .venv/bin/python bench/ope_arena_world.py [SEED] [EXPLORE]

1. The arena world (`verdict simulate --world arena`, K = 16, 20,000 training and
   2,000 test prompts): its test truth holds each prompt's payoff `A(x)`.
2. Two models fitted on the training battles: the default (served) and the global
   maximal lottery (`--method lottery`), both `--text-col prompt --allow-unobserved`.
3. `verdict serve` routes every test prompt once on loopback (`rule` sample, exploration
   EXPLORE, decision log on).
4. The outcome of a routed answer is a thumbs-up drawn with probability `w_a(x) = (1/K)
   Σ_b (1 + A_ab(x))/2`: the routed agent beats an opponent drawn uniformly.
5. `verdict ope` scores the logger, the served model without exploration, the lottery
   and two fixed agents; each candidate's true value is `mean_x Σ_a π_a(x) w_a(x)` over
   the logged prompts (the models' `π(x)` from `verdict predict`).

Prints one row per candidate: every estimator's estimate and 95% interval, the truth,
and whether the interval holds it.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

VERDICT = os.environ.get("VERDICT", "target/release/verdict")
seed = int(sys.argv[1]) if len(sys.argv) > 1 else 70
explore = sys.argv[2] if len(sys.argv) > 2 else "0.2"
scratch = tempfile.TemporaryDirectory()
work = Path(scratch.name)


def run(*args):
    return subprocess.run([VERDICT, "--quiet", *args], check=True, capture_output=True, text=True).stdout


sim = work / "sim"
run("simulate", "--world", "arena", "--contexts", "20000", "--test-contexts", "2000",
    "--seed", str(seed), "--rho", "0.001", "--out", str(sim))
common = ["--contexts", str(sim / "contexts.parquet"), "--feedback", str(sim / "feedback.parquet"),
          "--text-col", "prompt", "--allow-unobserved", "--seed", str(seed)]
served, lottery = work / "served.json", work / "lottery.json"
started = time.time()
run("fit", *common, "--out", str(served))
run("fit", *common, "--method", "lottery", "--out", str(lottery))
fit_seconds = time.time() - started

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
decision_dir = work / "decisions"
server = subprocess.Popen([VERDICT, "--quiet", "serve", str(served), "--listen", f"127.0.0.1:{port}",
                           "--decisions", str(decision_dir), "--explore", explore,
                           "--seed", str(seed)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    test = pd.read_parquet(sim / "test_contexts.parquet")
    for i, row in enumerate(test.to_dict("records")):
        context = {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
        body = json.dumps({"context": context, "request_id": f"r{i}"}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/route", data=body,
                                         headers={"content-type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()
finally:
    server.terminate()
    server.wait()

decisions = next(decision_dir.glob("*.jsonl"))
truth = pd.read_parquet(sim / "test_truth.parquet").set_index("context_id")
lines = [json.loads(line) for line in decisions.read_text().splitlines()]
agents = list(lines[0]["routed_probabilities"])
k = len(agents)


def win_rates(context_id):
    a = np.asarray(truth.loc[context_id, "payoff"]).reshape(k, k)
    return ((1 + a) / 2).mean(axis=1)


rng = np.random.default_rng(seed)
w = {line["context"]["context_id"]: win_rates(line["context"]["context_id"]) for line in lines}
# The truth's agent order is the simulation's (its manifest's); the log names them.
order = json.loads((sim / "manifest.json").read_text())["agents"]
rows = []
for line in lines:
    rates = w[line["context"]["context_id"]]
    chosen = order.index(line["chosen"])
    rows.append({"request_id": line["request_id"], "outcome": float(rng.uniform() < rates[chosen])})
outcomes = work / "outcomes.csv"
pd.DataFrame(rows).to_csv(outcomes, index=False)


def model_policy(model):
    out = json.loads(run("predict", str(model), "--contexts", str(sim / "test_contexts.parquet"),
                         "--format", "json"))
    return {p["context_id"]: np.array([p["equilibrium"][a] for a in order]) for p in out}


truths = {}
logged = np.array([[line["routed_probabilities"][a] for a in order] for line in lines])
rates = np.array([w[line["context"]["context_id"]] for line in lines])
truths["logged"] = float((logged * rates).sum(axis=1).mean())
for name, model in [("served.json", served), ("lottery.json", lottery)]:
    policy = model_policy(model)
    pi = np.array([policy[line["context"]["context_id"]] for line in lines])
    truths[name] = float((pi * rates).sum(axis=1).mean())
fixed = [order[int(np.argmax(rates.mean(axis=0)))], order[int(np.argmin(rates.mean(axis=0)))]]
for agent in fixed:
    truths[f"agent:{agent}"] = float(rates[:, order.index(agent)].mean())

report = json.loads(run("ope", "--decisions", str(decisions), "--outcomes", str(outcomes),
                        "--policy", "logged", "--policy", str(served), "--policy", str(lottery),
                        *sum([["--policy", f"agent:{a}"] for a in fixed], []),
                        "--format", "json"))
print(f"seed {seed}, explore {explore}: {report['rows']} logged decisions, outcome model: "
      f"{report['outcome_model']}; fits {fit_seconds:.0f} s")
print("| candidate | truth | IPS | SNIPS | DR | ESS | flagged | covered (IPS, SNIPS, DR) |")
print("|---|---|---|---|---|---|---|---|")
for c in report["candidates"]:
    t = truths[c["policy"]]
    cells = []
    hits = []
    for e in ("ips", "snips", "dr"):
        x = c[e]
        cells.append(f"{x['estimate']:.4f} [{x['ci_low']:.4f}, {x['ci_high']:.4f}]")
        hits.append("yes" if x["ci_low"] <= t <= x["ci_high"] else "no")
    print(f"| {c['policy']} | {t:.4f} | {' | '.join(cells)} | {c['overlap']['effective_sample_size']:.0f} | "
          f"{'yes' if c['overlap']['flagged'] else 'no'} | {', '.join(hits)} |")
first = report["candidates"][0]["policy"]
for c in report["candidates"][1:]:
    gain = truths[c["policy"]] - truths[first]
    ips, dr = c["versus_first"]
    print(f"{c['policy']} minus {first}: truth {gain:+.4f}; DR {dr['estimate']:+.4f} "
          f"[{dr['ci_low']:+.4f}, {dr['ci_high']:+.4f}] ({'covers' if dr['ci_low'] <= gain <= dr['ci_high'] else 'misses'})")
