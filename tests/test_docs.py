"""The documents say what the code does: the README's first fight prints what the README shows, its quick
start is what CI runs, the architecture's picture is the layers import-linter holds, the links lead to pages
that exist, and no source comment quotes a benchmark figure (those live in bench/README.md)."""

from __future__ import annotations

import ast
import io
import re
import shlex
import tokenize
import tomllib
from pathlib import Path

from tests.processes import ROOT, fudge

README = ROOT / "README.md"
DOCS = ROOT / "docs"


def section(text: str, heading: str) -> str:
    """The text under a `## heading` up to the next heading of that level."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def blocks(text: str, language: str) -> list[str]:
    """The fenced blocks of a language, their fences left out."""
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.M | re.S)


def masked(text: str) -> str:
    """What changes from run to run: each receipt's hash (an event is stamped with the time it was written)
    and a command's random id."""
    text = re.sub(r"\bcommand [0-9a-f]{8}\b", "command <id>", text)
    return re.sub(r"\breceipt (\d+):[0-9a-f]{32}\b", r"receipt \1:<hash>", text)


PROMPT = re.compile(r"^(?:[\w-]+(?: [\w-]+)?)?> (.*)$")  # `> `, `duel> `, `duel Snorri> `


def test_the_readmes_first_fight_prints_what_the_readme_shows(tmp_path: Path) -> None:
    (transcript,) = blocks(section(README.read_text(), "A first fight"), "console")
    command, shown = transcript.split("\n", 1)
    assert command == "$ fudge play"
    script = [match.group(1) for line in shown.splitlines() if (match := PROMPT.match(line))]
    assert script[:2] == ["new duel", "sheet new Snorri"] and len(script) >= 8  # the fight, not a stray prompt

    done = fudge("play", store=tmp_path / "fudge.db", cwd=tmp_path, input="\n".join(script) + "\n")

    assert (done.returncode, done.stderr) == (0, "")
    assert masked(done.stdout) == masked(shown)
    assert (tmp_path / "snorri.toml").is_file() and (tmp_path / "brynhild.toml").is_file()


def quick_start(text: str) -> list[str]:
    (commands,) = blocks(section(text, "Quick start"), "sh")
    return [line for line in commands.splitlines() if line.strip()]


def test_the_quick_start_is_two_commands_and_ci_installs_and_runs_as_they_say() -> None:
    demo, tests = quick_start(README.read_text())
    assert demo.endswith("pip install . && fudge demo")
    assert tests.endswith("&& python -m pytest -n auto")
    (spec,) = re.findall(r"pip install ((?:-e )?\S+) &&", tests)
    ci = [shlex.split(line, comments=True) for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()]
    assert ["python", "-m", "pip", "install", "--quiet", *shlex.split(spec)] in ci
    assert any("fudge demo" in " ".join(line) for line in ci)
    assert ["python", "-m", "pytest", "-n", "auto"] in ci
    assert ["python", "-m", "pip", "install", "--quiet", "-e", ".[docs]"] in ci
    assert any(line[:3] == ["mkdocs", "build", "--strict"] for line in ci)
    assert quick_start((DOCS / "index.md").read_text()) == [demo, tests]  # the site's home says the same


def drawn_chain(picture: str) -> list[str]:
    """The boxes of a picture drawn as one chain of arrows, top first."""
    arrows = dict(re.findall(r"^\s*(\w+)\s*-->\s*(\w+)\s*$", picture, re.M))
    drawn = [next(iter(set(arrows) - set(arrows.values())))]  # the top: no arrow into it
    while drawn[-1] in arrows:
        drawn.append(arrows[drawn[-1]])
    assert len(arrows) == len(drawn) - 1  # one chain, nothing drawn beside it
    return drawn


def test_the_architectures_pictures_are_the_layers_import_linter_holds() -> None:
    """The layers' picture is the layers contract; the engine's picture names the engine contract's layers
    (its glue box every module of the top two), and the rulesets' contract has Fudge at the bottom."""
    layers_picture, engine_picture = blocks((DOCS / "architecture.md").read_text(), "mermaid")
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers" and "containers" not in c]
    assert drawn_chain(layers_picture) == [layer.rsplit(".", 1)[-1] for layer in layers]
    by_container = {c["containers"][0]: c["layers"] for c in contracts if c["type"] == "layers" and "containers" in c}
    *glue, rulesets, kernel = by_container["fudge_combat.engine"]
    assert drawn_chain(engine_picture) == ["glue", rulesets, kernel]
    labels = dict(re.findall(r'^\s*(\w+)\["([^"]*)"\]', engine_picture, re.M))
    for module in re.split(r"\s*[:|]\s*", " : ".join(glue)):
        assert module in labels["glue"], module
    assert by_container["fudge_combat.engine.rulesets"][-1] == "fudge"


def test_the_links_lead_to_pages_that_exist_and_every_page_is_on_the_site() -> None:
    for document in [README, *DOCS.glob("*.md")]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", document.read_text()):
            if not re.match(r"\w+://", target):
                assert (document.parent / target).exists(), f"{document.name} links to {target}"
    nav = set(re.findall(r":\s*([\w-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M))
    assert nav == {page.name for page in DOCS.glob("*.md")}


FIGURE = re.compile(r"\d\s?(ms|µs|us|ns|MiB|KiB)\b|\d(\.\d+)?x\s+(faster|slower|the)\b|\d+(\.\d+)? times (faster|slower)")


def comments(source: str) -> list[tuple[int, str]]:
    """A module's comments and docstrings, line by line."""
    found = [(token.start[0], token.string) for token in tokenize.generate_tokens(io.StringIO(source).readline)
             if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                found += [(node.body[0].lineno + i, line) for i, line in enumerate(doc.splitlines())]
    return found


def test_no_source_comment_quotes_a_benchmark_figure() -> None:
    """Figures go stale in comments; a comment says why, and bench/README.md holds the figure beside its
    baseline and the command that measures it again."""
    quoted = [f"{path.relative_to(ROOT)}:{line}: {text.strip()}"
              for path in sorted(ROOT.glob("*/**/*.py")) if path.relative_to(ROOT).parts[0] not in {"bench", "tests"}
              and not path.relative_to(ROOT).parts[0].startswith(".")
              for line, text in comments(path.read_text()) if FIGURE.search(text)]
    assert quoted == []
