"""Build the Cython extensions; metadata and entry points live in setup.cfg.

The build runs on every core (Cython's translation and the C compiler both),
and says what it does: pip shows the lines with `pip install -v`, and they
also go to the terminal when there is one (pip hides a build's output).
"""
import os
import sys
import time

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

JOBS = max(os.cpu_count() or 1, 1)

MODULES = [
    "spacy_adf.core.params",
    "spacy_adf.core.crf",
    "spacy_adf.core.adf",
    "spacy_adf.core.online",
    "spacy_adf.core.maxent",
    "spacy_adf.features.extract",
    "spacy_adf.features.chars",
    "spacy_adf.features.bunsetsu_fast",
    "spacy_adf.features.boundary",
    "spacy_adf.kernels.mining",
    "spacy_adf.kernels.classifiers",
    "spacy_adf.kernels.datrie",
    "spacy_adf.kernels.expansion",
    "spacy_adf.kernels.cascade",
    "spacy_adf.kernels.tournament",
    "spacy_adf.kernels.pairwise",
    "spacy_adf.kernels.subset_learner",
    "spacy_adf.features.window_ids",
    "spacy_adf.kernels.left_to_right",
    "spacy_adf.models.boundary_decode",
    "spacy_adf.models.crf_segment",
]
# modules that use the C++ standard library (vector, unordered_map)
CPP_MODULES = {"spacy_adf.features.bunsetsu_fast"}

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
        language="c++" if name in CPP_MODULES else None,
    )


def progress(message: str) -> None:
    line = f"spacy-adf build: {message}\n"
    sys.stderr.write(line)
    try:  # pip captures stdout/stderr of the build; the terminal still sees this
        with open("/dev/tty", "w") as tty:
            tty.write(line)
    except OSError:
        pass


class ParallelBuildExt(build_ext):
    """Compiles the C extensions in parallel, with a line per module."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = JOBS

    def run(self):
        self._started = time.perf_counter()
        progress(f"compiling {len(self.extensions)} C extensions with {self.parallel} jobs "
                 "(about 1.5 minutes on 2 cores)")
        super().run()
        progress(f"done in {time.perf_counter() - self._started:.0f} s")

    def build_extension(self, ext):
        super().build_extension(ext)
        progress(f"built {ext.name} ({time.perf_counter() - self._started:.0f} s)")


progress(f"translating {len(MODULES)} Cython modules to C with {JOBS} jobs")
setup(
    cmdclass={"build_ext": ParallelBuildExt},
    ext_modules=cythonize(
        [make_extension(name) for name in MODULES],
        language_level=3,
        nthreads=JOBS,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
)
