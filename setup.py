"""Build the Cython core. All compiler directives live here, in one place (STYLE.md 7)."""
import os
import sys

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
FLAGS = ["-O3"] + (["-O0", "-g"] if DEBUG else [])
exts = [Extension("fastswz._kernels", ["src/fastswz/_kernels.pyx"], include_dirs=["src/fastswz"],
                  extra_compile_args=FLAGS)]
if os.name == "posix":  # the GPU runtime's launcher: dlopen()s the CUDA driver, no CUDA to build
    exts.append(Extension("fastswz.cuda._driver", ["src/fastswz/cuda/_driver.pyx"],
                          extra_compile_args=FLAGS, libraries=["dl"] if sys.platform.startswith("linux") else []))
setup(ext_modules=cythonize(exts, compiler_directives=DIRECTIVES))
