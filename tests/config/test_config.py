"""`[tool.auditor]`: where it is found, what it may hold, and how the command line overrides it."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from auditor import config, engine
from auditor.common.errors import ConfigError
from auditor.findings import Severity
from auditor.rules import RULES, Rule
from auditor.sources import Exclude
from tests.helpers import FIXTURES, audit_main

LOST = FIXTURES / "rules" / "EX001" / "bad_moved_on_without_result.jsonl"
ORPHAN = FIXTURES / "rules" / "EX002" / "bad_unknown_call_id.jsonl"


def pyproject(directory: Path, body: str, name: str = "pyproject.toml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(body, encoding="utf-8")
    return path


EX = [r.code for r in RULES if r.family == "EX"]


def codes(settings: config.Settings) -> list[str]:
    return [r.code for r in settings.rules]


# Where the configuration is found.


def test_nearest_pyproject_with_a_tool_auditor_table_wins(tmp_path):
    pyproject(tmp_path, '[tool.auditor]\nignore = ["EX002"]\n')
    pyproject(tmp_path / "project", '[project]\nname = "x"\n')  # no [tool.auditor]: skipped
    deep = tmp_path / "project" / "logs" / "today"
    deep.mkdir(parents=True)
    found = config.discover(deep)
    assert found is not None
    assert found.path == (tmp_path / "pyproject.toml").resolve()
    assert found.values == {"ignore": ["EX002"]}
    # A nearer table shadows the farther one entirely, as in ruff.
    pyproject(tmp_path / "project", '[tool.auditor]\nfail-on = "error"\n')
    assert config.discover(deep).values == {"fail-on": "error"}


def test_auditor_toml_files_are_found_before_pyproject_in_each_directory(tmp_path):
    pyproject(tmp_path, '[tool.auditor]\nignore = ["EX002"]\n')
    deep = tmp_path / "logs" / "today"
    deep.mkdir(parents=True)
    pyproject(tmp_path / "logs", 'fail-on = "error"\n', name="auditor.toml")
    found = config.discover(deep)
    assert found is not None
    assert (found.path.name, found.values, found.in_pyproject) == (
        "auditor.toml",
        {"fail-on": "error"},
        False,
    )
    # In one directory: .auditor.toml, then auditor.toml, then pyproject.toml (as ruff).
    pyproject(tmp_path / "logs", 'fail-on = "note"\n', name=".auditor.toml")
    pyproject(tmp_path / "logs", '[tool.auditor]\nfail-on = "never"\n')
    assert config.discover(deep).values == {"fail-on": "note"}


def test_discovery_starts_from_the_audited_paths_not_the_working_directory(tmp_path):
    project = tmp_path / "project"
    (project / "logs").mkdir(parents=True)
    shutil.copy(ORPHAN, project / "logs" / "runs.jsonl")
    pyproject(project, '[tool.auditor]\nignore = ["EX002"]\n')
    (tmp_path / "elsewhere").mkdir()
    # Run from a directory outside the project: its configuration still applies.
    proc = audit_main(project / "logs", cwd=tmp_path / "elsewhere")
    assert (proc.returncode, proc.stdout) == (0, b"")
    proc = audit_main("project/logs/runs.jsonl", "--show-settings", cwd=tmp_path)
    assert proc.stdout.decode().splitlines()[0] == ("# configuration file: project/pyproject.toml")


def test_config_option_takes_any_file_with_a_tool_auditor_table(tmp_path):
    named = pyproject(tmp_path, '[tool.auditor]\nselect = ["EX"]\n', name="ci.toml")
    read = config.read(named)
    assert (read.values, read.in_pyproject) == ({"select": ["EX"]}, True)


def test_config_file_may_be_a_pyproject_or_a_standalone_toml(tmp_path):
    standalone = pyproject(tmp_path, 'ignore = ["EX001"]\n[loops]\n', name="audit.toml")
    read = config.read(standalone)
    assert (read.values, read.in_pyproject) == ({"ignore": ["EX001"], "loops": {}}, False)
    project = pyproject(tmp_path, '[tool.auditor]\nselect = ["EX"]\n')
    assert config.read(project).values == {"select": ["EX"]}
    bare = pyproject(tmp_path / "bare", '[project]\nname = "x"\n')
    with pytest.raises(ConfigError, match=r"has no \[tool.auditor\] table"):
        config.read(bare)


# What it may hold: every mistake names the file, the table and the key.


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '[tool.auditor]\nfail_on = "error"\n',
            "[tool.auditor] unknown key `fail_on` (did you mean `fail-on`?); the keys are "
            "select, ignore, fail-on, exclude, severity, per-file-ignores, respect-gitignore, "
            "max-record-mb, tools, read-timeout, fail-on-increase, suppress, rule, the option "
            "tables input, fabrication, execution, approvals, loops and the table of declared "
            "formats, formats",
        ),
        (
            '[tool.auditor]\nfail-on = "sometimes"\n',
            '[tool.auditor] fail-on must be one of error, warning, note, never, got "sometimes"',
        ),
        ('[tool.auditor]\nselect = "EX001"\n', 'select must be a list of strings, got "EX001"'),
        ("[tool.auditor]\nexclude = [1, 2]\n", "exclude must be a list of strings, got [1, 2]"),
        (
            '[tool.auditor]\nignore = ["XX9"]\n',
            "[tool.auditor] ignore: unknown rule selector `XX9`",
        ),
        (
            '[tool.auditor.severity]\nEX001 = "fatal"\n',
            '[tool.auditor] severity.EX001 must be one of error, warning, note, got "fatal"',
        ),
        (
            '[tool.auditor.severity]\nZZ = "note"\n',
            "[tool.auditor] severity: unknown rule selector `ZZ`",
        ),
        ("[tool.auditor]\nloops = 3\n", "[tool.auditor] `loops` must be a table of options, got 3"),
        ("[tool.auditor]\nselect = [\n", "not valid TOML: "),
        # A blank selector selects nothing: it would turn every rule off without a word.
        ('[tool.auditor]\nselect = [""]\n', '[tool.auditor] select: blank rule selector ""'),
        ('[tool.auditor]\nignore = ["EX001", " "]\n', 'ignore: blank rule selector ""'),
        ('[tool.auditor.severity]\n"" = "note"\n', 'severity: blank rule selector ""'),
        # tomllib recurses once per level: deep nesting is a config error, not a crash.
        (
            "[tool.auditor]\nselect = " + "[" * 2000 + "]" * 2000 + "\n",
            "not valid TOML: arrays or tables nested too deeply",
        ),
        (
            "[tool.auditor]\nx = " + "{a = " * 2000 + "1" + "}" * 2000 + "\n",
            "not valid TOML: arrays or tables nested too deeply",
        ),
    ],
)
def test_invalid_config_is_one_clear_error_naming_the_key(tmp_path, body, message):
    path = pyproject(tmp_path, body)
    with pytest.raises(ConfigError) as error:
        config.build(file=config.read(path))
    assert str(error.value).startswith("invalid config in ")
    assert message in str(error.value)
    assert str(path.name) in str(error.value)


def test_standalone_file_errors_name_its_own_tables(tmp_path):
    path = pyproject(tmp_path, "[approvals]\nrequire-approvals = 1\n", name="audit.toml")
    with pytest.raises(ConfigError, match=r": \[approvals\] unknown option `require-approvals`"):
        config.build(file=config.read(path))


def test_unreadable_config_file(tmp_path):
    with pytest.raises(ConfigError, match=r"cannot read config .*missing\.toml: no such file"):
        config.read(tmp_path / "missing.toml")


# How the command line and the file combine (ruff's rules).


def test_file_select_and_ignore_apply(tmp_path):
    file = config.read(pyproject(tmp_path, '[tool.auditor]\nselect = ["EX"]\nignore = ["EX002"]'))
    assert codes(config.build(file=file)) == ["IN001"] + [c for c in EX if c != "EX002"]


@pytest.mark.parametrize("option", ["select", "ignore"])
@pytest.mark.parametrize("value", ["", " ", ",", " , "])
def test_a_command_line_selector_naming_no_rule_is_an_error(option, value):
    with pytest.raises(ConfigError, match=f'invalid --{option} "{value}": it names no rule'):
        config.build(**{option: [value]})
    # A trailing comma is forgiven.
    assert codes(config.build(select=["EX001,"])) == ["IN001", "EX001"]


def test_values_shown_in_errors_stop_at_three_levels(tmp_path):
    path = pyproject(tmp_path, "[tool.auditor]\nexclude = " + "[" * 50 + "]" * 50 + "\n")
    with pytest.raises(
        ConfigError, match=r"exclude must be a list of strings, got \[\[\[\[…\]\]\]\]"
    ):
        config.build(file=config.read(path))


def test_cli_select_starts_over_and_cli_ignore_adds(tmp_path):
    file = config.read(pyproject(tmp_path, '[tool.auditor]\nselect = ["EX"]\nignore = ["EX002"]'))
    # --select replaces the file's select *and* its ignore.
    assert codes(config.build(select=["EX002,IN"], file=file)) == ["IN001", "IN002", "EX002"]
    # --ignore extends the file's ignore.
    assert codes(config.build(ignore=["EX001"], file=file)) == ["IN001"] + [
        c for c in EX if c > "EX002"
    ]
    everything = config.read(pyproject(tmp_path / "b", '[tool.auditor]\nignore = ["IN002"]'))
    left = [r.code for r in RULES if r.code != "IN002" and r.family != "EX" and not r.preview]
    assert codes(config.build(ignore=["EX"], file=everything)) == left


def test_a_rule_in_preview_runs_only_when_named(tmp_path):
    preview = [r.code for r in RULES if r.preview]
    assert "FB008" in preview
    for selection in (config.build(), config.build(select=["ALL"]), config.build(select=["FB"])):
        assert not set(preview) & set(codes(selection))
    assert "FB008" in codes(config.build(select=["FB008"]))
    assert "FB008" in codes(config.build(select=["ungrounded-answer-fact"]))
    assert "FB008" in codes(config.build(extend_select=["FB008"]))
    # an ignore names it by prefix, as every other rule
    assert "FB008" not in codes(config.build(select=["FB008", "FB001"], ignore=["FB"]))
    file = config.read(pyproject(tmp_path, '[tool.auditor]\nselect = ["ALL", "FB008"]'))
    assert "FB008" in codes(config.build(file=file))


def test_extend_select_adds_to_the_selection_and_ignores_come_last(tmp_path):
    file = config.read(pyproject(tmp_path, '[tool.auditor]\nselect = ["EX"]\nignore = ["EX002"]'))
    # --extend-select adds to the file's selection (and beats the file's ignore), as in ruff.
    assert codes(config.build(extend_select=["LP001,EX002"], file=file)) == [
        "IN001",
        *EX,
        "LP001",
    ]
    # The command line's ignores come after: --ignore and --extend-ignore alike.
    assert codes(config.build(extend_select=["LP"], extend_ignore=["LP00,EX"], file=file)) == [
        "IN001"
    ]
    assert codes(config.build(select=["FB001"], extend_select=["FB002"])) == [
        "IN001",
        "FB001",
        "FB002",
    ]


@pytest.mark.parametrize(
    "selection", [{"select": ["FB"]}, {"select": ["EX001"]}, {"ignore": ["IN"]}]
)
def test_in001_is_always_on(selection):
    # An unreadable record is why the other rules saw nothing: no selection hides it.
    assert "IN001" in codes(config.build(**selection))


@pytest.mark.parametrize("option", ["ignore", "extend_ignore"])
@pytest.mark.parametrize("selector", ["IN001", "invalid-record", "in001"])
def test_ignoring_in001_by_name_is_an_error_that_says_what_to_do(option, selector):
    with pytest.raises(
        ConfigError, match=r"IN001 \(invalid-record\) cannot be ignored: .*severity"
    ):
        config.build(**{option: [selector]})


def test_ignoring_in001_in_the_file_is_an_error_naming_the_key(tmp_path):
    path = pyproject(tmp_path, '[tool.auditor]\nignore = ["IN001"]\n')
    with pytest.raises(ConfigError, match=r"\[tool.auditor\] ignore: IN001 \(invalid-record\)"):
        config.build(file=config.read(path))
    path = pyproject(tmp_path, '[tool.auditor.per-file-ignores]\n"*.jsonl" = ["IN001"]\n')
    with pytest.raises(
        ConfigError, match=r"\[tool.auditor.per-file-ignores\] \*.jsonl: IN001 \(invalid-record\)"
    ):
        config.build(file=config.read(path))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('per-file-ignores = ["a"]\n', "per-file-ignores must be a table of glob = [rules]"),
        (
            '[per-file-ignores]\n"a/*" = "EX001"\n',
            '[per-file-ignores] a/* must be a list of rule codes, prefixes or names, got "EX001"',
        ),
        ('[per-file-ignores]\n"a/*" = ["XX"]\n', "[per-file-ignores] a/*: unknown rule selector"),
        ('[per-file-ignores]\n"a/*" = [""]\n', '[per-file-ignores] a/*: blank rule selector ""'),
    ],
)
def test_bad_per_file_ignores(tmp_path, body, message):
    path = pyproject(tmp_path, body, name="audit.toml")
    with pytest.raises(ConfigError) as error:
        config.build(file=config.read(path))
    assert message in str(error.value)


def test_per_file_ignores_drop_those_findings_in_those_files_only(tmp_path):
    (tmp_path / "logs" / "legacy").mkdir(parents=True)
    for name in ("logs/legacy/old.jsonl", "logs/new.jsonl"):
        (tmp_path / name).write_bytes(LOST.read_bytes() + ORPHAN.read_bytes())
    file = config.read(
        pyproject(
            tmp_path,
            '[tool.auditor.per-file-ignores]\n"logs/legacy/**" = ["EX001"]\n"new.*" = ["EX002"]\n',
        )
    )
    settings = config.build(file=file, select=["EX001,EX002"])
    report = engine.audit([str(tmp_path / "logs")], settings)
    found = [(Path(f.path).name, f.code, f.line) for f in report.findings]
    assert found == [
        ("old.jsonl", "EX002", 3),  # logs/legacy/ sorts before logs/new.jsonl
        ("new.jsonl", "EX001", 1),
        ("new.jsonl", "EX001", 2),
    ]


def test_respect_gitignore_from_the_file_and_the_command_line(tmp_path):
    assert config.build().respect_gitignore is True
    file = config.read(pyproject(tmp_path, "[tool.auditor]\nrespect-gitignore = false\n"))
    assert config.build(file=file).respect_gitignore is False
    assert config.build(file=file, respect_gitignore=True).respect_gitignore is True
    bad = pyproject(tmp_path / "b", '[tool.auditor]\nrespect-gitignore = "no"\n')
    with pytest.raises(ConfigError, match='respect-gitignore must be true or false, got "no"'):
        config.build(file=config.read(bad))


def test_cli_fail_on_wins_over_the_file(tmp_path):
    file = config.read(pyproject(tmp_path, '[tool.auditor]\nfail-on = "never"\n'))
    assert config.build(file=file).fail_on is None
    assert config.build(fail_on="error", file=file).fail_on is Severity.ERROR
    assert config.build().fail_on is Severity.WARNING


def test_severity_overrides_narrowest_selector_wins_and_reach_findings(tmp_path):
    body = '[tool.auditor.severity]\nEX = "note"\norphan-tool-result = "error"\n'
    settings = config.build(file=config.read(pyproject(tmp_path, body)))
    assert settings.severity == {
        **dict.fromkeys(EX, Severity.NOTE),
        "EX002": Severity.ERROR,
    }
    settings = replace(settings, rules=tuple(r for r in RULES if r.code in ("EX001", "EX002")))
    report = engine.audit([str(LOST), str(ORPHAN)], settings)
    assert [(f.code, f.severity) for f in report.findings] == [
        ("EX001", Severity.NOTE),
        ("EX001", Severity.NOTE),
        ("EX002", Severity.ERROR),
    ]


# Per-family options, mapped onto any rule's Options by field name (tested on made-up rules,
# so that the mapping does not depend on which rules exist).


@dataclass(frozen=True)
class RepeatOptions:
    min_repeats: int = 3
    exempt_tools: tuple[str, ...] = ()
    strict: bool = False
    ratio: float = 0.5
    window: int | None = None
    gap: int = field(default=2, metadata={"minimum": 0})


@dataclass(frozen=True)
class CycleOptions:
    min_repeats: int = 3

    def __post_init__(self) -> None:
        if self.min_repeats > 100:
            raise ValueError("at most 100 repeats are tracked")


def fake_rule(code: str, options: type) -> Rule:
    return Rule(code, f"fake-{code.lower()}", Severity.WARNING, "Fake.", "", None, (), options)


FAKES = (fake_rule("LP901", RepeatOptions), fake_rule("LP902", CycleOptions), *RULES)


def options_of(tmp_path, body: str) -> dict:
    return config.rule_options(config.read(pyproject(tmp_path, body)), FAKES)


def test_family_options_reach_every_rule_with_that_field(tmp_path):
    body = (
        "[tool.auditor.loops]\nmin-repeats = 4\nexempt-tools = ['poll_*']\nstrict = true\n"
        "ratio = 1\nwindow = 8\ngap = 0\n"
    )
    options = options_of(tmp_path, body)
    assert options["LP901"] == RepeatOptions(4, ("poll_*",), True, 1.0, 8, 0)
    assert options["LP902"] == CycleOptions(4)
    assert isinstance(options["LP901"].exempt_tools, tuple)  # the field's own container
    assert isinstance(options["LP901"].ratio, float)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            'min-repeats = "three"',
            '[tool.auditor.loops] min-repeats must be an integer >= 1, got "three"',
        ),
        ("min-repeats = 0", "[tool.auditor.loops] min-repeats must be an integer >= 1, got 0"),
        ("min-repeats = true", "min-repeats must be an integer >= 1, got true"),
        ("gap = -1", "[tool.auditor.loops] gap must be an integer >= 0, got -1"),
        ("exempt-tools = 'poll_*'", 'exempt-tools must be a list of strings, got "poll_*"'),
        ("strict = 'yes'", 'strict must be true or false, got "yes"'),
        ("ratio = 'half'", 'ratio must be a number, got "half"'),
        ("window = 'x'", 'window must be an integer >= 1, got "x"'),
        (
            "min-repeat = 3",
            "[tool.auditor.loops] unknown option `min-repeat` (did you mean `min-repeats`?): "
            "the loops rules accept exempt-tools, gap, min-repeats, ratio, strict, window",
        ),
        ("min-repeats = 101", "[tool.auditor.loops] min-repeats: at most 100 repeats are tracked"),
    ],
)
def test_bad_option_values_name_file_table_and_key(tmp_path, monkeypatch, line, message):
    monkeypatch.chdir(tmp_path)  # the file is named relative to the working directory
    with pytest.raises(ConfigError) as error:
        options_of(tmp_path, f"[tool.auditor.loops]\n{line}\n")
    assert str(error.value).startswith("invalid config in pyproject.toml: [tool.auditor.loops] ")
    assert str(error.value).endswith(message)


def test_a_family_without_options_says_so(tmp_path):
    with pytest.raises(ConfigError, match=r"\[tool.auditor.input\] unknown option `x`: no input"):
        options_of(tmp_path, "[tool.auditor.input]\nx = 1\n")


def test_options_in_settings_are_what_the_engine_passes(tmp_path):
    settings = config.Settings(rules=FAKES[:2], options=options_of(tmp_path, "[tool.auditor]"))
    assert settings.options_of(FAKES[0]) == RepeatOptions()  # defaults when not configured
    settings = config.Settings(
        rules=FAKES[:2], options=options_of(tmp_path, "[tool.auditor.loops]\nmin-repeats = 7\n")
    )
    assert settings.options_of(FAKES[1]) == CycleOptions(7)


# exclude: globs, relative to the configuration file's directory.


@pytest.mark.parametrize(
    ("pattern", "path", "excluded"),
    [
        ("logs/archive/**", "logs/archive", True),
        ("logs/archive/**", "logs/archive/2024/a.jsonl", True),
        ("logs/archive/**", "logs/archived.jsonl", False),
        ("logs/archive", "logs/archive/a.jsonl", True),
        ("*.tmp.jsonl", "logs/deep/x.tmp.jsonl", True),
        ("*.tmp.jsonl", "logs/x.jsonl", False),
        ("archive", "logs/archive/a.jsonl", True),
        ("archive", "logs/archives/a.jsonl", False),
        ("**/scratch/*.json", "scratch/a.json", True),
        ("**/scratch/*.json", "logs/scratch/a.json", True),
        ("logs/*.json", "logs/a.json", True),
        ("logs/*.json", "other/logs/a.json", False),
        ("./logs/a.jsonl", "logs/a.jsonl", True),
    ],
)
def test_exclude_globs(tmp_path, pattern, path, excluded):
    exclude = Exclude([pattern], str(tmp_path))
    assert exclude(str(tmp_path / path)) is excluded


def test_exclude_is_relative_to_the_config_not_the_working_directory(tmp_path, monkeypatch):
    root = tmp_path / "project"
    (root / "logs" / "archive").mkdir(parents=True)
    (root / "logs" / "archive" / "old.jsonl").write_bytes(LOST.read_bytes())
    (root / "logs" / "new.jsonl").write_bytes(ORPHAN.read_bytes())
    file = config.read(pyproject(root, '[tool.auditor]\nexclude = ["logs/archive/**"]\n'))
    monkeypatch.chdir(root / "logs")  # run from below the project root: same result
    report = engine.audit(["."], config.build(file=file))
    assert [(f.code, f.path) for f in report.findings] == [("EX002", "./new.jsonl")]
    assert (report.counts.files, report.counts.excluded) == (1, 1)
    # A named file that matches is not read either (pre-commit passes files by name).
    report = engine.audit(["archive/old.jsonl", "new.jsonl"], config.build(file=file))
    assert [f.path for f in report.findings] == ["new.jsonl"]
    assert report.summary()["excluded"] == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '[tool.auditor.loops]\nmin-repeats = "three"\n',
            '[tool.auditor.loops] min-repeats must be an integer >= 1, got "three"',
        ),
        (
            "[tool.auditor.approvals]\npending-patterns = ['awaiting (approval']\n",
            "[tool.auditor.approvals] pending-patterns: invalid pending-patterns entry "
            "`awaiting (approval`: missing ), unterminated subpattern at position 9",
        ),
        (
            "[tool.auditor.approvals]\nrequire-approval = 'book_*'\n",
            '[tool.auditor.approvals] require-approval must be a list of strings, got "book_*"',
        ),
    ],
)
def test_the_real_rules_options_are_checked_the_same_way(tmp_path, monkeypatch, body, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as error:
        config.build(file=config.read(pyproject(tmp_path, body)))
    assert str(error.value) == f"invalid config in pyproject.toml: {message}"


def test_the_real_rules_receive_their_family_options(tmp_path):
    body = (
        "[tool.auditor.loops]\nmin-repeats = 5\nexempt-tools = ['poll_*']\n"
        "[tool.auditor.approvals]\nrequire-approval = ['book_*']\n"
    )
    settings = config.build(file=config.read(pyproject(tmp_path, body)))
    for rule in RULES:
        options = settings.options_of(rule)
        if rule.family == "LP":
            assert (options.min_repeats, options.exempt_tools) == (5, ("poll_*",)), rule.code
        elif rule.family == "CF":
            assert options.require_approval == ("book_*",), rule.code
