"""fudge's exit codes: one per kind of failure a script (or `fudge play`) may want to tell apart.

`fudge --help` lists them (EPILOG); each has a process test in tests/test_cli_conventions.py.
"""

from __future__ import annotations

OK = 0
REFUSED = 1  # the rules refused the command, or the input was wrong (an unknown name, an unreadable file)
USAGE = 2  # the command line itself: an unknown command or option, a missing argument (click's code)
VERIFY_FAILED = 3  # `fudge verify`: the log is not the one written (exit 1 is any other error of verify)
INTERNAL_ERROR = 70  # EX_SOFTWARE (sysexits.h): a defect of fudge, not of the input
WRITE_CONFLICT = 75  # EX_TEMPFAIL (sysexits.h): another command wrote to the fight first; running it again is safe
INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as a shell reports it
CLOSED_PIPE = 141  # the reader of the output went away (`fudge log | head`): 128 + SIGPIPE

# Shown at the end of `fudge --help`, one line each.
EPILOG = "\n".join([
    "Exit codes:",
    f"  {OK}  done",
    f"  {REFUSED}  refused by the rules, or bad input",
    f"  {USAGE}  usage: an unknown command or option, a missing argument",
    f"  {VERIFY_FAILED}  `fudge verify`: the log is not the one written",
    f" {INTERNAL_ERROR}  internal error: a defect of fudge (please report it)",
    f" {WRITE_CONFLICT}  another command wrote to the fight first: run the command again",
    f"{INTERRUPTED}  interrupted (Ctrl-C)",
    f"{CLOSED_PIPE}  the reader of the output closed the pipe (`fudge log | head`)",
])
