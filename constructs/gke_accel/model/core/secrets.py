"""Credentials in URLs: a ``user:password@`` or a token-like query parameter. Config refuses them
(they would land in git, ``cdk.tf.json`` and the pull-request review) and the review masks them."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit, urlunsplit

_SECRET_QUERY = re.compile(r"token|key|secret|pass|auth|sig|cred|code", re.IGNORECASE)


def url_credentials(text: str) -> str | None:
    """What in a URL is a credential (``user:password@`` or a token-like query parameter), else None."""
    if "://" not in text:
        return None
    try:
        parts = urlsplit(text.strip())
        has_user = parts.username is not None or parts.password is not None
    except ValueError:
        return None
    if has_user:
        return "a user name or password (user:password@)"
    names = sorted({k for k, _ in parse_qsl(parts.query, keep_blank_values=True) if _SECRET_QUERY.search(k)})
    if names:
        return f"a token in the query ({', '.join(names)})"
    return None


def mask_url(text: str) -> str:
    """``text`` with its user info and query values replaced by ``***``, for messages."""
    try:
        parts = urlsplit(text)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "***"
    netloc = ("***@" if "@" in parts.netloc else "") + host + port
    query = "&".join(f"{k}=***" for k, _ in parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
