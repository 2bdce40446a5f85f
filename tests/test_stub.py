"""The hand-written stub `ssdtwin/_core.pyi` must match the native module it describes."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import ssdtwin
from ssdtwin import _core


def stub_functions() -> dict[str, list[str]]:
    stub = ast.parse((Path(ssdtwin.__file__).parent / "_core.pyi").read_text())
    return {
        node.name: [argument.arg for argument in node.args.args]
        for node in stub.body
        if isinstance(node, ast.FunctionDef)
    }


def test_stub_functions_match_the_native_module():
    native = {
        name: list(inspect.signature(value).parameters)
        for name, value in vars(_core).items()
        if callable(value) and not isinstance(value, type) and not name.startswith("_")
    }
    assert stub_functions() == native


def test_stub_declares_the_exception_and_version():
    stub = (Path(ssdtwin.__file__).parent / "_core.pyi").read_text()
    assert "class ConfigError(ValueError):" in stub
    assert issubclass(_core.ConfigError, ValueError)
    assert "__version__: str" in stub
    assert isinstance(_core.__version__, str)
