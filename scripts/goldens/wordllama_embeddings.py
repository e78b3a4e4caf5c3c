"""WordLlama's embeddings of the first 200 AlpacaEval prompts, from the WordLlama
package's own inference code, for the golden file the encoder's test checks
(crates/encoder/tests/wordllama.rs) to 1e-4.

    .venv/bin/python scripts/goldens/wordllama_embeddings.py [SHARED_DATA_DIR]

The package (PyPI `wordllama`, MIT) ships its 256-d table and LLaMA tokenizer; its
loader `WordLlama.load()` looks for the tokenizer in a folder where the wheel does not
put it and then tries the network, so the two files are opened here directly and
handed to the package's `WordLlamaInference`, whose `embed` computes the vectors
(tokens without special tokens, no truncation, mean pooling, no normalisation).
Prompts: `instructions.csv` of the AlpacaEval data (CC BY-NC 4.0; the prompts are not
copied, only their ids and embeddings are written). Output: one row per prompt,
`instruction_id` then the 256 values at 9 significant digits, after a header line
recording the package versions.
"""

import csv
import sys
from importlib.metadata import version
from pathlib import Path

import wordllama
from safetensors import safe_open
from tokenizers import Tokenizer
from wordllama.inference import WordLlamaInference

root = Path(__file__).resolve().parents[2]
shared = Path(sys.argv[1]) if len(sys.argv) > 1 else root.parent / "shared" / "data"
package = Path(wordllama.__file__).parent
with safe_open(package / "weights" / "l2_supercat_256.safetensors", framework="np") as f:
    table = f.get_tensor("embedding.weight")
tokenizer = Tokenizer.from_file(str(package / "tokenizers" / "l2_supercat_tokenizer_config.json"))
model = WordLlamaInference(table, tokenizer)

with open(shared / "alpacaeval-judges" / "instructions.csv", newline="") as f:
    rows = list(csv.DictReader(f))[:200]
vectors = model.embed([r["instruction"] for r in rows], norm=False)

out = root / "crates" / "encoder" / "tests" / "data" / "wordllama_alpacaeval_200.csv"
out.parent.mkdir(parents=True, exist_ok=True)
with open(out, "w", newline="") as f:
    f.write(
        f"# wordllama {version('wordllama')}, tokenizers {version('tokenizers')}, "
        f"safetensors {version('safetensors')}, numpy {version('numpy')}; "
        "scripts/goldens/wordllama_embeddings.py\n"
    )
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(["instruction_id"] + [f"e{d}" for d in range(vectors.shape[1])])
    for r, v in zip(rows, vectors):
        writer.writerow([r["instruction_id"]] + [f"{x:.9g}" for x in v])
print(f"wrote {len(rows)} embeddings of dimension {vectors.shape[1]} to {out.relative_to(root)}")
