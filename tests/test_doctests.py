"""Run the doctests of every public module and the README's Python tour, so docs stay true."""

import doctest
import importlib
import re
from pathlib import Path

import pytest

MODULES = [  # one a line: every public module
    "fastswz.modes",
    "fastswz.dtypes",
    "fastswz.rules",
    "fastswz.tile",
    "fastswz.descriptor",
    "fastswz.bulk",
    "fastswz.int_tuple",
    "fastswz.layout",
    "fastswz.swizzle",
    "fastswz.algebra",
    "fastswz.notation",
    "fastswz.reference",
    "fastswz.errors",
    "fastswz.blockscaled",
    "fastswz.draw",
    "fastswz.doctor",
    "fastswz.banks",
    "fastswz.linear",
    "fastswz.gluon",
    "fastswz.cute_dsl",
    "fastswz.plan",
    "fastswz.tune",
    "fastswz.calibrate",
    "fastswz.corpus",
    "fastswz.emit",
    "fastswz.tv_layout",
    "fastswz.cuda",
    "fastswz.cuda.codegen",
    "fastswz.cuda.reference_gemm",
    "fastswz.cuda.search",
    "fastswz.cuda.tuned",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_public_names_have_doctests():
    import fastswz

    missing = []
    for name in ["OperandTile", "SwizzleMode", "SmemDescriptorSM90", "SmemDescriptorSM100",
                 "InstrDescriptorSM100", "InstrDescriptorBlockScaled", "decode", "evaluate", "swizzle_offsets", "tile_addresses",
                 "tile_coords", "tile_descriptors", "pack_smem_descriptors", "unpack_smem_descriptors",
                 "Layout", "Swizzle", "ComposedLayout", "parse", "dtype",
                 "draw_tile", "draw_layout", "show_tile", "show_layout",
                 "check_descriptors", "consistent_tiles",
                 "LinearLayout", "to_linear_layout", "from_linear_layout", "linear_evaluate"]:
        doc = getattr(fastswz, name).__doc__ or ""
        if ">>>" not in doc:
            missing.append(name)
    assert not missing


def test_readme_tour():
    readme = Path(__file__).resolve().parents[1] / "README.md"
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(), re.S)
    assert blocks, "README has no Python tour"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for i, text in enumerate(blocks):
        runner.run(parser.get_doctest(text, {}, f"README[{i}]", "README.md", 0))
    assert runner.failures == 0


def test_readme_cli_transcript(capsys):
    """Every ``$ fastswz ...`` transcript in the README prints exactly what the CLI prints."""
    import shlex

    from fastswz.cli import main

    readme = Path(__file__).resolve().parents[1] / "README.md"
    blocks = re.findall(r"```\n\$ (fastswz [^\n]*)\n(.*?)```", readme.read_text(), re.S)
    assert blocks, "README has no CLI transcript"
    for command, expected in blocks:
        assert main(shlex.split(command)[1:]) == 0
        assert capsys.readouterr().out == expected
