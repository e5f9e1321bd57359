"""The one compiled part: ristretto255 multi-scalar multiplication for verifiers (fairdeal/protocols/_msm.c) over
libdecaf (Debian: libdecaf-dev, which `make` installs). Metadata lives in pyproject.toml. The extension is optional:
without libdecaf, fairdeal installs and verifies with libsodium alone, only slower."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "fairdeal.protocols._msm",
            sources=["fairdeal/protocols/_msm.c"],
            include_dirs=["/usr/include/decaf"],
            libraries=["decaf"],
            extra_compile_args=["-O2", "-std=c11"],
            optional=True,
        )
    ]
)
