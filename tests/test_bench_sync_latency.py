"""benchmarks/sync_latency.py: the driver structures it hands cuLaunchKernelEx have the
layout of cuda.h's (CUDA 12-13: checked there with offsetof), and its launch configurations
carry the attributes asked for. The latencies themselves are measured on a GPU machine."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import sync_latency as sl  # noqa: E402


def test_layouts_match_cuda_h() -> None:
    # sizeof / offsetof in cuda.h of CUDA 13.0 (x86-64): CUlaunchAttribute 72, its value at
    # 8, CUlaunchAttributeValue 64; CUlaunchConfig 56, hStream at 32, attrs 40, numAttrs 48
    assert ctypes.sizeof(sl._Attr) == 72 and sl._Attr.value.offset == 8
    assert ctypes.sizeof(sl._AttrValue) == 64 and ctypes.alignment(sl._AttrValue) == 8
    assert ctypes.sizeof(sl._Config) == 56
    assert (sl._Config.stream.offset, sl._Config.attrs.offset,
            sl._Config.nattrs.offset) == (32, 40, 48)


def test_configs_carry_the_attributes() -> None:
    cfg, _keep = sl.Driver.config(264, 8, True)
    assert list(cfg.grid) == [264, 1, 1] and list(cfg.block) == [sl._BLOCK, 1, 1]
    assert cfg.nattrs == 2
    assert (cfg.attrs[0].id, cfg.attrs[0].value.cooperative) == (sl._ATTR_COOPERATIVE, 1)
    assert cfg.attrs[1].id == sl._ATTR_CLUSTER and list(cfg.attrs[1].value.cluster) == [8, 1, 1]
    plain, _keep2 = sl.Driver.config(132, 1, False)
    assert plain.nattrs == 0 and not plain.attrs
