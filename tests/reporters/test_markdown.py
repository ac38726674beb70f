"""The rule docs' Markdown as the HTML report's rule dialog shows it: the subset the docstrings
use, rendered; everything else, and every character, escaped."""

from __future__ import annotations

import re

import pytest

from auditor import ruledocs
from auditor.reporters._markdown import html, inline
from auditor.rules import RULES
from tests.reports import Page


def test_the_subset_the_docstrings_use():
    text = (
        "## What it does\n"
        "Reads *every* call, **twice**, and `<tool_call>` spans\n"
        "over lines; ```` ```bash ```` blocks too.\n"
        "- an item that goes on\n"
        "  on the next line;\n"
        "- a second\n"
        "a lazy line of the second.\n"
        "\n"
        "```text\n"
        "user: <b>hi</b> & *not em*\n"
        "    ```\n"
        "```\n"
        "After."
    )
    assert html(text) == "\n".join(
        [
            "<h4>What it does</h4>",
            "<p>Reads <em>every</em> call, <b>twice</b>, and <code>&lt;tool_call&gt;</code> spans "
            "over lines; <code>```bash</code> blocks too.</p>",
            "<ul><li>an item that goes on on the next line;</li>"
            "<li>a second a lazy line of the second.</li></ul>",
            "<pre><code>user: &lt;b&gt;hi&lt;/b&gt; &amp; *not em*\n    ```</code></pre>",
            "<p>After.</p>",
        ]
    )


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("[click](javascript:alert(1))", "[click](javascript:alert(1))"),  # no links: text
        ("\"quoted\" & 'single'", "&quot;quoted&quot; &amp; &#x27;single&#x27;"),
        ("a * b * c and 2*3*4", "a * b * c and 2*3*4"),  # no emphasis around spaces or in words
        ("`unclosed and *em*", "`unclosed and <em>em</em>"),
        ("**<i>bold</i>**", "<b>&lt;i&gt;bold&lt;/i&gt;</b>"),
        ("`` a ` b ``", "<code>a ` b</code>"),
    ],
)
def test_everything_is_escaped_before_a_tag_is_added(text, shown):
    assert inline(text) == shown


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_every_rule_doc_renders_with_no_markdown_left_over(rule):
    """The docstrings keep to the subset: nothing of the Markdown is left in the text a reader
    sees outside code (no backtick, `**`, `## `, list mark or link), and the examples are
    conversations in a code block."""
    source = ruledocs.markdown(rule)
    assert not re.search(r"^\s*\d+\. |^\|", source, re.M), "no numbered lists or tables"
    assert not re.search(r"^#(?!# )", source, re.M), "headings are `## `"
    shown = html(source)
    page = Page(shown)
    tags = {tag for tag, _ in page.elements}
    assert tags <= {"h4", "p", "ul", "li", "code", "pre", "em", "b"}
    outside = re.sub(r"<pre>.*?</pre>|<code>.*?</code>", "", shown, flags=re.S)
    for mark in ("`", "**", "## ", "<li>- ", "]("):
        assert mark not in outside, mark
    assert re.findall(r"<h4>(.*?)</h4>", shown) == list(rule.sections)
    if rule.family != "IN":
        assert re.search(r"<pre><code>(user:|tools:|---) ", shown)
