"""Credentials in URLs: a ``user:password@`` or a token-like query parameter. Config refuses them
(they would land in git, ``cdk.tf.json`` and the pull-request review) and the review masks them."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit, urlunsplit

_SECRET_QUERY = re.compile(r"token|key|secret|pass|auth|sig|cred|code", re.IGNORECASE)
# Webhook services whose URL path is the credential (whoever has the URL can post): Slack incoming
# webhooks (hooks.slack.com/services/T.../B.../<secret>), Discord (discord.com/api/webhooks/<id>/<token>),
# Microsoft Teams/Office 365 connectors (*.webhook.office.com, outlook.office.com/webhook/...).
_SECRET_PATHS = (
    ("hooks.slack.com", "/services/"),
    ("discord.com", "/api/webhooks/"),
    ("discordapp.com", "/api/webhooks/"),
    ("outlook.office.com", "/webhook/"),
    (".webhook.office.com", "/"),
)


def _params(text: str) -> list[str]:
    """Parameter names of a query or fragment, ``&``- or ``;``-separated (servers accept both)."""
    return [part.split("=", 1)[0] for part in re.split(r"[&;]", text) if part]


def url_credentials(text: str) -> str | None:
    """What in a URL is a credential, else None: ``user:password@``, a token-like or one- or two-letter
    parameter (``?t=...``) in the query or the fragment, or the path of a webhook service whose URL is
    its secret (Slack, Discord, Teams)."""
    if "://" not in text:
        return None
    try:
        parts = urlsplit(text.strip())
        has_user = parts.username is not None or parts.password is not None
        host = (parts.hostname or "").lower()
    except ValueError:
        return None
    if has_user:
        return "a user name or password (user:password@)"
    for where, part in (("query", parts.query), ("fragment", parts.fragment)):
        names = sorted({k for k in _params(part) if _SECRET_QUERY.search(k) or (0 < len(k.strip()) <= 2)})
        if names:
            return f"a token in the {where} ({', '.join(n[:20] for n in names[:5])})"
    for suffix, prefix in _SECRET_PATHS:
        if (host == suffix or (suffix.startswith(".") and host.endswith(suffix))) and parts.path.startswith(prefix):
            return f"a secret path ({host} webhook URLs are their own credential)"
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
    query = "&".join(f"{k}=***" for k, _ in parse_qsl(parts.query.replace(";", "&"), keep_blank_values=True))
    path = parts.path
    if any(host.endswith(suffix) and path.startswith(prefix) for suffix, prefix in _SECRET_PATHS):
        path = path[: path.find("/", 1) + 1] + "***" if path.find("/", 1) > 0 else "/***"
    return urlunsplit((parts.scheme, netloc, path, query, ""))


_HEX_KEY = re.compile(r"[0-9a-fA-F]{16,}")


def looks_like_key(name: str) -> bool:
    """A variable name that is a key pasted in its place: 16 or more hex digits (a PagerDuty
    integration key is 32), or 20 or more characters, no underscore, a third of them digits."""
    digits = sum(c.isdigit() for c in name)
    return bool(_HEX_KEY.fullmatch(name)) or (len(name) >= 20 and "_" not in name and digits * 3 >= len(name))
