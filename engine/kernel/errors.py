"""Errors the core raises. The shell turns each into one line on stderr."""


class RuleError(Exception):
    """A command the rules (or the sheet, or the options) forbid now."""


class InputError(RuleError):
    """Input that cannot be read: a level name, dice faces, a sheet key."""
