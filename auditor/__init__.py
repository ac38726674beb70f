"""auditor: audit the transcripts of tool-using LLM agents."""

__version__ = "0.1.0"
