"""auditor: audit the transcripts of tool-using LLM agents."""

__version__ = "0.1.0"

REPOSITORY = "https://github.com/YOUR-ORG/auditor"
"""Where the project lives: install commands, the workflow and the rule pages' links (SARIF
`helpUri`) are written from it, and the Action's `uses:` is its path. Releases will be tags
`vMAJOR.MINOR.PATCH` of `__version__` (the version's one place: hatchling reads it for the
package); until the first, a reader pins a commit."""

DISTRIBUTION = "transcript-auditor"
"""What pip installs (`pip install transcript-auditor`): the name on PyPI, where `auditor` is
another project's. The command is `audit`, the import package `auditor`."""

VERSION = f"audit ({DISTRIBUTION}) {__version__}"
"""What `audit --version` prints."""

VERSION_FLAG = "--version"
"""The option that prints it: answered by `__main__` before anything else is imported, and
declared with the others in `cli/table.py` (which costs tens of milliseconds to import)."""
