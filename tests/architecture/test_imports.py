"""The package's layering, checked on the source: imports only go downward
(a package imports its own modules and lower layers), and no module imports
another module's private (underscore) names."""
import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "spacy_adf"

# Lower layers first; a package may import from its own layer only within itself.
LAYERS = [
    {"about", "registry", "core", "serialization", "tags", "lang"},
    {"features", "kernels", "optimizers"},
    {"models"},
    {"scorers", "corpora"},
    {"training"},
    {"ml"},
    {"pipeline"},
    {"tokenizers"},  # a segmenting tokenizer carries a trained component's model
    {"distributed"},
]
LAYER_OF = {name: i for i, layer in enumerate(LAYERS) for name in layer}
_FROM_RE = re.compile(r"^\s*(?:from|cimport)\s+(\.+[\w.]*)\s+(?:c?import)\s+(.+)$")


def _top(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path: Path):
    """(line, target module parts, imported names) of every relative import."""
    text = path.read_text(encoding="utf8")
    base = list(path.relative_to(PACKAGE).with_suffix("").parts)[:-1]
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level:
                up = base[: len(base) - (node.level - 1)]
                target = up + (node.module.split(".") if node.module else [])
                yield node.lineno, target, [a.name for a in node.names]
    else:  # Cython: the import lines are plain enough for a pattern
        for lineno, line in enumerate(text.splitlines(), 1):
            m = _FROM_RE.match(line)
            if m:
                dots = len(m.group(1)) - len(m.group(1).lstrip("."))
                module = m.group(1)[dots:]
                up = base[: len(base) - (dots - 1)]
                target = up + (module.split(".") if module else [])
                names = [n.strip().split(" as ")[0] for n in m.group(2).strip("()").split(",")]
                yield lineno, target, names


def _sources():
    return [p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".pyx", ".pxd")]


def test_every_package_has_a_layer():
    tops = {_top(p) for p in _sources()} - {"__init__"}
    assert tops <= set(LAYER_OF), f"add to LAYERS: {sorted(tops - set(LAYER_OF))}"


def test_imports_only_go_downward():
    bad = []
    for path in _sources():
        here = _top(path)
        for lineno, target, _ in _imports(path):
            if not target or target[0] == here:
                continue
            if LAYER_OF[target[0]] >= LAYER_OF.get(here, len(LAYERS)):
                bad.append(f"{path.relative_to(PACKAGE)}:{lineno} imports {'.'.join(target)}")
    assert not bad, "upward or sideways imports:\n" + "\n".join(bad)


def test_no_private_names_cross_modules():
    bad = []
    for path in _sources():
        for lineno, target, names in _imports(path):
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private:
                bad.append(f"{path.relative_to(PACKAGE)}:{lineno} imports {private} from {'.'.join(target)}")
    assert not bad, "\n".join(bad)
