"""Example rules for auditor, shipped as a plugin (the `auditor.rules` entry point group)."""
