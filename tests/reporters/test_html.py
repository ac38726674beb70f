"""The HTML report, read back with an HTML parser: self-contained, nothing from a log runs.

`fixtures/html/xss-canary.jsonl` (written for this project) holds `<script>`, `<img onerror>`,
`javascript:` links, `</textarea>`, `</script>`, an `<iframe srcdoc>`, template syntax, bidi
and control characters in every place a log can put text: ids, author names, tool names, call
ids, arguments, results, approval requests and decisions. The page must show all of it as text.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re

import pytest

from auditor import config, engine
from tests.helpers import DEMO, FIXTURES, REALDATA, requires_realdata
from tests.reports import CANARY, Page, html_of

# Elements the page itself uses; anything else would have come from a log.
ALLOWED = {
    "html", "head", "meta", "title", "style", "body", "header", "main", "footer", "section",
    "article", "div", "span", "p", "b", "h1", "h2", "h3", "h4", "ul", "ol", "li", "a", "code",
    "pre", "em", "mark", "table", "thead", "tbody", "tr", "th", "td", "svg", "rect", "details",
    "summary", "label", "select", "option", "button", "dialog", "script", "br",
}  # fmt: skip


@pytest.fixture(scope="module")
def canary_page() -> tuple[str, Page]:
    text = html_of(CANARY)
    return text, Page(text)


@pytest.fixture(scope="module")
def demo_page() -> tuple[str, Page]:
    text = html_of(DEMO)
    return text, Page(text)


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


@pytest.mark.parametrize("which", ["canary_page", "demo_page"])
def test_the_page_loads_nothing_and_runs_only_its_own_script(which, request):
    _, page = request.getfixturevalue(which)
    assert len(page.scripts) == 1 and len(page.styles) == 1
    policy = [
        a["content"] for t, a in page.elements if a.get("http-equiv") == "Content-Security-Policy"
    ]
    assert len(policy) == 1
    csp = policy[0]
    assert csp.startswith("default-src 'none'; ")
    assert f"script-src '{_sha256(page.scripts[0])}'" in csp
    assert f"style-src '{_sha256(page.styles[0])}'" in csp
    assert "unsafe" not in csp
    # The policy comes before anything it governs.
    tags = [t for t, _ in page.elements]
    assert tags.index("meta") < tags.index("style") < tags.index("script")
    for tag, attrs in page.elements:
        assert tag in ALLOWED, tag
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert name not in ("src", "srcdoc", "action", "formaction", "style"), (tag, name)
            if name == "href":
                assert value is not None and value.startswith("#"), value
        if tag == "script":
            assert not attrs, "the one script is inline, with no attribute"
    assert "http://" not in page.scripts[0] and "innerHTML" not in page.scripts[0]


def test_every_canary_is_shown_as_text(canary_page):
    text, page = canary_page
    shown = page.all_text()
    for payload in (
        "<script>window.__auditorXss=1</script>",
        '<img src=x onerror="window.__auditorXss=2">',
        "[click me](javascript:window.__auditorXss=3)",
        '<a href="javascript:window.__auditorXss=3">link</a>',
        "</textarea><script>window.__auditorXss=4</script>",
        "</script><script>window.__auditorXss=5</script>",
        '<svg onload="window.__auditorXss=6">',
        "'><iframe srcdoc=",
        "<style>body{display:none}</style>",
        "{{ 7*191 }} {% print(7*191) %} ${7*191}",
    ):
        assert payload in shown, payload
    assert "1337" not in text  # no template evaluated log text
    # Bidi, control and separator characters are shown as escapes, never written raw.
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2028\u2066-\u2069]", text)
    for escape in ("\\u202eevil\\u202c", "\\x00", "\\x1b[31mred", "\\u2028", "\\x07"):
        assert escape in shown, escape
    # Hostile ids and names are where a reader expects them.
    assert 'xss-text-call <img src=x onerror="window.__auditorXss=2">' in shown
    assert 'agent "><img src=x onerror=window.__auditorXss=7>' in shown
    assert 'lookup <svg onload="window.__auditorXss=6">' in shown


def test_every_link_lands_and_every_id_is_unique(demo_page, canary_page):
    for _, page in (demo_page, canary_page):
        ids = page.ids()
        assert len(ids) == len(set(ids))
        for _, attrs in page.elements:
            href = attrs.get("href")
            if href and href != "#":
                assert href[1:] in set(ids), href
            if attrs.get("data-rule"):
                assert f"rule-{attrs['data-rule']}" in set(ids)


def _finding_rows(page: Page) -> list[dict[str, str | None]]:
    return [a for t, a in page.elements if a.get("data-code") and t in ("li", "div")]


def test_every_finding_is_listed_and_pinned_to_its_turn(demo_page):
    report = engine.audit([str(DEMO)], dataclasses.replace(config.build(), timelines=True))
    text, page = demo_page
    rows = _finding_rows(page)
    assert sorted(r["data-code"] for r in rows) == sorted(f.code for f in report.findings)
    ids = set(page.ids())
    # Each finding of a conversation links to its turn, which the timeline holds.
    links = [
        a["href"] for t, a in page.elements if t == "a" and "finding" in (a.get("class") or "")
    ]
    assert len(links) == len(report.findings)
    assert all(link[1:] in ids for link in links)
    # Pinned: the message of FB001 at turn 2 of react-fabricated-002 carries the finding, and
    # its evidence is highlighted in the message text.
    conv = next(c for c in report.timelines if c.conversation == "react-fabricated-002")
    assert [e.turn for e in conv.entries] == list(range(len(conv.entries)))
    assert "<mark>Observation: Oslo has 1,204,515 inhabitants as of 2024.</mark>" in text


def test_filters_name_every_code_severity_and_file(demo_page):
    _, page = demo_page
    options = {}
    select = None
    for tag, attrs in page.elements:
        if tag == "select":
            select = attrs["id"]
            options[select] = []
        elif tag == "option" and select:
            options[select].append(attrs.get("value"))
    report = engine.audit([str(DEMO)], config.build())
    assert options["filter-code"] == ["", *sorted({f.code for f in report.findings})]
    assert options["filter-severity"] == ["", "error", "warning", "note"]
    assert options["filter-file"] == ["", "0"]


def test_rule_explanations_come_from_the_rule_docs(demo_page):
    from auditor.rules import BY_CODE

    text, page = demo_page
    shown = page.all_text()
    for code in ("FB001", "LP003", "CF001"):
        rule = BY_CODE[code]
        assert rule.summary in shown
        assert rule.sections["Why is this bad?"].splitlines()[0] in shown
        # Rendered, not raw Markdown: headings, the example as a conversation, no JSON Lines.
        details = text.split(f'<details class="rule" id="rule-{code}">', 1)[1]
        details = details.split("</details>", 1)[0]
        assert "<h4>How to fix</h4>" in details and "<h4>Does not fire on</h4>" in details
        assert re.search(r"<pre><code>(tools|user): ", details)
        outside = re.sub(r"<pre>.*?</pre>|<code>.*?</code>", "", details, flags=re.S)
        assert "## " not in outside and "`" not in outside
        assert "&quot;messages&quot;" not in details  # the JSON Lines the example comes from


def test_quiet_stretches_fold_and_the_page_says_what_it_left_out(tmp_path):
    import orjson

    messages = [{"role": "user", "content": "Start."}]
    for i in range(40):
        messages.append({"role": "assistant", "content": f"Step {i}: still working on item {i}."})
        messages.append({"role": "user", "content": f"ok {i}"})
    for _ in range(3):
        messages.append({"role": "assistant", "content": "I am unable to continue with that."})
        messages.append({"role": "user", "content": "try again"})
    log = tmp_path / "long.jsonl"
    log.write_bytes(orjson.dumps({"id": "long-1", "messages": messages}) + b"\n")
    text = html_of(log)
    page = Page(text)
    folds = [a for t, a in page.elements if t == "details" and a.get("class") == "fold"]
    assert folds
    assert "quiet messages, turns 2–" in page.all_text()


def test_a_report_without_timelines_still_lists_every_finding():
    text = html_of(DEMO, timelines=False)
    page = Page(text)
    assert len(_finding_rows(page)) == 24
    assert not [a for t, a in page.elements if t == "li" and "turn" in (a.get("class") or "")]


def test_jobs_give_the_same_page(tmp_path):
    import shutil

    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    one = html_of(tmp_path / "fixtures", jobs=1)
    two = html_of(tmp_path / "fixtures", jobs=2)
    assert one == two


def test_jobs_give_the_same_page_when_spans_defer_a_session(tmp_path, monkeypatch):
    """A file cut into spans (`--jobs`) whose session-stream lines are deferred to the end of
    the file: the session still gets its timeline, and the page is the same, byte for byte."""
    import json

    from auditor import sources
    from auditor.sources import spans

    monkeypatch.setattr(spans, "SPLIT_AT_LEAST", 2_000)  # workers are forked: they see it
    demo = (DEMO / "agent-runs.jsonl").read_text().splitlines()
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    session = [
        {"session_id": "s", "role": "user", "content": "run f"},
        {"session_id": "s", "role": "assistant", "content": None, "tool_calls": [call]},
    ]
    lines = []
    for i in range(40):
        lines.append(demo[i % len(demo)].replace('"id": "', f'"id": "copy{i}-', 1))
        if i in (3, 31):  # in the middle of a span, not at its start
            lines.append(json.dumps(session[i == 31]))
    log = tmp_path / "mixed.jsonl"
    log.write_text("\n".join(lines) + "\n")
    source = sources.Source(str(log), "jsonl", False, True)
    assert len(engine.spans(source, config.build(), 2)) > 1, "the file must be cut"
    assert html_of(log, jobs=1) == html_of(log, jobs=2)
    settings = dataclasses.replace(config.build(), timelines=True)
    report = engine.audit([str(log)], settings, jobs=2)
    (unanswered,) = [f for f in report.findings if f.conversation == "s"]
    assert unanswered.code == "EX001"
    (timeline,) = [t for t in report.timelines if t.conversation == "s"]
    assert [e.role for e in timeline.entries] == ["user", "assistant"]


@requires_realdata
def test_the_page_of_the_real_logs_parses():
    text = html_of(REALDATA)
    page = Page(text)
    assert len(_finding_rows(page)) > 20
    assert len(page.ids()) == len(set(page.ids()))
