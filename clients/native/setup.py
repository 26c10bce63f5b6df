"""Build glue: compile ``src/agenthooks-client.c`` into the package, and tag the wheel for this
platform (the executable depends on the C library and the CPU, not on the Python version)."""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

HERE = Path(__file__).parent
SOURCE = HERE / "src" / "agenthooks-client.c"
NAME = "agenthooks-client"


class BuildWithClient(build_py):
    """Copy the package, then compile the client next to it (the C compiler setuptools uses for
    extensions, with ``CC``/``CFLAGS`` honoured)."""

    def run(self) -> None:
        super().run()
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler

        target = Path(self.build_lib) / "agent_hooks_client"
        target.mkdir(parents=True, exist_ok=True)
        cc = new_compiler()
        customize_compiler(cc)
        tmp = Path(self.build_lib).parent / "native-obj"
        objects = cc.compile([str(SOURCE)], output_dir=str(tmp), extra_postargs=["-O2", "-std=gnu11"])
        cc.link_executable(objects, NAME, output_dir=str(target))
        os.chmod(target / NAME, 0o755)


class PlatformWheel(bdist_wheel):
    def finalize_options(self) -> None:
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self) -> tuple[str, str, str]:
        _, _, plat = super().get_tag()
        return "py3", "none", plat


setup(cmdclass={"build_py": BuildWithClient, "bdist_wheel": PlatformWheel})
