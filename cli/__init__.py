"""The command line: parse, build a command, call the shell, render."""
