"""Without Ray: the core package imports, and spacy_adf.distributed says
what to install. Ray is blocked in a subprocess (sys.modules["ray"] = None)."""
import subprocess
import sys

from .conftest import REPO

SCRIPT = r"""
import sys, pkgutil, importlib
sys.modules["ray"] = None
import spacy_adf
names = [m.name for m in pkgutil.walk_packages(spacy_adf.__path__, "spacy_adf.")
         if not m.name.startswith("spacy_adf.distributed")]
for name in names:
    importlib.import_module(name)
assert "ray" not in {k for k, v in sys.modules.items() if v is not None}
try:
    import spacy_adf.distributed
except ImportError as e:
    print("ERROR:", e)
print("IMPORTED", len(names))
"""


def test_core_imports_without_ray_and_distributed_names_the_extra():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert 'ERROR: spacy_adf.distributed needs Ray, which is not installed: pip install "spacy-adf[ray]"' in out.stdout
    n = int(out.stdout.split("IMPORTED")[1])
    assert n > 50
