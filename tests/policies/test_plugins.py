"""Rule plugins (`auditor.rules` entry points, `auditor.policies.plugins`): the example package
installed offline and run, and every way a plugin can be wrong."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import types
from importlib.util import find_spec
from pathlib import Path

import pytest

from auditor import config
from auditor.common import entrypoints
from auditor.common.errors import ConfigError
from auditor.policies import plugins
from tests.helpers import FIXTURES, ROOT

EXAMPLE = ROOT / "examples" / "auditor-rules-example"
LOGS = FIXTURES / "policies" / "plugin"


class _EntryPoint:
    def __init__(self, name: str, load) -> None:
        self.name, self.value, self.load = name, f"tests.{name}", load


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch):
    """Fake `auditor.rules` entry points for one test."""
    points: list[_EntryPoint] = []
    monkeypatch.setattr(
        entrypoints, "points", lambda group: points if group == plugins.ENTRY_POINTS else []
    )
    monkeypatch.setattr(entrypoints, "may_declare", lambda group: True)
    plugins.rules.cache_clear()
    yield points
    plugins.rules.cache_clear()


def _module(**members: object) -> types.ModuleType:
    module = types.ModuleType("acme_rule")
    module.__doc__ = "A refund is too large.\n\n## What it does\nCompares refunds."
    defaults = {
        "CODE": "ACME001",
        "NAME": "big-refund",
        "SEVERITY": "error",
        "check": lambda r, o: (),
    }
    for key, value in {**defaults, **members}.items():
        if value is not None:
            setattr(module, key, value)
    return module


def test_a_plugin_rule_is_selected_and_documented_like_a_built_in_one(installed) -> None:
    installed.append(_EntryPoint("acme", lambda: _module()))
    settings = config.build()
    (rule,) = settings.user_rules
    assert (rule.code, rule.name, rule.severity.value) == ("ACME001", "big-refund", "error")
    assert rule.summary == "A refund is too large." and "What it does" in rule.sections
    assert rule in settings.rules  # ALL holds it
    assert rule not in config.build(ignore=["ACME"]).rules


@pytest.mark.parametrize(
    ("members", "says"),
    [
        ({"CODE": None}, "has no CODE of its own"),
        ({"CODE": "FB100"}, "has no CODE of its own: capital letters (not IN, FB, EX, CF, LP)"),
        ({"NAME": "Big Refund"}, "has no NAME of lowercase words joined by `-`"),
        ({"NAME": "unknown-tool"}, "is ACME001 (unknown-tool), as a built-in rule is"),
        ({"SEVERITY": "fatal"}, "has no SEVERITY of error, warning or note"),
        ({"check": "no"}, "has no `check(replay, options)`"),
        ({"__doc__": ""}, "has no docstring"),
    ],
)
def test_a_wrong_plugin_is_one_config_error(installed, members: dict, says: str) -> None:
    module = _module(**{k: v for k, v in members.items() if k != "__doc__"})
    if "__doc__" in members:
        module.__doc__ = members["__doc__"]
    installed.append(_EntryPoint("acme", lambda: module))
    with pytest.raises(ConfigError, match=r"the `auditor\.rules` plugin `acme`") as raised:
        config.build()
    assert says in str(raised.value)


def test_a_plugin_that_fails_to_load_or_clashes_is_a_config_error(installed) -> None:
    def fail() -> None:
        raise ImportError("no module named acme_rule")

    installed.append(_EntryPoint("acme", fail))
    with pytest.raises(ConfigError, match=r"plugin `acme` .* failed to load: ImportError"):
        config.build()
    installed[:] = [_EntryPoint("a", _module), _EntryPoint("b", _module)]
    plugins.rules.cache_clear()
    with pytest.raises(ConfigError, match=r"plugin `b` .* is ACME001 \(big-refund\), as another"):
        config.build()


def test_a_configurations_rule_may_not_take_a_plugins_code(installed, tmp_path: Path) -> None:
    installed.append(_EntryPoint("acme", _module))
    (tmp_path / "auditor.toml").write_text(
        '[[rule]]\ncode = "ACME001"\nname = "other"\ndescription = "D."\n'
        'check = "forbid-text"\npattern = "x"\n'
    )
    with pytest.raises(ConfigError, match="code ACME001 or name other is already that of ACME001"):
        config.build(file=config.read(tmp_path / "auditor.toml"))


@pytest.mark.skipif(find_spec("hatchling") is None, reason="hatchling (a dev extra) builds it")
def test_the_example_plugin_installs_and_runs_offline(tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--no-build-isolation",
            "--no-deps",
            "--target",
            str(site),
            str(EXAMPLE),
        ],
        check=True,
        capture_output=True,
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), "NO_COLOR": "1"}

    def audit(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "auditor", *args]
        return subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)

    listed = audit("--rules").stdout.splitlines()
    assert listed[-1].split()[:3] == ["ORD001", "refund-above-paid", "error"]
    # as docs/own-rules.md shows it
    page = (ROOT / "docs" / "own-rules.md").read_text()
    command, shown = re.findall(r"\$ audit (--select ORD001 .*?)\n(.*?)```", page, re.S)[0]
    found = audit(*shlex.split(command))
    assert found.returncode == 1 and found.stdout == shown
    for clean in ("good_openai.jsonl", "good_anthropic.json"):
        assert audit("--select", "ORD001", str(LOGS / clean)).returncode == 0
    anthropic = audit("--select", "ORD001", "-f", "concise", str(LOGS / "bad_anthropic.json"))
    assert "ORD001 `refund_order` refunded 45.5" in anthropic.stdout
