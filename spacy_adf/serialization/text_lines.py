"""UTF-8 text files as every corpus and word-list reader of the package reads
them: BOM dropped, CRLF tolerated, clear errors (docs/corpora.md, "Your own files")."""
from pathlib import Path
from typing import Iterator, NoReturn, Tuple, Union

PathLike = Union[str, Path]
PATHS_HINT = "; check --paths.train/--paths.dev"


PACKAGE_PREFIX = "pkg:"


def package_file(spec: str) -> Path:
    """The file of ``pkg:PACKAGE/PATH`` inside an installed package (a
    lexicon that a package ships, e.g. ``pkg:jieba/dict.txt``)."""
    import importlib.util

    package, _, inner = spec[len(PACKAGE_PREFIX):].partition("/")
    if not package or not inner:
        raise ValueError(f"{spec!r}: a package file is named pkg:PACKAGE/PATH, e.g. pkg:jieba/dict.txt")
    found = importlib.util.find_spec(package)
    if found is None or not found.submodule_search_locations:
        raise ValueError(f"{spec!r}: the package {package!r} is not installed (pip install {package})")
    return Path(list(found.submodule_search_locations)[0]) / inner


def resolve_path(path: PathLike) -> Path:
    """``path`` as a Path; ``pkg:PACKAGE/PATH`` names a file or folder in an
    installed package (`package_file`)."""
    if isinstance(path, str) and path.startswith(PACKAGE_PREFIX):
        return package_file(path)
    return Path(path)


def check_file(path: PathLike, what: str, hint: str = PATHS_HINT) -> Path:
    """``path`` as a Path (`resolve_path`); a ValueError if it does not
    exist or is no file."""
    path = resolve_path(path)
    if not path.exists():
        raise ValueError(f"{what} file {str(path)!r} does not exist{hint}")
    if not path.is_file():
        raise ValueError(f"{what} path {str(path)!r} is not a file")
    return path


def read_lines(path: Path) -> Iterator[Tuple[int, str]]:
    """``(line number, line without its line break)``; a BOM is dropped.

    Input that is not UTF-8 raises a ValueError naming the first bad line.
    """
    try:
        with path.open(encoding="utf-8-sig") as file_:
            for lineno, line in enumerate(file_, start=1):
                yield lineno, line.rstrip("\r\n")
    except UnicodeDecodeError:
        _raise_first_bad_line(path)


def read_text(path: Path) -> str:
    """The whole text of a UTF-8 file as it is (a BOM kept: standoff offsets
    count it); bytes that are not UTF-8 raise a ValueError naming the line."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        _raise_first_bad_line(path)


def _raise_first_bad_line(path: Path) -> NoReturn:
    with path.open("rb") as file_:
        for lineno, raw in enumerate(file_, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise ValueError(
                    f"{path}, line {lineno}: not valid UTF-8 ({err.reason} at byte {err.start} "
                    "of the line); convert the file to UTF-8 first"
                ) from None
    raise ValueError(f"{path}: not valid UTF-8; convert the file to UTF-8 first")
