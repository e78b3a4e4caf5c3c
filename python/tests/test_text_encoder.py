"""The text encoder from Python: ``verdict_arena.embed`` equals the WordLlama package's
own ``WordLlamaInference.embed`` on 200 real AlpacaEval prompts (to 1e-4) and the
command line's ``verdict embed`` exactly; a NashEval fitted on a battle log's prompts
through the encoder routes held-out prompts by topic, and its model file is the bytes
``verdict fit`` writes."""

from __future__ import annotations

import csv
import json
import os
import pathlib
import random

import numpy as np
import pandas as pd
import pytest

import verdict_arena as va
from _support import ROOT, cli

ENCODER = pathlib.Path(os.environ.get("VERDICT_ENCODER", ROOT / "encoders" / "wordllama-l2-supercat"))
SHARED = pathlib.Path(os.environ.get("VERDICT_SHARED_DATA", ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="module")
def encoder() -> pathlib.Path:
    assert ENCODER.is_dir(), f"{ENCODER} is missing: run `bash scripts/setup.sh`"
    return ENCODER


def test_embeddings_equal_the_wordllama_package_on_200_real_prompts(encoder):
    wordllama = pytest.importorskip("wordllama")
    from safetensors import safe_open
    from tokenizers import Tokenizer
    from wordllama.inference import WordLlamaInference

    instructions = SHARED / "alpacaeval-judges" / "instructions.csv"
    if not instructions.exists():
        pytest.skip(f"shared data folder {instructions.parent} is missing (set VERDICT_SHARED_DATA)")
    with open(instructions, newline="") as f:
        prompts = [row["instruction"] for row in csv.DictReader(f)][:200]
    # The package's loader looks for its tokenizer where the wheel does not put it and
    # then goes to the network: its two files are opened here and handed to its own
    # inference class.
    package = pathlib.Path(wordllama.__file__).parent
    with safe_open(package / "weights" / "l2_supercat_256.safetensors", framework="np") as f:
        table = f.get_tensor("embedding.weight")
    tokenizer = Tokenizer.from_file(str(package / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    theirs = WordLlamaInference(table, tokenizer).embed(prompts, norm=False)
    ours = va.embed(prompts, encoder)
    assert ours.shape == (200, 256)
    assert np.max(np.abs(ours - theirs)) < 1e-4
    normalized = WordLlamaInference(table, tokenizer).embed(prompts, norm=True)
    assert np.max(np.abs(va.embed(prompts, encoder, normalize=True) - normalized)) < 1e-4


def test_python_embeddings_are_the_command_line_s(encoder, tmp_path):
    texts = ["Write a haiku about rust.", "Solve 3x + 4 = 19.", "", "Ünïcödé and emoji 🦀"]
    table = tmp_path / "texts.csv"
    pd.DataFrame({"context_id": [f"c{i}" for i in range(len(texts))], "prompt": texts}).to_csv(table, index=False)
    out = tmp_path / "embedded.jsonl"
    cli("embed", str(table), "--text-col", "prompt", "--encoder", str(encoder), "--out", str(out))
    from_cli = [json.loads(line)["embedding"] for line in out.read_text().splitlines()]
    frame = pd.DataFrame({"prompt": texts})
    assert va.embed(frame, encoder, text_col="prompt").tolist() == from_cli


MATH = ["Solve for x: {a}x + {b} = {c}.", "What is the derivative of x^{a} + {b}x?",
        "Factor the polynomial x^2 + {a}x + {b}.", "What is {a} times {b} plus {c}?"]
POETRY = ["Write a poem about {w} in the style of a sonnet.", "Compose a haiku about {w} at dawn.",
          "Write song lyrics about longing for {w}.", "Describe {w} in vivid, lyrical prose."]
WORDS = ["the sea", "autumn leaves", "a lighthouse", "the moon", "winter"]


def _prompt(topic: int, rng: random.Random) -> str:
    template = rng.choice(MATH if topic == 0 else POETRY)
    return template.format(a=rng.randint(2, 9), b=rng.randint(2, 20), c=rng.randint(2, 50), w=rng.choice(WORDS))


AGENTS = ["mathwiz", "bard", "generalist"]


def _topic_battles(directory: pathlib.Path, rng: random.Random, battles: int = 3000) -> pathlib.Path:
    """A battle log with a ``prompt`` column whose winners follow the prompt's topic:
    ``mathwiz`` best at math and worst at poetry, ``bard`` the reverse (Bradley–Terry
    strengths 2, -1.5, and 0.5 for ``generalist``)."""
    strength = [[2.0, -1.5, 0.5], [-1.5, 2.0, 0.5]]
    rows = []
    for _ in range(battles):
        topic = rng.randrange(2)
        a, b = rng.sample(range(3), 2)
        p = 1 / (1 + np.exp(strength[topic][b] - strength[topic][a]))
        rows.append({"model_a": AGENTS[a], "model_b": AGENTS[b],
                     "winner": "model_a" if rng.random() < p else "model_b", "prompt": _prompt(topic, rng)})
    path = directory / "battles.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_a_fit_on_prompts_routes_by_topic_and_matches_the_command_line(encoder, tmp_path):
    rng = random.Random(3)
    agents = AGENTS
    battles = _topic_battles(tmp_path, rng)
    model = va.NashEval(backbone="linear", policy="solver", folds=3, encoder=encoder)
    model.fit(battles=str(battles), text_col="prompt")
    held = pd.DataFrame({"context_id": [f"t{i}" for i in range(20)],
                         "prompt": [_prompt(i % 2, rng) for i in range(20)]})
    predicted = model.predict(held)
    best = predicted[agents].idxmax(axis=1).tolist()
    assert best == [["mathwiz", "bard"][i % 2] for i in range(20)]
    saved = tmp_path / "python.json"
    model.save(saved)
    by_cli = tmp_path / "cli.json"
    cli("fit", "--battles", str(battles), "--text-col", "prompt", "--encoder", str(encoder),
        "--backbone", "linear", "--policy", "solver", "--folds", "3", "--out", str(by_cli))
    assert saved.read_bytes() == by_cli.read_bytes()
    # Without the encoder a model fitted with one is refused, naming it.
    loaded = va.NashEval.load(saved)
    with pytest.raises(va.errors.SettingError, match="wordllama-l2-supercat"):
        loaded.predict(held)
    assert loaded.predict(held, encoder=encoder).equals(predicted)


class _FakeUpstream:
    """An OpenAI-compatible upstream on a free loopback port: every agent's base URL
    is ``http://ADDR/AGENT``; a chat is answered ``hello from AGENT``."""

    def __init__(self):
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the standard library's name)
                length = int(self.headers.get("content-length", 0))
                self.rfile.read(length)
                agent = self.path.strip("/").split("/")[0]
                body = json.dumps({
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": agent,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": f"hello from {agent}"}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4},
                }).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def test_the_official_openai_client_is_routed_by_topic(encoder, tmp_path):
    """``fit --battles --text-col prompt --encoder`` then ``verdict serve``: the official
    ``openai`` client, given only a base URL and a model name, has held-out prompts
    answered by their topic's best agent; ``model=<agent>`` pins that agent and
    ``metadata`` passes through."""
    import subprocess

    openai = pytest.importorskip("openai")
    rng = random.Random(8)
    agents = AGENTS
    battles = _topic_battles(tmp_path, rng)
    model = tmp_path / "router.json"
    cli("fit", "--battles", str(battles), "--text-col", "prompt", "--encoder", str(encoder),
        "--backbone", "linear", "--policy", "solver", "--folds", "3", "--out", str(model))
    upstream = _FakeUpstream()
    upstreams = tmp_path / "upstreams.toml"
    upstreams.write_text("".join(
        f'[upstream.{a}]\nbase_url = "http://{upstream.address}/{a}"\ncost = 1.0\n\n' for a in agents
    ))
    binary = os.environ.get("VERDICT_BIN", str(ROOT / "target" / "debug" / "verdict"))
    server = subprocess.Popen(
        [binary, "serve", str(model), "--listen", "127.0.0.1:0", "--encoder", str(encoder),
         "--upstreams", str(upstreams)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        first = server.stdout.readline().strip()
        assert first.startswith("listening on "), first + server.stderr.read()
        client = openai.OpenAI(base_url=first.removeprefix("listening on ") + "/v1", api_key="unused")
        held = [(_prompt(i % 2, rng), ["mathwiz", "bard"][i % 2]) for i in range(20)]
        right = 0
        for prompt, best in held:
            raw = client.chat.completions.with_raw_response.create(
                model="verdict-argmax", messages=[{"role": "user", "content": prompt}],
                metadata={"team": "eval"},
            )
            answer = raw.parse()
            routed = raw.headers["x-verdict-model"]
            assert answer.choices[0].message.content == f"hello from {routed}"
            right += routed == best
        assert right >= 18, f"{right} of 20 routed by topic"
        pinned = client.chat.completions.with_raw_response.create(
            model="generalist", messages=[{"role": "user", "content": held[0][0]}],
        )
        assert pinned.headers["x-verdict-model"] == "generalist"
        with pytest.raises(openai.UnprocessableEntityError, match="verdict\\[-sample\\|-argmax\\]"):
            client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    finally:
        server.terminate()
        server.wait(timeout=30)
        upstream.close()
