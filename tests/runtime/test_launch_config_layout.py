"""driver's ctypes mirrors of CUlaunchConfig and CUlaunchAttribute (the programmatic launch,
runtime/driver.programmatic_config) against cuda.h itself: sizes, field offsets and the
attribute's id, printed by a C program built with the host compiler (no GPU, no linking)."""
import ctypes
import glob
import shutil
import subprocess

import pytest

from regtile.runtime import driver

CC = shutil.which("gcc") or shutil.which("cc")
HEADERS = sorted(glob.glob("/usr/local/cuda*/include/cuda.h")) + sorted(glob.glob("/usr/include/cuda.h"))

PROGRAM = r"""
#include <stdio.h>
#include <stddef.h>
#include <cuda.h>
int main(void) {
    printf("%zu %zu %zu %zu %zu %zu %zu %d\n", sizeof(CUlaunchAttribute), offsetof(CUlaunchAttribute, value),
           sizeof(CUlaunchConfig), offsetof(CUlaunchConfig, sharedMemBytes), offsetof(CUlaunchConfig, hStream),
           offsetof(CUlaunchConfig, attrs), offsetof(CUlaunchConfig, numAttrs),
           (int)CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
    return 0;
}
"""


@pytest.mark.skipif(CC is None or not HEADERS, reason="needs a C compiler and the CUDA toolkit's cuda.h")
def test_ctypes_structs_match_cuda_h(tmp_path):
    src = tmp_path / "layout.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "layout"
    include = HEADERS[-1].rsplit("/", 1)[0]
    subprocess.run([CC, "-I", include, str(src), "-o", str(exe)], check=True, capture_output=True)
    got = [int(v) for v in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()]
    A, C = driver._LaunchAttribute, driver._LaunchConfig
    assert got == [ctypes.sizeof(A), A.value.offset, ctypes.sizeof(C), C.sharedMemBytes.offset, C.hStream.offset,
                   C.attrs.offset, C.numAttrs.offset, driver._CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION]
