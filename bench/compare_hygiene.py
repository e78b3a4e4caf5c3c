"""The vote-hygiene steps FastChat's leaderboard code runs in pandas (duplicates
dropped, a per-judge daily cap), timed on the same judged log as `verdict rank
--collapse-duplicates --max-votes-per-judge-day 50`, for BENCHMARKS.md:

    python3 bench/compare_hygiene.py bench/out/arena-5m-judged.parquet

Prints each stage's wall time and the rows kept (which must equal verdict's count).
pandas and pyarrow only; the outlier test has no pandas counterpart to time.
"""
import sys
import time

import numpy as np
import pandas as pd

start = time.perf_counter()
frame = pd.read_parquet(sys.argv[1], columns=["model_a", "model_b", "winner", "judge", "tstamp", "prompt"])
read = time.perf_counter()
frame = frame.sort_values("tstamp", kind="stable")
low = np.where(frame["model_a"] < frame["model_b"], frame["model_a"], frame["model_b"])
high = np.where(frame["model_a"] < frame["model_b"], frame["model_b"], frame["model_a"])
frame = frame.assign(low=low, high=high)
frame = frame.drop_duplicates(subset=["judge", "prompt", "low", "high"], keep="first")
deduplicated = time.perf_counter()
day = (frame["tstamp"] // 86_400).astype("int64")
frame = frame[frame.groupby([frame["judge"], day]).cumcount() < 50]
capped = time.perf_counter()
print(f"read {read - start:.2f} s, duplicates {deduplicated - read:.2f} s, cap {capped - deduplicated:.2f} s, "
      f"hygiene {capped - read:.2f} s, total {capped - start:.2f} s; kept {len(frame)} rows")
