"""Inputs for the arena-trust benchmarks (BENCHMARKS.md, "Leaderboards people can
trust"), made from a `verdict bench arena` log:

    python3 bench/arena_trust_data.py bench/out/arena-5m.parquet bench/out

writes, beside the plain log,
- arena-5m-judged.parquet: the log with LMArena's hygiene columns — `judge` (one of
  100,000 voters, drawn with popularity weights (u+1)^-0.8 so that some vote
  thousands of times), `tstamp` (seconds since 1970 over 60 days, in log order) and
  `prompt` (one of 2,000,000 prompt hashes, so a few battles repeat a judge, prompt
  and pair);
- arena-5m-head.parquet and arena-5m-tail50k.parquet: the log without its last 50,000
  battles and those 50,000 battles, for the incremental refit;
- arena-1m.parquet: its first 1,000,000 battles.
Seeded (numpy's default_rng(0)); pyarrow and numpy only.
"""
import pathlib
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

source, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
table = pq.read_table(source, columns=["model_a", "model_b", "winner"])
rows = table.num_rows
rng = np.random.default_rng(0)
weights = (np.arange(100_000) + 1.0) ** -0.8
judge = rng.choice(100_000, size=rows, p=weights / weights.sum())
tstamp = 1_700_000_000.0 + np.sort(rng.uniform(0, 60 * 86_400, size=rows))
prompt = rng.integers(0, 2_000_000, size=rows)
judged = table.append_column("judge", pa.array([f"u{j}" for j in judge])).append_column(
    "tstamp", pa.array(tstamp)
).append_column("prompt", pa.array([f"{p:016x}" for p in prompt]))
pq.write_table(judged, out / "arena-5m-judged.parquet")
pq.write_table(table.slice(0, rows - 50_000), out / "arena-5m-head.parquet")
pq.write_table(table.slice(rows - 50_000), out / "arena-5m-tail50k.parquet")
pq.write_table(table.slice(0, 1_000_000), out / "arena-1m.parquet")
for k in (1, 2):
    pq.write_table(judged.slice(0, k * 1_000_000), out / f"arena-{k}m-judged.parquet")
print("wrote", sorted(p.name for p in out.glob("arena-*.parquet")))
