"""Build the Cython core. All compiler directives live here, in one place (STYLE.md 7)."""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("FASTSWZ_DEBUG_CYTHON") == "1"
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
    "freethreading_compatible": True,
}
ext = Extension("fastswz._kernels", ["src/fastswz/_kernels.pyx"], include_dirs=["src/fastswz"],
                extra_compile_args=["-O3"] + (["-O0", "-g"] if DEBUG else []))
setup(ext_modules=cythonize([ext], compiler_directives=DIRECTIVES))
