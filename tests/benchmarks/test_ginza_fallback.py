"""benchmarks.ginza without spacy_adf (GiNZA's own environment): it converts
GiNZA's UD trees with the very function the CoNLL-U reader applies to UD gold,
loaded from its file, and that file needs nothing outside the standard
library."""
import ast
import sys

from benchmarks import ginza
from spacy_adf.corpora.bunsetsu_conllu import ud_to_bunsetsu_heads

CASES = [
    ([4, 1, 1, 0], [0, 1, 2, 3]),  # two leftward conj arcs to bunsetsu 0
    ([0, 1], [0, 1]),
    ([2, 0, 1], [0, 1, 1]),
    ([4, 3, 4, 0], [0, 0, 1, 2]),
    ([2, 0, 2, 2, 4], [0, 1, 2, 2, 3]),
]


def test_the_fallback_is_the_readers_function():
    fallback = ginza.ud_to_bunsetsu_heads_from_file()
    assert fallback.__module__ == "spacy_adf_ud_heads"
    for word_heads, bunsetsu_of in CASES:
        assert fallback(word_heads, bunsetsu_of) == ud_to_bunsetsu_heads(word_heads, bunsetsu_of)


def test_the_loaded_file_imports_the_standard_library_only():
    names = set()
    for node in ast.walk(ast.parse(ginza.UD_HEADS_FILE.read_text(encoding="utf8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import would need the spacy_adf package"
            names.add(node.module.split(".")[0])
    assert names and names <= set(sys.stdlib_module_names)
