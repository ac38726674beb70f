"""Reading by shape: the zoo of `fixtures/formats/structural/` (one shape per writer, named in
its NOTICE.md) is read with its calls and results paired, and the nearest negative of each
shape (`fixtures/not-transcripts/structural/`) is not taken for a transcript."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from auditor import formats, sources
from auditor.formats import FileReader, Problem
from auditor.formats.structural import inferred
from auditor.model import Conversation, Location
from auditor.replay import replay
from auditor.sources import Record
from tests.helpers import FIXTURES, FORMAT_DIR

ZOO = sorted(p for p in (FORMAT_DIR / "structural").glob("*.json*"))
NEGATIVES = sorted((FIXTURES / "not-transcripts" / "structural").glob("*.json*"))

CALLS = {
    "ai-sdk-ui-messages.json": 2,
    "adk-session.json": 2,
    "bedrock-invocation-log.jsonl": 2,
    "cohere-chat-history.json": 2,
    "gemini-chat-history.json": 2,
    "haystack-pipeline-output.json": 1,
    "langchain-messages-to-dict.json": 2,
    "llamaindex-chat-store.json": 1,
    "mistral-conversation-entries.json": 2,
    "pydantic-ai-messages.json": 3,
    "semantic-kernel-chat-history.json": 2,
    "toolbench-answer.json": 2,
    "vercel-ai-sdk-response.json": 1,
}
"""Calls each shape holds; the others hold text only."""


def _read(path) -> list[Conversation | Problem]:
    source = sources.Source(str(path), *sources.kind_of(path.name), True)
    reader = FileReader()
    items: list = []
    for record in sources.read(source):
        assert isinstance(record, sources.Record)
        items.extend(reader.feed(record))
    items.extend(reader.finish())
    return items


def test_the_zoo_holds_a_dozen_shapes_no_other_reader_takes():
    assert len(ZOO) >= 12
    for path in ZOO:
        for record in sources.read(sources.Source(str(path), *sources.kind_of(path.name), True)):
            assert formats.detect(record).NAME == "structural", path.name


@pytest.mark.parametrize("path", ZOO, ids=[p.name for p in ZOO])
def test_each_shape_is_read_whole_with_its_calls_paired(path):
    items = _read(path)
    assert not [i for i in items if isinstance(i, Problem)], path.name
    conversations = [i for i in items if isinstance(i, Conversation)]
    assert conversations and all(c.format == "structural" for c in conversations)
    exchanges = [e for c in conversations for e in replay(c).exchanges]
    assert len(exchanges) == CALLS.get(path.name, 0)
    paired = [e for e in exchanges if e.result is not None]
    if path.name == "toolbench-answer.json":  # `Finish` carries the answer: no result follows
        assert [e.call.name for e in exchanges if e.result is None] == ["Finish"]
        assert len(paired) == 1
    else:
        assert len(paired) == len(exchanges)
    for c in conversations:
        roles = {m.role for m in c.messages}
        assert "assistant" in roles and roles <= {"system", "user", "assistant", "tool"}


@pytest.mark.parametrize("path", NEGATIVES, ids=[p.name for p in NEGATIVES])
def test_the_nearest_negative_of_each_shape_is_no_transcript(path):
    for record in sources.read(sources.Source(str(path), *sources.kind_of(path.name), True)):
        assert formats.detect(record) is None, path.name


def _record(value, path="x.json", line=None) -> Record:
    return Record(Location(path, line), value, "json")


def test_what_it_inferred_is_said_in_words():
    value = {
        "turns": [
            {"sender": "human", "text": "Weather in Oslo?"},
            {
                "sender": "bot",
                "content": [{"type": "tool_use", "id": "t1", "name": "weather", "input": {}}],
            },
            {
                "sender": "human",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "-3 °C"}],
            },
            {"sender": "bot", "text": "It is -3 °C."},
        ]
    }
    said = inferred(_record(value))
    assert said == (
        "read by shape: roles from `sender`, calls from `tool_use` blocks, "
        "results paired by `tool_use_id`"
    )


def test_a_list_read_only_in_part_is_one_problem_and_a_conversation_never_audited():
    value = {
        "id": "run-9",
        "log": [
            {"role": "user", "content": "Find the file."},
            {"role": "assistant", "content": [{"type": "hologram", "frames": 3}]},
            {"role": "assistant", "content": "Found it."},
        ],
    }
    problem, unread = formats.by_name("structural").parse(_record(value))
    assert isinstance(problem, Problem) and problem.conversation == "run-9"
    assert problem.location.pointer == "/log/1/content/0"
    assert problem.reason.startswith("read by shape only in part: a content part of no known")
    assert isinstance(unread, Conversation) and unread.id == "run-9"
    assert unread.messages == () and unread.unread == problem.reason


def test_toolbench_attempts_are_read_as_the_last_one():
    (conversation,) = _read(FORMAT_DIR / "structural" / "toolbench-answer.json")
    assert isinstance(conversation, Conversation)
    assert conversation.location.pointer == "/answer_generation/train_messages/1"
    assert [t.name for t in conversation.tools or ()] == [
        "top_scorers_for_football_stats",
        "Finish",
    ]


def test_steps_that_are_no_conversation_alone_are_joined():
    value = {
        "task": "sum",
        "steps": [
            {
                "messages": [
                    {"role": "user", "content": "Add 2 and 3."},
                    {"role": "assistant", "content": "Calling add."},
                ]
            },
            {
                "messages": [
                    {
                        "role": "assistant",
                        "tool_calls": [{"id": "c1", "name": "add", "args": {"a": 2, "b": 3}}],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "5"},
                ]
            },
        ],
    }
    items = list(formats.by_name("structural").parse(_record(value)))
    assert [type(i) for i in items] == [Conversation]


def test_a_stream_of_typed_event_lines_is_one_conversation():
    lines = [
        {"kind": "event", "sender": "customer", "text": "List the files.", "ts": 1},
        {"type": "tool_use", "tool_name": "ls", "tool_id": "u1", "parameters": {}, "ts": 2},
        {"type": "tool_result", "tool_id": "u1", "status": "success", "output": "a.txt", "ts": 3},
        {"sender": "agent", "content": "One file: ", "delta": True, "ts": 4},
        {"sender": "agent", "content": "a.txt.", "delta": True, "ts": 5},
    ]
    reader = FileReader()
    items = []
    for n, line in enumerate(lines, 1):
        items.extend(reader.feed(_record(line, "events.jsonl", n)))
    items.extend(reader.finish())
    (conversation,) = items
    assert conversation.id == "events.jsonl"
    assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "assistant"]
    assert conversation.messages[-1].text == "One file: a.txt."
    assert conversation.messages[2].result.call_id == "u1"
    assert list(reader.seen) == [
        "read by shape: roles from `sender`, `type`, calls from `type: tool_use` events, "
        "results paired by `tool_id`"
    ]


def test_detection_never_raises():
    deep: list = []
    node = deep
    for _ in range(5000):
        node.append([])
        node = node[0]
    for value in (deep, {"a": [{"role": "user", "content": {"x": [1]}}] * 3}, [None, 1, "s"]):
        assert formats.by_name("structural").detect(_record(value)) in (True, False)


def test_calls_kept_under_a_key_it_does_not_know_make_the_reading_partial():
    value = [
        {"speaker": "user", "text": "Open the settings page."},
        {"speaker": "agent", "text": "Opening it.", "actions": [{"click": "#settings"}]},
        {"speaker": "user", "text": "Thanks."},
    ]
    problem, _unread = formats.by_name("structural").parse(_record(value))
    assert isinstance(problem, Problem) and problem.location.pointer == "/1/actions"
    assert "only in part: `actions`, which may hold calls it cannot read" in problem.reason


def test_a_conversation_read_in_part_is_counted_and_named_and_gets_no_finding(tmp_path):
    log = tmp_path / "chat.json"
    # It would give EX001 (a call never answered) if it were audited.
    log.write_text(
        json.dumps(
            {
                "chat": [
                    {"speaker": "user", "text": "Delete the old branches."},
                    {"speaker": "agent", "tool_calls": [{"id": "c1", "name": "git_branch_d"}]},
                    {"speaker": "agent", "content": [{"type": "hologram"}], "text": "Done."},
                ]
            }
        )
    )
    proc = subprocess.run(
        [sys.executable, "-m", "auditor", str(log), "-f", "json"], capture_output=True
    )
    report = json.loads(proc.stdout)
    assert [(f["code"], f["conversation"]) for f in report["findings"]] == [("IN002", str(log))]
    assert report["summary"]["conversations"] == 1
    assert report["summary"]["tool_calls"] == 0
    reasons = {
        gap["reason"]
        for family in report["coverage"]["families"].values()
        for gap in family["not_examined"]
    }
    assert "read only in part (IN002 names each)" in reasons
