"""Builds kattn_torch._ops (src/kattn_torch/kattn_op.cpp) with torch's BuildExtension against
libkattn_c.so, and ships a copy of that library inside the package, found through $ORIGIN.

KATTN_C_LIBRARY_DIR: the folder of libkattn_c.so (default: build/h100-torch/src of this repository).
KATTN_INCLUDE_DIR: the folder holding kattn/c_api/kattn.h (default: src/ of this repository).
"""
import os
import pathlib
import shutil

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
LIBRARY_DIR = pathlib.Path(os.environ.get("KATTN_C_LIBRARY_DIR", REPO / "build" / "h100-torch" / "src")).resolve()
INCLUDE_DIR = pathlib.Path(os.environ.get("KATTN_INCLUDE_DIR", REPO / "src")).resolve()
LIBRARY = LIBRARY_DIR / "libkattn_c.so"


class BuildWithLibrary(BuildExtension):
    """Checks the inputs before compiling, then copies libkattn_c.so beside the built ops."""

    def run(self):
        if not LIBRARY.is_file():
            raise SystemExit(f"kattn_torch: no libkattn_c.so in {LIBRARY_DIR}: build the kattn_c target "
                             "(docs/torch.md) and set KATTN_C_LIBRARY_DIR to its folder")
        if not (INCLUDE_DIR / "kattn" / "c_api" / "kattn.h").is_file():
            raise SystemExit(f"kattn_torch: no kattn/c_api/kattn.h under {INCLUDE_DIR}: set KATTN_INCLUDE_DIR")
        super().run()
        ops = pathlib.Path(self.get_ext_fullpath("kattn_torch._ops"))
        shutil.copy2(LIBRARY, ops.parent / LIBRARY.name)


setup(
    ext_modules=[CUDAExtension(
        name="kattn_torch._ops",
        sources=["src/kattn_torch/kattn_op.cpp"],
        include_dirs=[str(INCLUDE_DIR)],
        library_dirs=[str(LIBRARY_DIR)],
        libraries=["kattn_c"],
        # $ORIGIN: the package's own copy of libkattn_c.so. --exclude-libs: a toolchain that links
        # its C++ runtime statically into the ops (the H100 machine's does) would otherwise export
        # that copy, and libkattn_c.so's C++ runtime calls would bind to it (a crash inside
        # Kokkos::initialize, docs/torch.md).
        extra_link_args=["-Wl,-rpath,$ORIGIN", "-Wl,--exclude-libs,ALL"],
        py_limited_api=False)],
    cmdclass={"build_ext": BuildWithLibrary},
)
