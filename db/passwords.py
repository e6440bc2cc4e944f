"""Password hashing with the standard library's scrypt (no extra dependency)."""
from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

# Interactive-login parameters (RFC 7914 suggests N=2**14, r=8, p=1): ~16 MB, tens of ms.
_N, _R, _P = 2**14, 8, 1


def hash_password(password: str) -> str:
    if not password:
        raise ValueError("the password is empty")
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
    return f"scrypt${_N}${_R}${_P}${b64(salt)}${b64(digest)}"


def verify_password(password: str, stored: str | None) -> bool:
    if not stored or not password:
        return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        want = base64.b64decode(digest)
        got = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r),
                             p=int(p), dklen=len(want))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, want)


@functools.cache
def _dummy_hash() -> str:
    return hash_password(secrets.token_urlsafe(16))


def verify_nobody(password: str) -> bool:
    """Spend the time a real check takes, for a name with no password (an unknown user, an OAuth
    account): the login answers as fast for "no such user" as for "wrong password", so timing
    does not tell which names exist. Always False."""
    verify_password(password or "-", _dummy_hash())
    return False
