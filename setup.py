"""The compiled parts. The double-dummy solver (fairdeal/solver/_dds.c) and the bulk audit's kernels
(fairdeal/audit/_kernels.c) need only a C compiler and are required: the bots and hand review use the solver, every
audit the kernels. Ristretto255 multi-scalar multiplication for verifiers (fairdeal/protocols/_msm.c) needs libdecaf
(Debian: libdecaf-dev, which `make` installs) and is optional: without it, fairdeal installs and verifies with
libsodium alone, only slower. Metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "fairdeal.solver._dds",
            sources=["fairdeal/solver/_dds.c"],
            extra_compile_args=["-O3", "-std=c11"],
        ),
        Extension(
            "fairdeal.audit._kernels",
            sources=["fairdeal/audit/_kernels.c"],
            extra_compile_args=["-O3", "-std=c11"],
        ),
        Extension(
            "fairdeal.protocols._msm",
            sources=["fairdeal/protocols/_msm.c"],
            depends=["fairdeal/protocols/msm_buckets.h"],
            include_dirs=["/usr/include/decaf"],
            libraries=["decaf"],
            extra_compile_args=["-O2", "-std=c11"],
            optional=True,
        ),
    ]
)
