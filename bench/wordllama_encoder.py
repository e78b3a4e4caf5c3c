"""The WordLlama package's own encoder timed as `verdict bench encoder` times verdict's:
loading, one batch of every text, and one text at a time (p50, p99); one JSON line.

    .venv/bin/python bench/wordllama_encoder.py TEXTS.csv COLUMN [RUNS]

The package's table and tokenizer are opened as scripts/goldens/wordllama_embeddings.py
opens them (its own loader goes to the network for the tokenizer) and handed to its
`WordLlamaInference`, whose `embed` (numpy, batches of 64) is what is timed.
"""

import csv
import json
import pathlib
import statistics
import sys
import time
from importlib.metadata import version

import numpy as np
import wordllama
from safetensors import safe_open
from tokenizers import Tokenizer
from wordllama.inference import WordLlamaInference

path, column = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
with open(path, newline="") as f:
    texts = [row[column] for row in csv.DictReader(f)]
package = pathlib.Path(wordllama.__file__).parent


def load():
    with safe_open(package / "weights" / "l2_supercat_256.safetensors", framework="np") as f:
        table = f.get_tensor("embedding.weight")
    tokenizer = Tokenizer.from_file(str(package / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    return WordLlamaInference(table, tokenizer)


def timed(action):
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


loads = [timed(load) for _ in range(runs)]
model = loads[-1][1]
batch = statistics.median(timed(lambda: model.embed(texts))[0] for _ in range(runs))
single = sorted(timed(lambda: model.embed([t]))[0] for t in texts)
print(json.dumps({
    "texts": len(texts),
    "wordllama": version("wordllama"),
    "numpy": np.__version__,
    "load_seconds": statistics.median(t for t, _ in loads),
    "batch_seconds": batch,
    "texts_per_second": len(texts) / batch,
    "single_p50_ms": single[round((len(single) - 1) * 0.5)] * 1e3,
    "single_p99_ms": single[round((len(single) - 1) * 0.99)] * 1e3,
    "runs": runs,
}))
