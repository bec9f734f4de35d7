"""pkg:PACKAGE/PATH names a file inside an installed package (a lexicon a
package ships): every reader that opens files through check_file takes it."""
import pytest

from spacy_adf.models.char_segmenter import read_user_dict
from spacy_adf.serialization.text_lines import check_file, package_file


def test_package_files_resolve_inside_the_package():
    import spacy_adf

    path = package_file("pkg:spacy_adf/about.py")
    assert path.parent.resolve() == __import__("pathlib").Path(spacy_adf.__file__).parent.resolve()
    assert check_file("pkg:spacy_adf/about.py", "test") == path
    assert read_user_dict("pkg:spacy_adf/about.py")  # read as any other file


@pytest.mark.parametrize("spec, message", [
    ("pkg:spacy_adf", "pkg:PACKAGE/PATH"),
    ("pkg:/dict.txt", "pkg:PACKAGE/PATH"),
    ("pkg:no_such_package_xyz/dict.txt", "not installed"),
])
def test_bad_package_files_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        check_file(spec, "user dictionary")


def test_a_missing_file_in_a_package_names_the_path():
    with pytest.raises(ValueError, match="does not exist"):
        check_file("pkg:spacy_adf/no_such_file.txt", "user dictionary")
