"""One small hierarchy of errors a person can act on; each message starts with what was wrong."""


class AuditorError(Exception):
    """Base of every error the auditor reports as one line and exit status 2."""


class InputError(AuditorError):
    """A path cannot be read (missing, unreadable, a device)."""


class ConfigError(AuditorError):
    """The command line or the configuration asks for something that does not exist."""


class Terminated(BaseException):
    """SIGTERM arrived (`timeout`, a cancelled CI job, `docker stop`): the run ends with 143,
    as SIGINT's KeyboardInterrupt ends it with 130. Not an Exception, so that no `except
    Exception` on the way (a record boundary) mistakes it for a broken input."""
