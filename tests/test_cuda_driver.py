"""The C launcher (fastswz.cuda._driver) without a GPU: the cuda.h values it hard-codes agree with
NVIDIA's cuda.bindings, and a machine without the driver library gets the runtime's one-line
error (the launch itself is tested on the GPU: tests/test_gpu_callpath.py)."""

from __future__ import annotations

import ctypes.util
import os

import pytest

_driver = pytest.importorskip("fastswz.cuda._driver", reason="the launcher is built on POSIX only")


def _bindings():
    try:
        from cuda.bindings import driver
    except ImportError as e:
        pytest.skip(f"cuda.bindings (the 'cuda' extra) is not installed: {e}")
    return driver


def test_enum_values_are_cuda_h_s():
    drv = _bindings()
    promo = drv.CUtensorMapL2promotion
    assert _driver.ENUMS == {
        "CU_TENSOR_MAP_L2_PROMOTION_NONE": promo.CU_TENSOR_MAP_L2_PROMOTION_NONE.value,
        "CU_TENSOR_MAP_L2_PROMOTION_L2_128B": promo.CU_TENSOR_MAP_L2_PROMOTION_L2_128B.value,
        "CU_TENSOR_MAP_L2_PROMOTION_L2_256B": promo.CU_TENSOR_MAP_L2_PROMOTION_L2_256B.value,
        "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION": drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION.value,
        "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION":
            drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION.value,
        "CUDA_ERROR_NOT_INITIALIZED": drv.CUresult.CUDA_ERROR_NOT_INITIALIZED.value,
        "CU_MEMORYTYPE_DEVICE": drv.CUmemorytype.CU_MEMORYTYPE_DEVICE.value,
    }
    t = drv.CUtensorMapDataType
    want = {"e4m3": t.CU_TENSOR_MAP_DATA_TYPE_UINT8, "e5m2": t.CU_TENSOR_MAP_DATA_TYPE_UINT8,
            "f16": t.CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "f32": t.CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            "tf32": t.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, "bf16": t.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16}
    assert _driver.TMA_DATA_TYPE == {k: v.value for k, v in want.items()}


def test_l2_promotion_follows_the_row_pitch():
    """256-byte L2 promotion for rows a multiple of the 128-byte line, 128-byte promotion for rows
    off it (bf16 K = 1584: 3168-byte rows; e4m3 K = 25616), as the H200 runs measured; the
    override for A/B runs is read once, at import, and a bad value is refused by name."""
    import subprocess
    import sys

    e = _driver.ENUMS
    big, small = e["CU_TENSOR_MAP_L2_PROMOTION_L2_256B"], e["CU_TENSOR_MAP_L2_PROMOTION_L2_128B"]
    assert _driver.L2_LINE == 128
    if os.environ.get("FASTSWZ_L2_PROMOTION", "auto").strip().lower() == "auto":   # (not under an A/B override)
        assert [_driver.l2_promotion(p) for p in (128, 8192, 16384 * 2, 3168, 25616, 16, 13856)] == [
            big, big, big, small, small, small, small]
    code = "from fastswz.cuda import _driver; print(_driver.l2_promotion(3168), _driver.l2_promotion(8192))"
    for value, want in (("256", f"{big} {big}"), ("none", "0 0"), ("auto", f"{small} {big}")):
        env = dict(os.environ, FASTSWZ_L2_PROMOTION=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.stdout.split() == want.split(), out.stderr
    env = dict(os.environ, FASTSWZ_L2_PROMOTION="512")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0 and "FASTSWZ_L2_PROMOTION='512' must be auto, none, 128 or 256" in out.stderr


def test_swizzle_codes_are_cuda_h_s():
    drv = _bindings()
    from fastswz.cuda.runtime import _SWIZZLE_CODE

    s = drv.CUtensorMapSwizzle
    assert _SWIZZLE_CODE == {"none": s.CU_TENSOR_MAP_SWIZZLE_NONE.value, "32B": s.CU_TENSOR_MAP_SWIZZLE_32B.value,
                             "64B": s.CU_TENSOR_MAP_SWIZZLE_64B.value, "128B": s.CU_TENSOR_MAP_SWIZZLE_128B.value}


def test_no_driver_library_is_one_clear_error():
    if ctypes.util.find_library("cuda"):
        pytest.skip("this machine has the CUDA driver library")
    from fastswz.cuda import CudaUnavailableError

    with pytest.raises(CudaUnavailableError, match=r"^no NVIDIA driver here \(.+\): the GEMM kernels need a Hopper GPU"):
        _driver.load()
    with pytest.raises(CudaUnavailableError):
        _driver.current_context()


def test_memcpy2d_fields_sit_where_cuda_bindings_puts_them():
    # copy2d fills CUDA_MEMCPY2D by hand (no CUDA at build time): each field it sets must sit at
    # the offset of the struct cuda.bindings builds from cuda.h, which is read back byte by byte.
    import ctypes

    drv = _bindings()
    offsets = dict(_driver.MEMCPY2D_OFFSETS)
    assert offsets.pop("sizeof") == 128
    values = {"srcMemoryType": 2, "srcDevice": 0x1122334455667788, "srcPitch": 0x1234567,
              "dstMemoryType": 3, "dstDevice": 0x0A0B0C0D0E0F1011, "dstPitch": 0x7654321,
              "WidthInBytes": 0x3456789, "Height": 0x456789A}
    assert set(offsets) == set(values)
    cp = drv.CUDA_MEMCPY2D()
    for name, v in values.items():
        setattr(cp, name, drv.CUmemorytype(v) if name.endswith("MemoryType") else v)
    raw = ctypes.string_at(cp.getPtr(), 128)
    for name, v in values.items():
        width = 4 if name.endswith("MemoryType") else 8
        assert int.from_bytes(raw[offsets[name]:offsets[name] + width], "little") == v, name
    assert _driver.ENUMS["CU_MEMORYTYPE_DEVICE"] == drv.CUmemorytype.CU_MEMORYTYPE_DEVICE.value
