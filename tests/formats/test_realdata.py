"""The real logs in ../shared/realdata (dev machines only; skipped in a user's clone)."""

from __future__ import annotations

from collections import Counter

import pytest

from auditor import sources
from auditor.formats import FileReader
from auditor.model import Conversation
from auditor.replay import replay
from tests.helpers import REALDATA, audit, requires_realdata

pytestmark = requires_realdata


def test_tau_bench_reads_all_200_conversations_with_nothing_unreadable():
    report = audit([REALDATA / "tau-bench" / "gpt-4o-airline.json"])
    assert report.counts.conversations == 200
    assert report.errors == ()
    codes = Counter(f.code for f in report.findings)
    assert codes["IN001"] == 0 and codes["IN002"] == 0
    for f in report.findings:
        assert f.path.endswith("gpt-4o-airline.json")
        assert f.line is not None and f.pointer and f.conversation and f.turn is not None


def test_tau2_bench_reads_all_168_simulations():
    report = audit([REALDATA / "tau2-bench-blakeelias"])
    assert report.counts.conversations == 168
    assert report.errors == ()
    assert not [f for f in report.findings if f.code in ("IN001", "IN002")]


def test_every_call_in_the_tau_logs_is_answered():
    # The manifest counts as many results as calls, in both benchmarks.
    report = audit(
        [REALDATA / "tau-bench", REALDATA / "tau2-bench-blakeelias"], select=["EX001", "EX002"]
    )
    assert report.findings == ()


SESSIONS = REALDATA / "sessions-and-apis"


def _unreadable(report) -> list:
    return [f for f in report.findings if f.code in ("IN001", "IN002")]


@pytest.mark.parametrize(
    ("folder", "files", "conversations", "fmt"),
    [
        ("who_and_when", 184, 184, "multiagent"),
        ("swe-agent", 22, 22, "swe-agent"),
        # 24 .txt files in test-data: 22 rendered conversations, 2 token-id dumps without frames
        ("harmony", 22, 22, "harmony"),
    ],
)
def test_benchmarks_are_read_whole(folder, files, conversations, fmt):
    report = audit([REALDATA / folder])
    assert report.errors == ()
    assert _unreadable(report) == []
    assert report.counts.files == files
    assert report.counts.conversations == conversations
    formats = {c.format for c in _read(REALDATA / folder)}
    assert formats == {fmt}


def test_every_session_exchange_and_response_body_is_read():
    report = audit([SESSIONS])
    assert report.errors == ()
    assert _unreadable(report) == []
    assert report.counts.files == 22 and report.counts.conversations == 22
    by_folder = Counter(
        (c.location.path.split("sessions-and-apis/")[1].split("/")[0], c.format)
        for c in _read(SESSIONS)
    )
    assert by_folder == {
        ("anthropic-messages-api", "exchange"): 4,
        ("api-exchanges", "exchange"): 5,
        ("claude-code", "stream"): 5,
        ("codex-cli", "stream"): 2,
        ("responses-api", "exchange"): 6,
    }


def test_all_real_data_reads_without_unrecognised_records():
    report = audit([REALDATA])
    assert report.errors == ()
    assert _unreadable(report) == []
    assert report.counts.conversations == 200 + 168 + 184 + 22 + 22 + 22


def test_unanswered_and_orphan_results_in_all_real_data():
    # Every call in the sessions has its result (MANIFEST); SWE-agent's last text action
    # (`submit`) has none, and EX001 reads only structured calls. One harmony transcript ends on
    # a call; another is a lone tool response, a parser's test case with no conversation
    # around it, which EX002 leaves alone.
    report = audit([REALDATA], select=["EX001", "EX002"])
    found = [(f.code, f.path.rsplit("/", 1)[1], f.line, f.message) for f in report.findings]
    assert found == [
        (
            "EX001",
            "test_multi_turn_auto_drop_analysis.txt",
            6,
            "the transcript ends on `python` call with no result",
        ),
    ]


