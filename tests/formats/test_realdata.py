"""The real logs beside the checkout (../shared/realdata, realdata-3 and realdata-next; dev
machines only, each skipped in a user's clone): whole corpora and what several readers make of
them. A reader's own tests on these logs are in its module."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from auditor import sources
from tests.formats.shared import call_names
from tests.helpers import (
    REALDATA,
    REALDATA_3,
    REALDATA_NEXT,
    SESSIONS,
    audit,
    conversations,
    conversations_below,
    requires_realdata,
    requires_realdata_3,
    requires_realdata_next,
)


def _unreadable(report) -> list:
    return [f for f in report.findings if f.code in ("IN001", "IN002")]


@requires_realdata
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
    formats = {c.format for c in conversations_below(REALDATA / folder)}
    assert formats == {fmt}


@requires_realdata
def test_every_session_exchange_and_response_body_is_read():
    report = audit([SESSIONS])
    assert report.errors == ()
    assert _unreadable(report) == []
    assert report.counts.files == 22 and report.counts.conversations == 22
    by_folder = Counter(
        (c.location.path.split("sessions-and-apis/")[1].split("/")[0], c.format)
        for c in conversations_below(SESSIONS)
    )
    assert by_folder == {
        ("anthropic-messages-api", "exchange"): 4,
        ("api-exchanges", "exchange"): 5,
        ("claude-code", "stream"): 5,
        ("codex-cli", "stream"): 2,
        ("responses-api", "exchange"): 6,
    }


@requires_realdata
def test_all_real_data_reads_without_unrecognised_records():
    report = audit([REALDATA])
    assert report.errors == ()
    assert _unreadable(report) == []
    assert report.counts.conversations == 200 + 168 + 184 + 22 + 22 + 22


@requires_realdata
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


@requires_realdata_next
def test_every_real_sample_is_read_and_these_are_its_findings():
    report = audit([REALDATA_NEXT])
    assert not report.errors
    found = sorted((f.code, f.path.rsplit("/", 1)[-1], f.turn) for f in report.findings)
    assert found == [("EX002", "log_tool_call_error.json", turn) for turn in range(11)] + [
        ("LP001", "log_message_deduplication.eval", 1)
    ]
    # JSON that is no log (licences and notes are text of no transcript, read 16 KB each)
    not_logs = [u.path.split("approvals/")[-1] for u in report.unread if u.reason == "no log shape"]
    assert {u.reason for u in report.unread} <= {"type", "no log shape", "no transcript"}
    assert [p.split("/")[0] + "/…/" + p.rsplit("/", 1)[-1] for p in sorted(not_logs)] == [
        "openai-agents-js/…/sources.json",  # the SDKs' provenance lists
        "openai-agents-python/…/sources.json",
    ]
    assert report.counts.conversations == 49


@requires_realdata_3
def test_the_coding_agents_logs_and_these_are_their_findings():
    folders = ["mini-swe-agent", "litellm-completion-logs", "openhands-v0-events"]
    folders += [
        "openhands-v1-sdk-events",
        "openhands-v1-sdk-events/OpenHands-software-agent-sdk/.pr",
    ]
    report = audit([REALDATA_3 / f for f in folders])
    assert not report.errors
    # 36 + 4 + 6 files and 7 sources of V1 events (5 folders, events.jsonl, the .pr folder)
    assert (report.counts.files, report.counts.conversations) == (53, 56)
    found = Counter((f.code, f.path.split("realdata-3/")[1].split("/")[0]) for f in report.findings)
    assert found == {
        ("EX003", "mini-swe-agent"): 31,  # turns of 2 to 5 bash blocks the harness refused
        ("LP002", "openhands-v0-events"): 2,  # `make` x3, and five refused edits in a row
        ("EX002", "openhands-v1-sdk-events"): 1,  # the excerpt's observation without its action
    }
    # what the walk read by content and found to be no log: the state beside the events, the
    # run summary; licences and a README are text of no transcript; `.pr` was named as well
    skipped = sorted(u.path.rsplit("/", 1)[1] for u in report.unread if u.reason != "type")
    assert [s for s in skipped if s not in ("LICENSE", "README.md")] == [
        ".pr",
        "base_state.json",
        "deepseek__deepseek-chat.deepseek_chat_dev.json",
    ]
    not_logs = {u.reason for u in report.unread if u.path.endswith("base_state.json")}
    assert not_logs == {"not a transcript"}


@requires_realdata_3
@pytest.mark.parametrize(
    ("folder", "files", "n_conversations", "n_calls", "fmt"),
    [
        ("browser-agent-results", 25, 25, 662, "browser-result"),
        ("browser-use-history", 3, 3, 16, "browser-use"),
        ("chatdev-warehouse", 5, 5, 39, "chatdev"),
        ("letta-agent-file", 4, 4, 32, "letta"),
        ("autogen-agentchat", 2, 2, 0, "autogen"),
        ("cline-ui-messages", 1, 1, 67, "cline"),
        ("smolagents-decentralized-example", 3, 3, 0, "smolagents"),
        ("aider-chat-history", 2, 466, 709, "aider"),
    ],
)
def test_realdata_3_files_are_read(folder, files, n_conversations, n_calls, fmt):
    root = REALDATA_3 / folder
    report = audit([root])
    assert report.counts.files == files and report.counts.conversations == n_conversations
    walked = [s.path for s in sources.discover([str(root)]) if isinstance(s, sources.Source)]
    read_here = [c for path in walked for c in conversations(path)]
    assert {c.format for c in read_here} == {fmt}
    assert sum(len(call_names(c)) for c in read_here) == n_calls
    # every skipped file says why, in words
    assert all(u.reason in ("no transcript", "not a transcript", "hidden") for u in report.unread)


@requires_realdata_3
def test_realdata_3_findings_of_these_readers():
    report = audit(
        [REALDATA_3 / "chatdev-warehouse", REALDATA_3 / "smolagents-decentralized-example"]
    )
    assert [(f.code, f.line, f.conversation.rsplit("/", 1)[-1]) for f in report.findings] == [
        ("LP001", 2464, "BackgroundRemoval_THUNLP_20231015220703.log"),
        ("LP004", 2649, "BackgroundRemoval_THUNLP_20231015220703.log"),
        ("LP004", 8, "messages.jsonl"),
    ]
    skipped = {Path(u.path).name: (u.reason, u.detail) for u in report.unread}
    assert skipped["run.log"] == ("not a transcript", "run event logs")
    assert skipped["results_2025-09-01.jsonl"] == ("not a transcript", "results files")
