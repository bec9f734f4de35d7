"""spacy-adf: ADF-trained CRF components and kernel-expanded SVMs for spaCy.

Importing the package registers nothing by side effect beyond what the entry
points in setup.cfg already make resolvable; import the submodules you need.
"""
from pathlib import Path

from .about import __version__  # noqa: F401


def _check_compiled() -> None:
    """Python started in the repository root imports the source tree (the
    current folder comes first on sys.path), not the installed package; after
    a non-editable `pip install .` that tree has no compiled extensions, and
    the first Cython import would fail with a bare ModuleNotFoundError."""
    here = Path(__file__).resolve().parent
    if not (here.parent / "setup.py").exists():
        return  # an installed package, not a source tree
    if any(here.joinpath("core").glob("params.*.so")) or any(here.joinpath("core").glob("params*.pyd")):
        return
    raise ImportError(
        f"spacy_adf is being imported from its source tree ({here}), whose Cython extensions "
        "are not compiled. Either install it in place with `pip install -e .` (compiles them "
        "into this tree), or run Python from another folder so that the installed spacy-adf "
        "is imported."
    )


_check_compiled()
