"""The package's layering, checked on the source: imports only go downward
(a package imports its own modules and lower layers), whether relative
(``from ..models import``), absolute (``from spacy_adf.models import``,
``import spacy_adf.models``) or Cython's ``cimport``; no module imports
another module's private (underscore) names; no import cycle between
packages, nor between the benchmark modules; no package probes objects
with getattr/hasattr (abilities are declared protocols or classes);
tests import no script."""
import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "spacy_adf"
ROOT = PACKAGE.name

# Lower layers first; a package may import from its own layer only within itself.
LAYERS = [
    {"about", "registry", "command_line", "core", "serialization", "tags", "lang"},
    {"features", "kernels", "optimizers"},
    {"models"},
    {"scorers", "corpora"},
    {"training"},
    {"ml"},
    {"pipeline"},
    {"tokenizers"},  # a segmenting tokenizer carries a trained component's model
    {"distributed"},
    {"packaging"},  # assembling, shrinking and checking pipelines for spacy package
    {"__main__"},  # python -m spacy_adf: the command line
]
LAYER_OF = {name: i for i, layer in enumerate(LAYERS) for name in layer}

# Cython: "from X cimport a, b", "from X import a", "cimport X", "import X" (X relative or absolute)
_CY_FROM = re.compile(r"^\s*from\s+(\.*[\w.]*)\s+c?import\s+(.+)$")
_CY_IMPORT = re.compile(r"^\s*c?import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)\s*$")


def _top(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _resolve(path: Path, dots: int, module: str):
    """The package-relative target parts of an import in `path`, or None if
    it imports something outside the package."""
    if dots:
        base = list(path.relative_to(PACKAGE).with_suffix("").parts)[:-1]
        up = base[: len(base) - (dots - 1)]
        return up + (module.split(".") if module else [])
    parts = module.split(".")
    return parts[1:] if parts[0] == ROOT else None


def _logical_lines(text: str):
    """(line number, line) with parenthesised continuations joined."""
    pending, start = "", 0
    for lineno, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        if not pending:
            start = lineno
        pending += " " + code.strip() if pending else code
        if pending.count("(") <= pending.count(")") and not pending.rstrip().endswith("\\"):
            yield start, pending
            pending = ""


def _imports(path: Path, text: str = None):
    """(line, target module parts within the package, imported names) of
    every import of the package's own modules: relative and absolute, at
    module level or inside functions, and Cython's cimports (`text`: the
    source, if not the file's)."""
    text = path.read_text(encoding="utf8") if text is None else text
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(path, node.level, node.module or "")
                if target is not None:
                    yield node.lineno, target, [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    target = _resolve(path, 0, alias.name)
                    if target is not None:
                        yield node.lineno, target, []
        return
    for lineno, line in _logical_lines(text):
        m = _CY_FROM.match(line)
        if m:
            spec = m.group(1)
            dots = len(spec) - len(spec.lstrip("."))
            target = _resolve(path, dots, spec[dots:])
            if target is not None:
                names = [n.strip().split(" as ")[0] for n in m.group(2).strip().strip("()").split(",")]
                yield lineno, target, [n for n in names if n]
            continue
        m = _CY_IMPORT.match(line)
        if m:
            for item in m.group(1).split(","):
                target = _resolve(path, 0, item.strip().split(" as ")[0])
                if target is not None:
                    yield lineno, target, []


def _sources():
    return sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".pyx", ".pxd") and "build" not in p.parts)


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


def test_the_checks_see_absolute_imports_and_cimports():
    """The parser finds the forms it must judge (a check that sees nothing passes)."""
    pyx = {str(p.relative_to(PACKAGE)): list(_imports(p)) for p in _sources() if p.suffix in (".pyx", ".pxd")}
    assert any(names and "cimport" in (PACKAGE / f).read_text(encoding="utf8") for f, imps in pyx.items()
               for _, _, names in imps)
    sample = PACKAGE / "pipeline" / "tagger.py"
    found = {tuple(t) for _, t, _ in _imports(sample)}
    assert ("features", "cluster_tables") in found
    probe = ("from spacy_adf.pipeline.tagger cimport X\ncimport spacy_adf.ml.crf\n"
             "from ..training.evaluation import (a,\n    _b)\nfrom libc.math cimport exp\n")
    got = [(t, n) for _, t, n in _imports(PACKAGE / "models" / "probe.pyx", probe)]
    assert got == [(["pipeline", "tagger"], ["X"]), (["ml", "crf"], []), (["training", "evaluation"], ["a", "_b"])]


def _cycle(graph):
    """One cycle of a directed graph (node -> set of nodes), or None."""
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, stack + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_no_import_cycle_between_packages():
    graph = {}
    for path in _sources():
        here = _top(path)
        for _, target, _ in _imports(path):
            if target and target[0] != here:
                graph.setdefault(here, set()).add(target[0])
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph))}"


