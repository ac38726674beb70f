"""Loop rule options and shared pieces, where fixtures (which use the defaults) cannot reach."""

from __future__ import annotations

import json

from auditor import config, engine
from auditor.findings import Severity
from auditor.model import UNRECORDED, Conversation, Location, Message, ToolCall, ToolResult
from auditor.replay import replay
from auditor.rules import cyclic_tool_calls, repeated_tool_call, uninformative_tool_error
from auditor.rules._loops import Options, normalised_error
from auditor.rules._required import required_each_time
from auditor.rules._toolnames import reads_only, words

HERE = Location("t.jsonl", 1)


def _polling(name: str, times: int) -> Conversation:
    messages = [Message(0, "user", "wait", HERE)]
    for i in range(times):
        at = len(messages)
        call = ToolCall(f"c{i}", name, {"job": 7}, location=HERE.child("messages", at))
        messages.append(Message(at, "assistant", "", HERE.child("messages", at), (call,)))
        result = ToolResult(f"c{i}", "pending")
        messages.append(
            Message(at + 1, "tool", "pending", HERE.child("messages", at + 1), result=result)
        )
    return Conversation("poll", "openai", HERE, tuple(messages))


def test_exempt_tools_are_globs_and_min_repeats_moves_the_threshold():
    rep = replay(_polling("poll_job", 3))
    assert [v.turn for v in repeated_tool_call.check(rep, Options())] == [1]
    assert list(repeated_tool_call.check(rep, Options(exempt_tools=("poll_*",)))) == []
    assert list(repeated_tool_call.check(rep, Options(min_repeats=4))) == []
    two = replay(_polling("poll_job", 2))
    (violation,) = repeated_tool_call.check(two, Options(min_repeats=2))
    assert violation.message == (
        "`poll_job` called 2 times with the same arguments, each answered with the same result "
        "`pending` (turns 1, 3)"
    )


def test_exempt_tools_also_silence_cycles_and_uninformative_errors():
    rep = replay(_polling("poll_job", 6))
    assert list(cyclic_tool_calls.check(rep, Options(exempt_tools=("poll_*",)))) == []
    assert list(uninformative_tool_error.check(rep, Options(exempt_tools=("*",)))) == []


def test_five_repeats_escalate_to_error_unless_the_rule_severity_is_configured(tmp_path):
    log = tmp_path / "five.jsonl"
    calls = []
    for i in range(5):
        calls += [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": "get_job", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": f"c{i}", "content": "queued"},
        ]
    log.write_text(
        json.dumps({"id": "five", "messages": [{"role": "user", "content": "?"}, *calls]}) + "\n"
    )
    settings = config.build(select=["LP001"])
    (finding,) = engine.audit([str(log)], settings).findings
    assert finding.severity is Severity.ERROR and finding.turn == 1
    configured = config.Settings(rules=settings.rules, severity={"LP001": Severity.NOTE})
    (finding,) = engine.audit([str(log)], configured).findings
    assert finding.severity is Severity.NOTE


def test_errors_are_compared_with_their_varying_values_masked():
    a = normalised_error(
        "Error: payment amount does not add up, total price is 4875, but paid 1625"
    )
    b = normalised_error("Error: payment amount does not add up, total price is 1203, but paid 833")
    assert a == b == "error: payment amount does not add up, total price is <n> but paid <n>"
    assert normalised_error("Error: no user 'ana'") == normalised_error('Error: no user "bob"')
    assert normalised_error("Error: flight HAT030 not available") != normalised_error(
        "Error: seat not available"
    )


def test_tool_names_read_as_words():
    assert words("update_reservation_flights") == ("update", "reservation", "flights")
    assert words("WebFetch") == ("web", "fetch")
    assert words("send-email") == ("send", "email")
    assert reads_only("get_user_details") and reads_only("Grep") and reads_only("calculate")
    assert not reads_only("book_reservation") and not reads_only("Edit") and not reads_only("")


def _browser(*actions: tuple[str, dict], user_at: int | None = None) -> Conversation:
    """A browser agent's run as a result file gives it: a thought and an action per turn, each
    answered by a result whose outcome the log does not keep."""
    messages = [Message(0, "user", "Find the nearest used car dealer.", HERE)]
    for i, (name, arguments) in enumerate(actions):
        if i == user_at:
            messages.append(Message(len(messages), "user", "Try harder.", HERE))
        at = len(messages)
        call = ToolCall(f"a{i}", name, arguments, origin="text", location=HERE.child("a", i))
        messages.append(Message(at, "assistant", f"thought {i}", HERE, (call,)))
        result = ToolResult(f"a{i}", UNRECORDED, None, name, unrecorded=True)
        messages.append(Message(at + 1, "tool", UNRECORDED, HERE, result=result))
    return Conversation("browser", "browser-result", HERE, tuple(messages))


