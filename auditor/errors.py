"""One small hierarchy of errors a person can act on; each message starts with what was wrong."""


class AuditorError(Exception):
    """Base of every error the auditor reports as one line and exit status 2."""


class InputError(AuditorError):
    """A path cannot be read (missing, unreadable, a device)."""


class ConfigError(AuditorError):
    """The command line or the configuration asks for something that does not exist."""
