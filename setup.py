"""Build the Cython extensions; metadata and entry points live in setup.cfg."""
import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

MODULES = [
    "spacy_adf.core.params",
    "spacy_adf.core.crf",
    "spacy_adf.core.adf",
    "spacy_adf.core.online",
    "spacy_adf.core.maxent",
    "spacy_adf.features.extract",
    "spacy_adf.features.chars",
    "spacy_adf.kernels.mining",
    "spacy_adf.kernels.classifiers",
    "spacy_adf.kernels.datrie",
    "spacy_adf.kernels.expansion",
]

COMPILE_ARGS = ["-O3", "-Wno-unused-function", "-Wno-unreachable-code"]
if sys.platform == "win32":  # pragma: no cover
    COMPILE_ARGS = ["/O2"]


def make_extension(name):
    return Extension(
        name,
        [name.replace(".", os.sep) + ".pyx"],
        include_dirs=[numpy.get_include()],
        extra_compile_args=COMPILE_ARGS,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )


setup(
    ext_modules=cythonize(
        [make_extension(name) for name in MODULES],
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
)