CLICK = ("click", {"x": 973, "y": 761})


def test_the_same_action_three_times_in_a_row_is_a_loop_though_its_outcome_is_unknown():
    (violation,) = repeated_tool_call.check(replay(_browser(CLICK, CLICK, CLICK)), Options())
    assert (violation.turn, violation.message) == (
        1,
        "`click` called 3 times in a row with the same arguments (turns 1, 3, 5); the log does "
        "not record what came of them, and nothing came between them: no other call, no result, "
        "no user turn",
    )
    assert list(cyclic_tool_calls.check(replay(_browser(CLICK, CLICK, CLICK)), Options())) == []


def test_unknown_outcomes_repeated_with_something_between_or_moving_are_no_loop():
    typed = ("type", {"text": "used cars"})
    for conversation in (
        _browser(CLICK, CLICK),  # twice
        _browser(CLICK, typed, CLICK, CLICK),  # another call between
        _browser(CLICK, CLICK, CLICK, user_at=2),  # the user spoke between
        _browser(*[("scroll", {"delta_x": 0, "delta_y": 500})] * 4),  # progress down a page
        _browser(*[("press", {"key": "PageDown"})] * 3),
        _browser(*[("navigate_back", {})] * 3),
    ):
        rep = replay(conversation)
        assert list(repeated_tool_call.check(rep, Options())) == []
        assert list(cyclic_tool_calls.check(rep, Options())) == []
    enter = replay(_browser(*[("press", {"key": "Enter"})] * 3))
    assert [v.turn for v in repeated_tool_call.check(enter, Options())] == [1]


def test_a_cycle_of_actions_with_unknown_outcomes_is_reported_once_by_lp003():
    typed = ("type", {"text": "75228"})
    rep = replay(_browser(CLICK, typed, CLICK, typed, CLICK, typed))
    assert list(repeated_tool_call.check(rep, Options())) == []
    (violation,) = cyclic_tool_calls.check(rep, Options())
    assert (violation.turn, violation.message) == (
        1,
        "the calls `click` → `type` repeat 3 times in a row in the same order, with the same "
        "arguments (turns 1, 5, 9); the log does not record what came of them, and nothing "
        "came between them",
    )
    scrolling = replay(_browser(*[("scroll", {"delta_y": 500}), CLICK] * 3))
    assert list(cyclic_tool_calls.check(scrolling, Options())) == []


def test_a_tool_family_word_before_the_verb_still_reads_only():
    assert reads_only("browser_get_state") and reads_only("mcp__fs__read_file")
    assert reads_only("web_search") and reads_only("browser_get_content")
    assert not reads_only("browser_click") and not reads_only("browser_go_back")
    assert not reads_only("browser") and not reads_only("file_write")


def test_clicks_nudged_by_a_few_pixels_are_one_target_measured_from_the_first():
    nudged = [("click", {"x": 1013, "y": 35}), ("click", {"x": 1000, "y": 35})]
    nudged.append(("click", {"x": 1013 - 16, "y": 35 + 16}))
    (violation,) = repeated_tool_call.check(replay(_browser(*nudged)), Options())
    assert (violation.turn, violation.message) == (
        1,
        "`click` called 3 times in a row with the same arguments but for a few pixels (within "
        "16 of the first) (turns 1, 3, 5); the log does not record what came of them, and "
        "nothing came between them: no other call, no result, no user turn",
    )
    drifting = [("click", {"x": 100 + 10 * i, "y": 200}) for i in range(4)]  # 0, 10, 20, 30 px
    far = [("click", {"x": 100, "y": 200}), ("click", {"x": 100, "y": 217})] * 2
    other_button = [("click", {"x": 5, "y": 5, "button": b}) for b in ("left", "right", "left")]
    for actions in (drifting, far, other_button):
        assert list(repeated_tool_call.check(replay(_browser(*actions)), Options())) == []


def _clicks_with_state(
    pages: list[str], back: bool = False, before: str = "", content_at: int = -1
) -> Conversation:
    """A click on element 7 (or a step back), each followed by a read of the page state; the
    state read once `before` the first click too, where given, and the page's content read after
    the state of pass `content_at`."""
    messages = [Message(0, "user", "Go on.", HERE)]
    state = ("browser_get_state", {"include_screenshot": False})
    for i, page in enumerate(pages):
        steps = [(*state, before)] if before and i == 0 else []
        steps += [
            ("browser_go_back" if back else "browser_click", {} if back else {"index": 7}, ""),
            (*state, page),
        ]
        if i == content_at:
            steps.append(("browser_get_content", {}, "Files: report.xlsx"))
        for name, args, text in steps:
            text = text or ("Navigated back" if back else "Clicked element 7")
            at = len(messages)
            call = ToolCall(f"c{at}", name, args, location=HERE.child("messages", at))
            messages.append(Message(at, "assistant", "", HERE, (call,)))
            result = ToolResult(f"c{at}", text)
            messages.append(Message(at + 1, "tool", text, HERE, result=result))
    return Conversation("pages", "openai", HERE, tuple(messages))