def test_no_import_cycle_within_benchmarks():
    """Any import counts, also one inside a function."""
    bench = REPO / "benchmarks"
    names = {p.stem for p in bench.glob("*.py")}
    graph = {}
    for path in bench.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            targets = []
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level == 1 and module:
                    targets = [module.split(".")[0]]
                elif node.level == 1 or module == "benchmarks":
                    targets = [a.name for a in node.names]
                elif module.startswith("benchmarks."):
                    targets = [module.split(".")[1]]
            elif isinstance(node, ast.Import):
                targets = [a.name.split(".")[1] for a in node.names if a.name.startswith("benchmarks.")]
            graph.setdefault(path.stem, set()).update(t for t in targets if t in names and t != path.stem)
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph))}"


# Probes of the platform, where a missing function is the answer and not a
# mistake: (file, probed name) -> why the probe stays.
PLATFORM_PROBES = {
    ("kernels/free_memory.py", "malloc_trim"): "a C library other than glibc has no malloc_trim",
    ("kernels/online.py", "sched_getaffinity"): "os.sched_getaffinity exists on some systems only",
    ("core/online.pyx", "register_at_fork"): "os.register_at_fork exists on POSIX systems only",
}
# Cython: hasattr(x, "name") and getattr(x, "name", default)
_CY_PROBE = re.compile(r"\b(?:hasattr\s*\(\s*[\w.]+\s*,\s*[\"'](\w+)[\"']"
                       r"|getattr\s*\(\s*[\w.]+\s*,\s*[\"'](\w+)[\"']\s*,)")


def _probes(path: Path, text: str = None):
    """(line, probed name or None) of every hasattr(...) and every
    getattr(obj, name, default) in `path` (`text`: the source, if not the
    file's). getattr(obj, name) without a default reads an attribute named
    at run time; it probes nothing."""
    text = path.read_text(encoding="utf8") if text is None else text
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id == "hasattr" or (node.func.id == "getattr" and len(node.args) == 3):
                name = node.args[1] if len(node.args) > 1 else None
                yield node.lineno, name.value if isinstance(name, ast.Constant) else None
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in _CY_PROBE.finditer(line.split("#", 1)[0]):
            yield lineno, m.group(1) or m.group(2)


def _package_probes(package: str):
    for path in _sources():
        if _top(path) == package:
            rel = str(path.relative_to(PACKAGE))
            for lineno, name in _probes(path):
                yield rel, lineno, name


@pytest.mark.parametrize("package", sorted(LAYER_OF))
def test_abilities_are_declared_not_probed(package):
    """What an object can do is declared (`training.contract`'s protocols,
    spaCy's TrainablePipe, SparseTrainedPipe, a class) and checked with
    isinstance, never probed with hasattr / getattr(obj, name, default);
    the platform's functions are the one exception (PLATFORM_PROBES)."""
    bad = [f"{rel}:{lineno}: {name}" for rel, lineno, name in _package_probes(package)
           if (rel, name) not in PLATFORM_PROBES]
    assert not bad, f"getattr/hasattr probes in {package}/:\n" + "\n".join(bad)


def test_platform_probes_are_still_there_and_the_finder_sees_them():
    found = {(rel, name) for package in LAYER_OF for rel, _, name in _package_probes(package)}
    assert set(PLATFORM_PROBES) <= found, f"drop from PLATFORM_PROBES: {sorted(set(PLATFORM_PROBES) - found)}"
    probe = "a = hasattr(x, 'y')\nb = getattr(x, 'z', None)\nc = getattr(x, name)\n"
    assert list(_probes(PACKAGE / "models" / "probe.py", probe)) == [(1, "y"), (2, "z")]
    assert list(_probes(PACKAGE / "core" / "probe.pyx", probe)) == [(1, "y"), (2, "z")]


def test_tests_import_no_script():
    """scripts/ are thin command lines; what tests need lives in the package
    (spacy_adf.packaging) or tests/helpers."""
    bad = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "scripts":
                bad.append(f"{path.relative_to(REPO)}:{node.lineno}")
            elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "scripts" for a in node.names):
                bad.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not bad, "tests importing scripts/:\n" + "\n".join(bad)


def _top_level_names(path: Path) -> set:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.parametrize("folder", ["scripts", "benchmarks"])
def test_script_and_benchmark_imports_resolve(folder):
    """Every name a script or benchmark imports from the project exists:
    a helper moved into the package must not leave a command line that
    fails on its first line. Package and benchmark modules are imported;
    scripts are read, not imported (tests import no script)."""
    import importlib

    bad = []
    for path in sorted((REPO / folder).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            module = node.module
            if node.level:
                module = folder + "." + module
            if module.split(".")[0] not in (ROOT, "benchmarks", "scripts"):
                continue
            names = [a.name for a in node.names if a.name != "*"]
            if module.startswith("scripts."):
                source = REPO / (module.replace(".", "/") + ".py")
                have = _top_level_names(source) if source.exists() else set()
                missing = [n for n in names if n not in have]
            else:
                loaded = importlib.import_module(module)
                missing = [n for n in names if not hasattr(loaded, n)
                           and importlib.util.find_spec(f"{module}.{n}") is None]
            bad.extend(f"{path.relative_to(REPO)}:{node.lineno}: {module}.{n}" for n in missing)
    assert not bad, "imports of names that do not exist:\n" + "\n".join(bad)
