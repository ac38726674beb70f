"""Tool sets: declared by the log, given with `--tools` / `tools =`, or inferred from the run."""

from __future__ import annotations

import json
import re

import orjson
import pytest

from auditor import config, engine, sources
from auditor.common.errors import ConfigError
from auditor.config import toolsfile
from auditor.sources import spans
from tests.helpers import FIXTURES, ROOT, audit_main

TOOLS = FIXTURES / "tools"
AIRLINE = [
    "book_reservation",
    "cancel_reservation",
    "get_reservation_details",
    "get_user_details",
    "search_direct_flight",
    "update_reservation_baggages",
    "update_reservation_flights",
]


def test_the_documented_example_runs_as_shown():
    readme = (ROOT / "docs" / "formats.md").read_text()
    command = "audit fixtures/tools/airline-run.jsonl --tools fixtures/tools/openai-tools.json"
    assert f"$ {command} -f jsonl -q" in readme
    shown = re.findall(r'^\{"code":"(\w+)",…,"message":"(.*)",…\}$', readme, re.MULTILINE)
    result = audit_main(*command.split()[1:], "-f", "jsonl", "-q", cwd=ROOT)
    assert result.returncode == 1, result.stderr
    found = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert [(f["code"], f["line"], f["turn"]) for f in found] == [("EX005", 1, 3), ("FB003", 1, 5)]
    assert [(f["code"], json.dumps(f["message"], ensure_ascii=False)[1:-1]) for f in found] == shown
    assert result.stderr == b""


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("openai-tools.json", AIRLINE),
        ("anthropic-tools.json", AIRLINE),
        # real MCP traffic: a tools/list JSON-RPC response, and a session recorded as JSON Lines
        ("mcp-tools-list-response.json", ["add", "multiply", "echo", "get_weather"]),
        ("mcp-session.jsonl", ["read_wiki_structure", "read_wiki_contents", "ask_question"]),
    ],
)
def test_tools_files_in_every_shape(name, expected):
    tools = toolsfile.read(TOOLS / name)
    assert [t.name for t in tools] == expected
    assert all(t.parameters is not None for t in tools)


def test_bare_results_request_bodies_and_cassettes(tmp_path):
    add = {"name": "add", "description": "Add two numbers.", "inputSchema": {"type": "object"}}
    shapes = {
        "bare.json": {"tools": [add]},
        "request.json": {"model": "gpt-4o", "messages": [], "tools": [add]},
        "cassette.json": {"interactions": [{"response": {"result": {"tools": [add]}}}]},
    }
    for name, value in shapes.items():
        (tmp_path / name).write_text(json.dumps(value))
        (tool,) = toolsfile.read(tmp_path / name)
        assert (tool.name, tool.description, tool.parameters) == (
            "add",
            "Add two numbers.",
            {"type": "object"},
        )


def test_a_bad_tools_file_is_one_clear_error(tmp_path):
    (tmp_path / "empty.json").write_text('{"result": {"content": []}}')
    (tmp_path / "broken.json").write_text('{"tools": [')
    with pytest.raises(ConfigError, match=r"cannot read --tools .*missing.json: no such file"):
        toolsfile.read(tmp_path / "missing.json")
    with pytest.raises(ConfigError, match=r"invalid --tools .*broken.json: not JSON"):
        toolsfile.read(tmp_path / "broken.json")
    with pytest.raises(ConfigError, match=r"empty.json: no tool declarations found"):
        toolsfile.read(tmp_path / "empty.json")
    result = audit_main(TOOLS / "airline-run.jsonl", "--tools", tmp_path / "empty.json")
    assert result.returncode == 2
    assert result.stderr.count(b"\n") == 1
    assert result.stderr.startswith(b"audit: error: invalid --tools ")


def test_the_configuration_names_a_tools_file_relative_to_itself(tmp_path):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "tools.json").write_bytes((TOOLS / "anthropic-tools.json").read_bytes())
    (tmp_path / "conf" / "audit.toml").write_text('tools = "tools.json"\n')
    settings = config.build(file=config.read(tmp_path / "conf" / "audit.toml"))
    assert [t.name for t in settings.tools or ()] == AIRLINE
    # the command line wins
    given = config.build(
        file=config.read(tmp_path / "conf" / "audit.toml"), tools=str(TOOLS / "mcp-session.jsonl")
    )
    assert [t.name for t in given.tools or ()][:1] == ["read_wiki_structure"]
    (tmp_path / "conf" / "audit.toml").write_text("tools = 3\n")
    with pytest.raises(ConfigError, match="tools must be the path of a file, got 3"):
        config.build(file=config.read(tmp_path / "conf" / "audit.toml"))


def _lines(*conversations: dict) -> str:
    return "".join(json.dumps(c) + "\n" for c in conversations)


def _call(cid: str, name: str, arguments: dict) -> dict:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": cid, "type": "function", "function": function}],
    }


