"""gpt-oss conversations in the harmony format (`harmony.py`): frames, calls, results, declared
tools, and a transcript that ends on a call."""

from __future__ import annotations

from tests.helpers import FORMAT_DIR, audit, normalised


def test_harmony_frames_calls_results_and_declared_tools():
    (weather,) = normalised(FORMAT_DIR / "harmony" / "test_does_not_drop_if_ongoing_analysis.txt")
    turn, result = weather["messages"][1:]
    assert turn["reasoning"].startswith("User asks")
    assert turn["tool_calls"][0]["name"] == "lookup_weather"
    assert turn["tool_calls"][0]["arguments"] == {"location": "San Francisco"}
    assert result["result"]["name"] == "lookup_weather"
    (streamed,) = normalised(FORMAT_DIR / "harmony" / "test_streamable_parser.txt")
    assert streamed["messages"][0]["tool_calls"][0]["name"] == "browser.search"
    (declared,) = normalised(FORMAT_DIR / "harmony" / "test_browser_and_function_tool.txt")
    assert [t["name"] for t in declared["tools"]] == [
        "browser.search",
        "browser.open",
        "browser.find",
        "lookup_weather",
    ]
    (finals,) = normalised(FORMAT_DIR / "harmony" / "test_keep_analysis_between_finals.txt")
    assert [(m["role"], m["text"], m.get("reasoning")) for m in finals["messages"]] == [
        ("user", "What is 2 + 2?", None),
        ("assistant", "4", None),
        ("user", "What is 3 + 5?", None),
        ("assistant", "8", "thinking 3+5"),
    ]


def test_harmony_transcript_ending_on_a_call_reports_it():
    report = audit([FORMAT_DIR / "harmony"], select=["EX001", "EX002"])
    (finding,) = report.findings
    assert finding.path.endswith("test_multi_turn_auto_drop_analysis.txt")
    assert (finding.code, finding.line, finding.turn, finding.tool) == ("EX001", 6, 6, "python")
    assert finding.message == "the transcript ends on `python` call with no result"
