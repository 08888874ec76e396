"""Build the Cython kernels in ``ext/`` into extension modules of the ``pricing`` package.

Sources live in ``ext/pricing/`` (mirroring the package they land in) because Cython resolves
``from pricing._payout cimport ...`` by the module's dotted name: ``ext/pricing/_payout.pxd``.
Every ``ext/pricing/*.pyx`` becomes ``pricing.<name>``; adding a kernel needs no edit here.
"""

import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

EXT_DIR = Path("ext")
#: Kernels translated and compiled side by side, one per core: a fresh clone's build halves.
JOBS = os.cpu_count() or 1

extensions = [
    Extension(
        f"pricing.{source.stem}",
        [str(source)],
        extra_compile_args=["-O2"],
    )
    for source in sorted((EXT_DIR / "pricing").glob("*.pyx"))
]

setup(
    ext_modules=cythonize(
        extensions,
        nthreads=JOBS,
        include_path=[str(EXT_DIR)],
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "initializedcheck": False,
            "embedsignature": True,
        },
    ),
    options={"build_ext": {"parallel": JOBS}},
)
