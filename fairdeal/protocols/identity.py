"""Long-term Ed25519 identity keys: who a player (or the service) is across tables and evenings.

The key file is canonical JSON ``{"format":"fairdeal-identity-key","version":1,"name":..,"private":hex,
"public":hex}``, written atomically with mode 0600 and never over an existing file; a file others can read is
refused on load. Nothing here prints or returns the private key.
"""

from __future__ import annotations

import ctypes
import os
import stat
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat
from rbcl import _sodium as libsodium

from fairdeal.errors import CanonicalError, OutputError, ProtocolError
from fairdeal.protocols.canonical import decode, encode

KEY_FORMAT = "fairdeal-identity-key"
KEY_VERSION = 1
KEY_BYTES = 32
SIGNATURE_BYTES = 64
MAX_KEY_FILE = 4096


def _hex_bytes(text: object, length: int, what: str) -> bytes:
    if not isinstance(text, str) or len(text) != 2 * length or text != text.lower():
        raise ProtocolError(f"{what} must be {2 * length} lowercase hex digits")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise ProtocolError(f"{what} is not hex") from None


@dataclass(frozen=True)
class PublicKey:
    """An Ed25519 public key (32 bytes); ``verify`` never raises on a bad signature, it answers False."""

    raw: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.raw, bytes) or len(self.raw) != KEY_BYTES:
            raise ProtocolError(f"a public key is {KEY_BYTES} bytes")
        try:
            Ed25519PublicKey.from_public_bytes(self.raw)
        except ValueError:
            raise ProtocolError("not an Ed25519 public key") from None

    @property
    def hex(self) -> str:
        return self.raw.hex()

    @classmethod
    def from_hex(cls, text: object, what: str = "public key") -> PublicKey:
        return cls(_hex_bytes(text, KEY_BYTES, what))

    def verify(self, message: bytes, signature: bytes, repeated: bool = False) -> bool:
        """``repeated``: a statement checked again in every document that carries it (a roster, a session's
        opening), remembered; the rest are checked once in a run, where remembering each would cost 4% of a check."""
        if not isinstance(signature, bytes) or len(signature) != SIGNATURE_BYTES:
            return False
        return (_remembered if repeated else _verified)(self, message, signature)


# libsodium's own detached verification, through the library rbcl bundles whole (pynacl exposes only
# crypto_sign_open, whose copying and checks cost 4 of its 46 µs: a v4 hand carries a dozen signatures).
_DETACHED = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p)
_verify_detached = _DETACHED(("crypto_sign_ed25519_verify_detached", libsodium))


def _verified(key: PublicKey, message: bytes, signature: bytes) -> bool:
    # libsodium verifies in about 60% of OpenSSL's time here and accepts no signature OpenSSL refuses: both check
    # s < L and compare R cofactorless, and libsodium also refuses non-canonical and small-order keys and R
    # (tests/test_identity_verify.py holds the two to that).
    return bool(_verify_detached(signature, message, len(message), key.raw) == 0)


@lru_cache(maxsize=4096)
def _remembered(key: PublicKey, message: bytes, signature: bytes) -> bool:
    return _verified(key, message, signature)


class IdentityKey:
    """A private identity key; ``name`` is the holder's label (the roster's name, if they choose)."""

    def __init__(self, private: Ed25519PrivateKey, name: str = ""):
        self._private = private
        self.name = name
        raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.public = PublicKey(raw)

    def __repr__(self) -> str:
        return f"IdentityKey(name={self.name!r}, public={self.public.hex})"

    @classmethod
    def generate(cls, name: str = "") -> IdentityKey:
        return cls(Ed25519PrivateKey.generate(), name)

    @classmethod
    def from_seed(cls, seed: bytes, name: str = "") -> IdentityKey:
        """A key from 32 secret bytes (reproducible keys for tests and ``deal --seed``)."""
        if len(seed) != KEY_BYTES:
            raise ProtocolError(f"a key seed is {KEY_BYTES} bytes")
        return cls(Ed25519PrivateKey.from_private_bytes(seed), name)

    def sign(self, message: bytes) -> bytes:
        return self._private.sign(message)

    def save(self, path: str | Path) -> None:
        """Write the key file atomically with mode 0600; refuses to replace an existing file."""
        path = Path(path)
        if not path.parent.is_dir():
            raise OutputError(f"{path}: the folder {path.parent} does not exist")
        private = self._private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        data = encode(
            {
                "format": KEY_FORMAT,
                "version": KEY_VERSION,
                "name": self.name,
                "private": private.hex(),
                "public": self.public.hex,
            }
        )
        try:
            handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        except OSError as exc:
            raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
        try:
            os.fchmod(handle, 0o600)
            os.write(handle, data)
            os.fsync(handle)
            os.close(handle)
            os.link(temporary, path)  # link, unlike rename, fails if the target exists: no key is ever replaced
        except FileExistsError:
            raise OutputError(f"{path}: already exists (a key file is never replaced)") from None
        except OSError as exc:
            raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
        finally:
            os.unlink(temporary)

    @classmethod
    def load(cls, path: str | Path) -> IdentityKey:
        path = Path(path)
        try:
            with open(path, "rb") as handle:
                mode = os.fstat(handle.fileno()).st_mode
                data = handle.read(MAX_KEY_FILE + 1)
        except FileNotFoundError:
            raise ProtocolError(f"{path}: no such key file") from None
        except IsADirectoryError:
            raise ProtocolError(f"{path}: is a folder, not a key file") from None
        except OSError as exc:
            raise ProtocolError(f"{path}: cannot read: {exc.strerror or exc}") from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ProtocolError(f"{path}: the key file is open to other users (chmod 600 {path})")
        return cls._parse(path, data)

    @classmethod
    def _parse(cls, path: Path, data: bytes) -> IdentityKey:
        if len(data) > MAX_KEY_FILE:
            raise ProtocolError(f"{path}: not a key file (too long)")
        try:
            doc = decode(data)
        except CanonicalError as exc:
            raise ProtocolError(f"{path}: not a key file: {exc}") from None
        fields = {"format", "version", "name", "private", "public"}
        if not isinstance(doc, dict) or set(doc) != fields or doc["format"] != KEY_FORMAT:
            raise ProtocolError(f"{path}: not a {KEY_FORMAT} file")
        if doc["version"] != KEY_VERSION or not isinstance(doc["name"], str):
            raise ProtocolError(f"{path}: $.version or $.name: not a version {KEY_VERSION} key file")
        key = cls.from_seed(_hex_bytes(doc["private"], KEY_BYTES, f"{path}: $.private"), doc["name"])
        if key.public.hex != doc["public"]:
            raise ProtocolError(f"{path}: $.public is not the public key of $.private")
        return key
