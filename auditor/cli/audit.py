"""The `audit PATHS…` command."""

from __future__ import annotations

import sys

import typer

from auditor import VERSION
from auditor.cli import values
from auditor.cli.exits import exit_with, fail
from auditor.cli.options import (
    AllowEmptyOption,
    BaselineOption,
    Color,
    ColorOption,
    Command,
    ConfigOption,
    DebugOption,
    Engine,
    EngineOption,
    ExcludeOption,
    ExitZeroOption,
    ExplainOption,
    ExtendIgnoreOption,
    ExtendSelectOption,
    FailOnOption,
    FollowLinksOption,
    ForceExcludeOption,
    FormatOption,
    FormatsOption,
    HelpOption,
    IgnoreOption,
    InputFormatOption,
    IsolatedOption,
    JobsOption,
    NoGitignoreOption,
    NoProgressOption,
    OutputOption,
    Paths,
    QuietOption,
    RulesOption,
    SchedulerOption,
    SelectOption,
    ShowEvidenceOption,
    ShowFilesOption,
    ShowReadingOption,
    ShowSettingsOption,
    StatisticsOption,
    ToolsOption,
    VerboseOption,
    VersionOption,
    WriteBaselineOption,
)
from auditor.text import reflow

EXAMPLES = reflow(
    """\
Examples:

  audit runs.jsonl
      a table on a terminal, one line a finding in a pipe
  audit logs/ -f json | jq '.summary'
      every log below logs/, as JSON for jq
  audit logs/ -f github -f sarif:audit.sarif -f html:report.html
      one audit, several outputs: annotations, code scanning, a page to read
  cat run.jsonl | audit -
      standard input
  audit logs/ --select EX,FB --fail-on error
      some rules; fail on errors only
  audit logs/ --write-baseline .audit-baseline.json
      accept today's findings...
  audit logs/ --baseline .audit-baseline.json
      ...then fail only on new ones
  audit logs/ --show-files
  audit run.json --show-reading
      what would be read, and in which log format
  audit compare old.json new.json
      how two runs differ (audit compare -h)
  audit --explain EX003
      what a rule reports, and why (--explain FB: a family)
  audit runs.jsonl --tools tools.json
      tools the logs do not declare (OpenAI, Anthropic or MCP lists)
  audit 's3://bucket/logs/*.jsonl' --engine dask --scheduler tcp://h:8786
      on a Dask cluster (pip install 'auditor\\[dask]')

Settings come from [tool.auditor] in pyproject.toml, or auditor.toml or .auditor.toml, the
nearest one above the audited path (or --config FILE); the command line wins (audit
--show-settings). Directories are walked respecting .gitignore.

Exit status: 0 no finding at or above --fail-on; 1 there are; 2 usage error, bad
configuration, unreadable path, no conversation read (see --allow-empty) or internal error.
"""
).replace("[tool.auditor]", "\\[tool.auditor]")

HELP = reflow(
    """\
Audit the transcripts of tool-using LLM agents.

Reads agent logs (OpenAI, Anthropic and Responses API logs, gateway recordings, Claude Code and
Codex sessions, tau-bench, SWE-agent, multi-agent chats, OTel traces, Inspect logs, gpt-oss
harmony text), replays every assistant turn and reports fabricated observations, tool calls
nobody executed, approved arguments that changed before execution, and loops. Deterministic:
no model, no network.
"""
)


app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"max_content_width": 100},
)


@app.command(help=HELP, epilog=EXAMPLES, no_args_is_help=False, cls=Command, add_help_option=False)
def audit(
    paths: Paths = None,
    select: SelectOption = None,
    extend_select: ExtendSelectOption = None,
    ignore: IgnoreOption = None,
    extend_ignore: ExtendIgnoreOption = None,
    fail_on: FailOnOption = None,
    exit_zero: ExitZeroOption = False,
    exclude: ExcludeOption = None,
    no_respect_gitignore: NoGitignoreOption = False,
    follow_links: FollowLinksOption = False,
    force_exclude: ForceExcludeOption = False,
    input_format: InputFormatOption = "auto",
    tools_file: ToolsOption = None,
    allow_empty: AllowEmptyOption = False,
    output_format: FormatOption = None,
    output: OutputOption = None,
    show_evidence: ShowEvidenceOption = False,
    verbose: VerboseOption = False,
    quiet: QuietOption = False,
    statistics: StatisticsOption = False,
    color: ColorOption = Color.auto,
    no_progress: NoProgressOption = False,
    config_file: ConfigOption = None,
    isolated: IsolatedOption = False,
    baseline_file: BaselineOption = None,
    write_baseline: WriteBaselineOption = None,
    show_files: ShowFilesOption = False,
    show_reading: ShowReadingOption = False,
    show_settings: ShowSettingsOption = False,
    list_rules: RulesOption = False,
    list_formats: FormatsOption = False,
    explain: ExplainOption = None,
    version: VersionOption = False,
    jobs: JobsOption = "auto",
    engine: EngineOption = Engine.local,
    scheduler: SchedulerOption = None,
    show_help: HelpOption = False,
    debug: DebugOption = False,
) -> None:
    """The command: `HELP` says what it does, `EXAMPLES` how."""
    options = dict(locals())

    def act() -> int:
        from auditor.commands import info, run

        if version:
            print(VERSION)
            return 0
        if explain is not None:
            info.explain(explain, sys.stdout)
            return 0
        if list_formats:
            info.formats(sys.stdout)
            return 0
        invocation = values.invocation(options)
        if list_rules or show_settings or show_files or show_reading:
            info.show(
                invocation,
                rules=list_rules,
                settings=show_settings,
                files=show_files,
                reading=show_reading,
            )
            return 0
        if not paths:
            fail("no paths given: try `audit logs.jsonl`, `audit logs/` or `audit -` for stdin")
        return run.main(invocation)

    exit_with(act, debug)