CANCELLED = {
    "id": "cancelled",
    "messages": [
        {"role": "user", "content": "Cancel K1NW8N."},
        _call("c1", "cancel_reservation", {"reservation_id": "K1NW8N"}),
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "cancelled"}'},
        {"role": "assistant", "content": "K1NW8N has been cancelled."},
    ],
}
CLAIMED = {
    "id": "claimed",
    "messages": [
        {"role": "user", "content": "Cancel ABC123."},
        _call("g1", "get_reservation_details", {"reservation_id": "ABC123"}),
        {"role": "tool", "tool_call_id": "g1", "content": '{"status": "active"}'},
        {"role": "assistant", "content": "Your reservation ABC123 has been cancelled."},
    ],
}
OWN_TOOLS = {
    "id": "own-tools",
    "tools": [
        {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
    ],
    "messages": [
        {"role": "user", "content": "Look it up."},
        _call("l1", "get_reservation_details", {"reservation_id": "ABC123"}),
        {"role": "tool", "tool_call_id": "l1", "content": "{}"},
    ],
}


def test_declared_tools_win_then_given_then_inferred(tmp_path):
    log = tmp_path / "run.jsonl"
    log.write_text(_lines(CANCELLED, CLAIMED, OWN_TOOLS))
    inferred = engine.audit([str(log)], config.build(select=["FB003", "EX005"]))
    assert [(f.conversation, f.code, f.message) for f in inferred.findings] == [
        (
            "claimed",
            "FB003",
            "the assistant says “Your reservation ABC123 has been cancelled.”, but no matching "
            "tool (`cancel_reservation`, called in this file) was called successfully since the "
            "user asked at turn 0",
        ),
        (
            "own-tools",
            "EX005",
            "`get_reservation_details` is not a declared tool (declared: `lookup`)",
        ),
    ]
    assert inferred.coverage()["tool_sets"] == {"declared": 1, "file": 0, "inferred": 2}
    assert [(g.rules, g.reason, g.conversations) for g in inferred.gaps] == [
        (("EX005",), "no tools declared or given with --tools", 2)
    ]
    assert (
        "tool sets: 1 declared by the log, 0 from --tools, 2 inferred from the calls in their file "
        "or run (enough for FB003, not for EX005/EX007)"
    ) in inferred.coverage_notes()
    given = engine.audit(
        [str(log)], config.build(select=["FB003", "EX005"], tools=str(TOOLS / "mcp-session.jsonl"))
    )
    # the given tools do not cancel anything; the conversation's own declarations still win
    assert [(f.conversation, f.code) for f in given.findings] == [
        ("cancelled", "EX005"),
        ("claimed", "EX005"),
        ("own-tools", "EX005"),
    ]
    assert given.coverage()["tool_sets"] == {"declared": 1, "file": 2, "inferred": 0}


def test_inference_never_rests_on_calls_that_failed_or_on_nothing(tmp_path):
    failed = json.loads(json.dumps(CANCELLED))
    failed["messages"][2]["content"] = "Error: unknown tool cancel_reservation"
    failed["messages"][3]["content"] = "I could not cancel it."
    log = tmp_path / "run.jsonl"
    log.write_text(_lines(failed, CLAIMED))
    report = engine.audit([str(log)], config.build(select=["FB003"]))
    assert report.findings == ()
    lonely = tmp_path / "lonely.jsonl"
    lonely.write_text(_lines({"id": "talk", "messages": [{"role": "user", "content": "hi"}]}))
    report = engine.audit([str(lonely)], config.build(select=["FB003"]))
    assert [(g.rules, g.reason) for g in report.gaps] == [
        (
            ("FB003",),
            "no tools declared, given with --tools, or inferred from the calls of its logs",
        )
    ]


# The same domain as CLAIMED: it looks the reservation up before cancelling it.
LOOKED_UP_AND_CANCELLED = {
    "id": "looked-up-and-cancelled",
    "messages": [
        {"role": "user", "content": "Cancel K1NW8N."},
        _call("g1", "get_reservation_details", {"reservation_id": "K1NW8N"}),
        {"role": "tool", "tool_call_id": "g1", "content": '{"status": "active"}'},
        *CANCELLED["messages"][1:],
    ],
}


def test_the_tools_of_another_file_count_when_none_of_its_own_does(tmp_path):
    (tmp_path / "a.jsonl").write_text(_lines(LOOKED_UP_AND_CANCELLED))
    (tmp_path / "b.jsonl").write_text(_lines(CLAIMED))
    (tmp_path / "c.jsonl").write_text(
        _lines({**CLAIMED, "messages": [CLAIMED["messages"][0], CLAIMED["messages"][3]]})
    )
    report = engine.audit([str(tmp_path)], config.build(select=["FB003"]))
    # b shares `get_reservation_details` with a; c called nothing, so nothing says otherwise
    assert [
        (f.path.rsplit("/", 1)[-1], f.message.split("(", 1)[1].split(")")[0])
        for f in report.findings
    ] == [
        ("b.jsonl", "`cancel_reservation`, called in another openai log of this run"),
        ("c.jsonl", "`cancel_reservation`, called in another openai log of this run"),
    ]


def test_the_tools_of_another_domain_say_nothing_of_a_file(tmp_path):
    # One file a domain (a course's tau2 runs): `crear_solicitud` succeeded in b, whose every
    # tool no other file called, so a's `create_order` does not decide b's claim.
    ordered = {
        "id": "ordered",
        "messages": [
            {"role": "user", "content": "Order two boxes."},
            _call("o1", "create_order", {"items": 2}),
            {"role": "tool", "tool_call_id": "o1", "content": '{"order_id": "ORD-1"}'},
            {"role": "assistant", "content": "Your order ORD-1 has been created."},
        ],
    }
    requested = {
        "id": "requested",
        "messages": [
            {"role": "user", "content": "Please file my validation request."},
            _call("s1", "crear_solicitud", {"estudiante": "S-1"}),
            {"role": "tool", "tool_call_id": "s1", "content": '{"id": "REQ-0002"}'},
            {"role": "assistant", "content": "Your request REQ-0002 has been created."},
        ],
    }
    (tmp_path / "a.jsonl").write_text(_lines(ordered))
    (tmp_path / "b.jsonl").write_text(_lines(requested))
    report = engine.audit([str(tmp_path)], config.build(select=["FB003"]))
    assert report.findings == ()
    (tmp_path / "b.jsonl").write_text(
        _lines({**requested, "messages": [*requested["messages"][:1], requested["messages"][3]]})
    )
    report = engine.audit([str(tmp_path)], config.build(select=["FB003"]))
    assert [f.path.rsplit("/", 1)[-1] for f in report.findings] == ["b.jsonl"]


def test_inferred_tools_are_the_same_whichever_span_a_conversation_lands_in(tmp_path, monkeypatch):
    # --jobs cuts a JSON Lines file into spans audited apart: the tool that answers at the top
    # of the file must still decide the claim made at its bottom, the same with every job count.
    monkeypatch.setattr(spans, "SPLIT_AT_LEAST", 2_000)
    filler = [
        {"id": f"talk-{i}", "messages": [{"role": "user", "content": "x" * 200}]} for i in range(40)
    ]
    log = tmp_path / "run.jsonl"
    log.write_text(_lines(CANCELLED, *filler, CLAIMED))
    assert len(sources.split(sources.Source(str(log), "jsonl", False, True), 8)) > 1
    settings = config.build(select=["FB003"])
    reports = [engine.audit([str(log)], settings, jobs=jobs) for jobs in (1, 2, 3)]
    assert [[(f.conversation, f.line, f.message) for f in r.findings] for r in reports] == [
        [("claimed", 42, reports[0].findings[0].message)]
    ] * 3
    assert "called in this file" in reports[0].findings[0].message
    assert reports[0].counts == reports[1].counts == reports[2].counts


def test_help_names_the_tools_file_and_its_shapes():
    out = audit_main("--help").stdout.decode()
    assert "--tools" in out and "tools/list" in out
    assert "audit runs.jsonl --tools tools.json" in out


def test_a_conversation_in_a_language_with_a_lexicon_is_examined():
    # A Spanish conversation is read in Spanish: its own `crear_solicitud` (create) succeeded,
    # so its claim is backed, and nothing is left to the coverage.
    log = FIXTURES / "rules" / "FB003" / "good_conversation_in_another_language.jsonl"
    report = engine.audit([str(log)], config.build(select=["FB003"]))
    assert report.findings == ()
    assert report.gaps == ()


def test_a_conversation_in_a_language_with_no_lexicon_is_left_to_the_coverage(tmp_path):
    log = tmp_path / "zh.jsonl"
    text = (
        "请帮我取消明天的预订，谢谢。我的预订号是ABC123，需要退款到原来的信用卡。"
        "您的预订已经取消了。"
    )
    log.write_text(
        json.dumps(
            {
                "id": "zh",
                "messages": [
                    {"role": "user", "content": text},
                    {"role": "assistant", "content": text + " Your booking has been cancelled."},
                ],
            },
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    report = engine.audit([str(log)], config.build(select=["FB003"]))
    assert report.findings == ()
    assert [(g.rules, g.reason, g.conversations) for g in report.gaps][:1] == [
        (
            ("FB003",),
            "in a language with no lexicon (claims are read in English, Spanish, Portuguese, "
            "French, German, Italian)",
            1,
        )
    ]


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Your reservation has been cancelled and the refund is on its way.", True),
        ("Hola, necesito cancelar mi reserva, por favor. ¿Me puede ayudar con esto?", False),
        ("Bonjour, je voudrais annuler ma réservation pour demain, merci beaucoup.", False),
        ("Bitte stornieren Sie meine Reservierung, ich kann nicht fliegen. Danke sehr!", False),
        ("请帮我取消明天的预订，谢谢。我的预订号是ABC123，需要退款到原来的信用卡。", False),
        ("el = document.getElementById('x'); for (lo = 0; lo < hi; lo++) { su(el); }", True),
        ("ok", True),
    ],
)
def test_the_language_of_a_conversation(text, english):
    from auditor.rules._language import reads_as_english

    assert reads_as_english(text) is english
