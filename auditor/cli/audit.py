"""The `audit PATHS…` command."""

from __future__ import annotations

import sys

import typer

from auditor import VERSION
from auditor.cli import table
from auditor.cli.exits import exit_with, fail
from auditor.cli.options import Command, Given, command
from auditor.common.text import reflow

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
@command(table.AUDIT)
def audit(given: Given) -> None:
    """The command: `HELP` says what it does, `EXAMPLES` how."""

    def act() -> int:
        from auditor.commands import info, run

        if given[table.VERSION]:
            print(VERSION)
            return 0
        if given[table.EXPLAIN] is not None:
            own = lambda: run.settings(table.invocation(given)).user_rules  # noqa: E731
            info.explain(given[table.EXPLAIN], sys.stdout, own=own)
            return 0
        if given[table.FORMATS]:
            info.formats(sys.stdout)
            return 0
        invocation = table.invocation(given)
        if given[table.ADD_IGNORE] is not None:
            from auditor.commands.add_ignore import add_ignore

            return add_ignore(invocation, given[table.ADD_IGNORE], given[table.REASON])
        if given[table.REASON] is not None:
            fail("--reason goes with --add-ignore FINGERPRINT")
        listings = table.RULES, table.SHOW_SETTINGS, table.SHOW_FILES, table.SHOW_READING
        rules, settings, files, reading = (given[listing] for listing in listings)
        if rules or settings or files or reading:
            info.show(invocation, rules=rules, settings=settings, files=files, reading=reading)
            return 0
        if not invocation.paths:
            fail("no paths given: try `audit logs.jsonl`, `audit logs/` or `audit -` for stdin")
        return run.main(invocation)

    exit_with(act, given[table.DEBUG])