def test_claude_code_rejections_are_denied_approvals_never_tool_errors():
    (session,) = _read(
        SESSIONS
        / "claude-code"
        / "marot-spotter"
        / "test"
        / "fixtures"
        / "transcripts"
        / "short.jsonl"
    )
    denials = [m for m in session.messages if m.approval_decision is not None]
    assert [m.location.line for m in denials] == [11, 12]
    assert all(not m.approval_decision.approved for m in denials)
    assert all(m.result.is_error is False for m in denials)
    # the MANIFEST's other counts of errors hold: rejections are not among them
    errors = Counter()
    for conversation in _read(SESSIONS / "claude-code"):
        name = conversation.location.path.rsplit("/", 1)[1]
        errors[name] += sum(1 for m in conversation.messages if m.result and m.result.is_error)
    assert errors == {
        "agent-a2898e3.jsonl": 8,
        "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl": 1,
        "short.jsonl": 0,
        "subagent.jsonl": 0,
        "tool_heavy.jsonl": 0,
    }


def test_session_calls_match_the_manifest_and_are_all_answered():
    calls = Counter()
    for conversation in _read(SESSIONS / "claude-code") + _read(SESSIONS / "codex-cli"):
        exchanges = replay(conversation).exchanges
        assert all(e.answered for e in exchanges), conversation.location.path
        calls[conversation.id] += len(exchanges)
    assert calls == {
        "4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3": 33,
        "8463c716-a2ea-4c14-9efa-87158ebd9f20": 18,
        "55604662-cf2a-4331-851a-ec234028f8ca": 2,  # short.jsonl
        "491e126e-1e71-469c-ade2-fcc8af567c74": 16,  # subagent.jsonl
        "d6e0bada-1959-4eec-a9d2-0bfade768d8f": 6,  # tool_heavy.jsonl
        "019e1625-789d-76c0-80ab-3724b5ddb799": 105,  # 99 function, 3 custom, 3 web search calls
        "019e1695-0522-7c83-8b39-0dd379793f80": 38,
    }


def _read(path) -> list:
    """Every conversation the formats read below `path`."""
    out = []
    for source in sources.discover([str(path)]):
        if not isinstance(source, sources.Source):
            continue  # PROVENANCE, README: files of other types
        reader = FileReader()
        for record in sources.read(source):
            if isinstance(record, sources.Record):
                out.extend(c for c in reader.feed(record) if isinstance(c, Conversation))
        out.extend(c for c in reader.finish() if isinstance(c, Conversation))
    return out


def test_who_and_when_executor_reports_answer_the_code_they_ran():
    # Every AG2 `exitcode:` report answers the blocks of the message before it, and every
    # Magentic-One terminal report but one the block it ran: in Hand-Crafted/47 the
    # orchestrator's `unzip …` reached the terminal without a fence the log keeps.
    calls = Counter()
    unpaired = []
    for conversation in _read(REALDATA / "who_and_when"):
        folder = conversation.location.path.split("/")[-2]
        for e in replay(conversation).exchanges:
            assert e.result is not None and e.call.origin == "text"
            calls[(folder, e.call.name, e.failed)] += 1
        unpaired += [
            (conversation.location.path.rsplit("/", 1)[1], m.location.pointer)
            for m in conversation.messages
            if m.role == "user" and m.text.startswith(("exitcode:", "The script ran"))
        ]
    assert unpaired == [("47.json", "/history/55")]
    assert calls == {
        ("Algorithm-Generated", "python", False): 154,
        ("Algorithm-Generated", "python", True): 98,
        ("Algorithm-Generated", "sh", False): 19,
        ("Algorithm-Generated", "sh", True): 8,
        ("Hand-Crafted", "python", False): 6,
        ("Hand-Crafted", "python", True): 1,
        ("Hand-Crafted", "click", False): 277,
        ("Hand-Crafted", "input_text", False): 142,
        ("Hand-Crafted", "web_search", False): 52,
        ("Hand-Crafted", "page_down", False): 65,
        ("Hand-Crafted", "page_up", False): 1,
        ("Hand-Crafted", "visit_url", False): 9,
        ("Hand-Crafted", "history_back", False): 3,
    }
