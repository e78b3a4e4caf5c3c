"""Every setting of each job's settings document is a keyword argument of the Python
call that runs the job, under the same name and with the same default — and every
keyword argument is a setting, or one of the few that say what to read, where to
write or how to show it. The list of settings comes from the documents themselves
(``_native.default_documents()``, the library's defaults), not from a hand list; the
command line's flags are checked against the same documents in
crates/cli/tests/suite/settings_parity.rs."""

from __future__ import annotations

import inspect
import json

import verdict_arena as va
from verdict_arena import _native

DOCUMENTS = json.loads(_native.default_documents())

# The Python calls of each job.
CALLS = {
    "rank": [va.rank],
    "judge": [va.judge],
    "fit": [va.NashEval.__init__, va.NashEval.fit],
    "simulate": [va.simulate],
}

# Keyword arguments that are not settings: what a call reads, where its state lives
# and how its result comes back.
NOT_SETTINGS = {
    "rank": {"battles", "as_frame"},
    "judge": {"items", "judges", "ledger", "gold", "progress"},
    # `truth` is the simulator's oracle (the lab's), not a setting of a fit.
    "fit": {"self", "contexts", "feedback", "battles", "embeddings", "embeddings_col", "truth"},
    "simulate": {"out"},
}

# Settings a job's document has that its Python call takes elsewhere, and where.
ELSEWHERE = {
    "judge": {"plan": "verdict_arena.plan_budget"},
}


def keywords(job: str) -> dict:
    found = {}
    for call in CALLS[job]:
        for name, parameter in inspect.signature(call).parameters.items():
            found[name] = parameter.default
    return found


def same_default(document_value, python_value) -> bool:
    """The document's default against the keyword's: none is ``null`` (an empty list
    is none too), numbers compare as numbers, a norm's text (``"2"``) as text."""
    if document_value in (None, []) or python_value in (None, (), []):
        return document_value in (None, []) and python_value in (None, (), [])
    if isinstance(document_value, bool) or isinstance(python_value, bool):
        return document_value is python_value
    if isinstance(document_value, (int, float)) and isinstance(python_value, (int, float)):
        return float(document_value) == float(python_value)
    return str(document_value) == str(python_value)


def test_every_job_has_a_document_and_a_call():
    assert set(DOCUMENTS) == set(CALLS)
    assert len(DOCUMENTS["rank"]) > 40 and len(DOCUMENTS["fit"]) > 40


def test_every_setting_is_a_keyword_with_the_same_default():
    problems = []
    for job, document in DOCUMENTS.items():
        found = keywords(job)
        for setting, default in document.items():
            if setting in ELSEWHERE.get(job, {}):
                continue
            if setting not in found:
                problems.append(f"{job}: no keyword {setting!r}")
            elif found[setting] is inspect.Parameter.empty:
                # A required keyword: the document has no default either.
                if default is not None:
                    problems.append(f"{job}: {setting!r} is required but defaults to {default!r}")
            elif not same_default(default, found[setting]):
                problems.append(f"{job}: {setting!r} defaults to {found[setting]!r}, the document to {default!r}")
    assert not problems, "\n".join(problems)


def test_every_keyword_is_a_setting():
    problems = []
    for job, document in DOCUMENTS.items():
        for name in keywords(job):
            if name not in document and name not in NOT_SETTINGS[job]:
                problems.append(f"{job}: keyword {name!r} is no setting of the document")
    assert not problems, "\n".join(problems)


def test_a_setting_of_the_other_world_is_refused_by_name(tmp_path):
    # Both faces read the same document: a world's own setting given to the other
    # world is refused, naming the keyword, before anything is written.
    import pytest

    with pytest.raises(va.errors.SettingError, match="voters"):
        va.simulate(tmp_path / "arena", world="arena", voters=2, contexts=100, test_contexts=10)
    with pytest.raises(va.errors.SettingError, match="agents"):
        va.simulate(tmp_path / "g", agents=4, contexts=100, test_contexts=10)
    assert not (tmp_path / "arena").exists() and not (tmp_path / "g").exists()
