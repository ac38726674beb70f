"""auditor: audit the transcripts of tool-using LLM agents."""

__version__ = "0.1.0"

VERSION = f"audit (auditor) {__version__}"
"""What `audit --version` prints."""
