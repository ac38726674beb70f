"""The HTML report in a real browser: headless Chromium driven by Playwright for Python.

Uses the system's Chromium (Debian's `chromium`, which `.ci/run` installs when it can; or the
browser `AUDITOR_CHROMIUM` names), never one Playwright downloads. Skips, saying why, where
there is none. `AUDITOR_UPDATE_SCREENSHOT=1` also writes the README's screenshot.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import DEMO, ROOT
from tests.reports import CANARY, html_of

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# No network here: without these, Chromium keeps trying to reach Google's hosts.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOT = ROOT / "docs" / "report.png"


def _chromium() -> str | None:
    named = os.environ.get("AUDITOR_CHROMIUM")
    if named:
        return named if Path(named).exists() else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')"
    )
    executable = _chromium()
    if executable is None:
        pytest.skip(
            "no Chromium on this machine: install Debian's `chromium` package "
            "(.ci/run does) or set AUDITOR_CHROMIUM"
        )
    with sync_api.sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=executable, args=FLAGS)
        except Exception as exc:
            pytest.skip(f"{executable} did not start: {str(exc).splitlines()[0]}")
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: page.dialogs.append(f"page error: {error}"))
    yield page
    page.close()


def _open(page, html: str, path: Path) -> None:
    path.write_text(html, encoding="utf-8")
    page.goto(path.as_uri())
    page.wait_for_load_state("load")


def test_the_demo_report_jumps_to_a_finding_and_explains_it(page, tmp_path):
    _open(page, html_of(DEMO), tmp_path / "report.html")
    assert page.text_content("#filter-count") == "19 of 19 conversations shown"
    # A finding of cycle-012 whose timeline is closed: clicking it opens the timeline there.
    conversation = page.locator("article.conv", has_text="cycle-012")
    finding = conversation.locator("a.finding").first
    target = finding.get_attribute("href")[1:]
    assert not page.locator(f"#{target}").is_visible()
    finding.click()
    turn = page.locator(f"#{target}")
    assert turn.is_visible()
    assert "current" in turn.get_attribute("class")
    assert "LP003" in turn.text_content()
    page.screenshot(path=str(tmp_path / "clicked.png"))
    assert (tmp_path / "clicked.png").stat().st_size > 10_000
    # The rule's --explain text is one click away.
    conversation.locator("a.explain").first.click()
    dialog = page.locator("dialog#explain")
    assert dialog.is_visible()
    assert "Why is this bad?" in dialog.text_content()
    page.click("#explain-close")
    assert not dialog.is_visible()
    # Filters hide the conversations that have no finding of the chosen rule.
    page.select_option("#filter-code", "LP004")
    assert page.text_content("#filter-count") == "1 of 19 conversations shown"
    assert page.locator("article.conv:visible").count() == 1
    assert page.dialogs == []


def test_the_xss_canary_runs_nothing(page, tmp_path):
    html = html_of(CANARY)
    # With the policy, and without it: escaping alone must already keep every payload inert.
    without_policy = html.replace('http-equiv="Content-Security-Policy"', 'name="no-policy"', 1)
    assert without_policy != html
    for name, text in (("with-csp.html", html), ("without-csp.html", without_policy)):
        _open(page, text, tmp_path / name)
        page.click("#unfold-all")
        for link in page.locator("a.finding").all():
            link.click()
        for link in page.locator("ol.findings a.explain").all():
            link.click()
            page.click("#explain-close")
        page.wait_for_timeout(200)
        assert page.evaluate("typeof window.__auditorXss") == "undefined", name
        assert page.evaluate("document.querySelectorAll('img, iframe, textarea').length") == 0
        assert page.title() == "auditor report"
        assert page.evaluate("getComputedStyle(document.body).display") == "block"
        assert page.dialogs == [], page.dialogs


def test_screenshot_of_the_demo_report(page, tmp_path, monkeypatch):
    """The README's picture; rewritten with AUDITOR_UPDATE_SCREENSHOT=1."""
    monkeypatch.chdir(ROOT)  # paths as `make run` shows them
    _open(page, html_of(Path("fixtures/demo")), tmp_path / "report.html")
    page.set_viewport_size({"width": 1100, "height": 800})
    conversation = page.locator("article.conv", has_text="approval-drift-006")
    conversation.locator("a.finding").first.click()
    conversation.evaluate("el => { el.scrollIntoView(); window.scrollBy(0, -60); }")
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    if os.environ.get("AUDITOR_UPDATE_SCREENSHOT"):
        SCREENSHOT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)
