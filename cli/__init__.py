"""The command line: parse, build a command, call the shell, render."""

import importlib
import importlib.util
import sys


def _lazy(name: str) -> None:
    """Import `name` at its first attribute use: every command module names the commands, few run them."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    # `from fudge_combat.engine import commands` then finds it on its package: an `import` statement that went
    # through the import system would look at the module's __spec__, and that loads it.
    parent, _, child = name.rpartition(".")
    setattr(importlib.import_module(parent), child, module)


_lazy("fudge_combat.engine.commands")
