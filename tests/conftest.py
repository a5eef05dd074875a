"""Fixtures shared by the test modules."""
import pytest


@pytest.fixture(scope="session")
def hopper_gpu():
    """Skip unless fastswz's GPU runtime sees a Hopper GPU (the cuda extra installed, a driver, an
    sm_90 device): what every test of tests/test_gpu_*.py needs first."""
    from fastswz.cuda import CudaUnavailableError

    try:
        from fastswz.cuda import device_info

        device_info()
    except (CudaUnavailableError, ImportError) as e:
        pytest.skip(f"no Hopper GPU / cuda extra: {e}")