def _loops(conversation: Conversation) -> list[tuple[str, int, str]]:
    rep = replay(conversation)
    return [
        (code, v.turn, v.message)
        for code, rule in (("LP001", repeated_tool_call), ("LP003", cyclic_tool_calls))
        for v in rule.check(rep, Options())
    ]


def test_a_read_between_repeats_ends_the_run_only_when_its_answer_changed():
    renumbered = [f'{{"url": "/files", "elements": [{{"index": {n}}}]}}' for n in (1, 40, 80, 120)]
    # click, state, click, state…: the page renumbered, not changed; one cycle, reported once
    ((code, turn, message),) = _loops(_clicks_with_state(renumbered))
    assert (code, turn) == ("LP003", 1)
    assert message == (
        "the calls `browser_click` → `browser_get_state` repeat 4 times in the same order, with "
        "the same arguments and the same results each time, but for numbers in what the lookups "
        "answered (turns 1, 5, 9, 13)"
    )
    # another read in one pass: no cycle, the same click four times with nothing changed
    ((code, turn, message),) = _loops(_clicks_with_state(renumbered, content_at=1))
    assert (code, turn) == ("LP001", 1)
    assert message.startswith("`browser_click` called 4 times with the same arguments")
    # what the first click did (the page it opened) is its own effect: only later changes count
    opened = _clicks_with_state(renumbered, before='{"url": "/"}', content_at=1)
    ((code, turn, message),) = _loops(opened)
    assert (code, turn) == ("LP001", 3)
    paging = [f'{{"url": "/invoices", "rows": ["{r}"]}}' for r in ("A", "B", "C", "D")]
    assert _loops(_clicks_with_state(paging)) == []
    assert _loops(_clicks_with_state(paging, content_at=1)) == []
    assert _loops(_clicks_with_state(renumbered, back=True)) == []


def test_always_when_in_the_policy_exempts_only_the_tool_it_names():
    def asked(policy: str) -> bool:
        system = Message(0, "system", policy, HERE)
        return required_each_time(Conversation("p", "openai", HERE, (system,)), "get_hotel_info")

    assert asked("Always use `get_hotel_info` when the user asks about breakfast.")
    assert asked("If the user asks whether breakfast is included, always call get_hotel_info.")
    assert not asked("Always check the hotel info when the user asks about breakfast.")
    assert not asked("Use `get_hotel_info` when the user asks about breakfast.")  # no "always"
    assert not asked("Always be polite. Call get_hotel_info when asked about breakfast.")


def test_the_pronoun_i_is_no_name_that_tells_replies_apart():
    from auditor.rules._rewordings import names_in

    said = "I'm sorry, Daniel, but what I can offer is a voucher; I'll send it to IBM in Italy."
    assert names_in(said) == {"Daniel", "IBM", "Italy"}


def test_a_reply_drifting_at_each_turn_still_repeats_the_first_wording():
    from auditor.rules._rewordings import Rewordings

    keys = Rewordings()
    first = "alpha bravo charlie delta echo foxtrot golf hotel india juliet"
    drifted = "alpha bravo charlie delta echo foxtrot golf hotel india kilo"  # 0.82 to the first
    further = "alpha bravo charlie delta echo foxtrot golf hotel lima juliet"  # 0.67 to the last
    other = "alpha bravo charlie delta mike november oscar papa quebec romeo"  # 0.25 to both
    assert [keys.key(t) for t in (first, drifted, further, other)] == [first, first, first, other]


def test_a_pronoun_joined_by_a_hyphen_is_a_word_of_its_own():
    from auditor.rules._rewordings import content_of, unclitic

    assert unclitic(["posso", "oferecer-lhe", "voulez-vous", "two-hour", "add-on", "e-mail"]) == [
        "posso", "oferecer", "lhe", "voulez", "vous", "two-hour", "add-on", "e-mail",
    ]  # fmt: skip
    enclitic, proclitic = "posso oferecer-lhe um vale", "o que lhe posso oferecer é um vale"
    assert content_of(enclitic)[0] <= content_of(proclitic)[0]
