"""ChatDev run logs (`chatdev.py`): test reports answer the runs; a passing test, the 2023-06
log, entry tags only at the start of a line."""

from __future__ import annotations

from tests.formats.shared import call_names, found
from tests.helpers import FORMAT_DIR, conversations


def test_chatdev_test_reports_answer_runs_and_the_same_traceback_six_times_is_a_loop():
    log = FORMAT_DIR / "chatdev" / "background-removal-test-cycles-excerpt.log"
    (run,) = conversations(log)
    assert run.messages[0].text.startswith("Create a Python program that offers a one-click")
    assert call_names(run) == ["write_code", *(["run_software", "run_software", "sh"] * 3)]
    write = run.messages[1].tool_calls[0]
    assert [f["path"] for f in write.arguments["files"]] == ["background_removal.py", "main.py"]
    assert run.messages[2].result.text.startswith("background_removal.py updated.")
    report = run.messages[4].result
    assert report.is_error is True and "No module named 'cv2'" in report.text
    pip = run.messages[7]
    assert pip.name == "Programmer" and pip.tool_calls[0].arguments == {
        "command": "pip install cv2"
    }
    assert run.messages[8].result.unrecorded
    assert found(log) == [
        (
            "LP001",
            101,
            "`run_software` called 6 times with the same arguments, each answered with the same "
            'error `Traceback (most recent call last): File "main.py", line 7, in <module> '
            "import b…` (turns 13, 15, 38, 40, 63, 65)",
        ),
        (  # the Programmer's answer to each test report, unfenced and never applied
            "LP004",
            191,
            "the assistant sent the same message 3 times (turns 33, 58, 82): `FILENAME: main.py "
            "LANGUAGE: Python DOCSTRING: ''' …[trimmed]`",
        ),
    ]


def test_chatdev_nearest_negatives_a_passing_test_and_the_2023_06_log():
    passing = FORMAT_DIR / "chatdev" / "car-demo-2024-test-passes-excerpt.log"
    (run,) = conversations(passing)
    report = next(m.result for m in run.messages if m.result and m.result.name == "run_software")
    assert report.text == "The software run successfully without errors." and not report.is_error
    (old,) = conversations(FORMAT_DIR / "chatdev" / "gomoku-2023-06-excerpt.log")
    assert call_names(old) == []  # the 2023-06 logs log no harness action: truly no call
    assert [m.name for m in old.messages][:3] == [
        "Chief Product Officer",
        "Chief Product Officer",
        "Chief Executive Officer",
    ]
    assert found(passing, FORMAT_DIR / "chatdev" / "gomoku-2023-06-excerpt.log") == []


def test_chatdev_an_entry_tag_counts_only_at_the_start_of_a_line(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(
        "[2023-25-06 20:10:30 INFO] AgentTech Starts (20230625201030)\n\n"
        "[2023-25-06 20:10:32 INFO] [0] AI Assistant (Chief Product Officer):\n\n"
        "<INFO> GUI. Quoted: [2023-25-06 20:10:33 INFO] [0] AI Assistant (Programmer):\n\n"
        "[2023-25-06 20:11:07 INFO] [0] AI Assistant (Programmer):\n\nmain.py\nprint(1)\n"
    )
    (run,) = conversations(log)
    assert [(m.name, m.text, m.location.line) for m in run.messages] == [
        (
            "Chief Product Officer",
            "<INFO> GUI. Quoted: [2023-25-06 20:10:33 INFO] [0] AI Assistant (Programmer):",
            3,
        ),
        ("Programmer", "main.py\nprint(1)", 7),
    ]
