"""Verifying a Svc webhook in Python, exactly as the receiver rules say
(spec 4; docs/contract.md "Verifying a delivery").

1. compute the signature over the raw request bytes (re-serialised JSON will not match);
2. compare in constant time (hmac.compare_digest);
3. reject a timestamp that is not all ASCII digits or is more than 300 seconds from now;
4. then de-duplicate on the event id (your application's database).

Standard library only, Python 3.8+: copy this file into any receiver (Flask, Django, FastAPI...).
It gives the same verdict, with the same reason words, as the TypeScript ``verify.ts`` beside it.

    from svc_webhooks import WebhookVerificationError, verify

    try:
        event = verify(os.environ["SVC_WEBHOOK_SECRET"], request.headers, request.get_data())
    except WebhookVerificationError as error:
        return "", 400  # error.reason says why
"""

import hashlib
import hmac
import json
import re
import time
from typing import Any, Dict, Mapping, Optional, Union

__all__ = [
    "SIGNATURE_TOLERANCE_SECONDS",
    "WebhookVerificationError",
    "compute_signature",
    "verify",
]

SIGNATURE_TOLERANCE_SECONDS = 300

# [0-9], not \d or str.isdigit(): both also accept other scripts' digits (Arabic-Indic, and for
# isdigit superscripts), and int() would read some of them. fullmatch, so a trailing newline
# (which `$` would allow) is refused too.
_TIMESTAMP = re.compile(r"[0-9]{1,15}")
_SIGNATURE = re.compile(r"v1=[0-9a-f]{64}")

REASONS = (
    "missing_header",
    "bad_timestamp",
    "stale_timestamp",
    "bad_signature_format",
    "signature_mismatch",
    "bad_body",
    "id_mismatch",
)


class WebhookVerificationError(Exception):
    """A delivery that must be rejected (answer 400). ``reason`` is one of ``REASONS``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def compute_signature(secret: str, timestamp: str, body: Union[bytes, str]) -> str:
    """The signature Svc sends: ``v1=`` + lowercase hex HMAC-SHA256 of ``{timestamp}.{raw body}``."""
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    mac = hmac.new(secret.encode("utf-8"), timestamp.encode("utf-8") + b"." + raw, hashlib.sha256)
    return "v1=" + mac.hexdigest()


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    # Frameworks' header objects are case-insensitive; a plain dict may be spelled either way.
    for candidate in (name, name.lower()):
        value = headers.get(candidate)
        if value is not None:
            return value
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    return None


def verify(
    secret: str,
    headers: Mapping[str, str],
    body: Union[bytes, str],
    tolerance: int = SIGNATURE_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> Dict[str, Any]:
    """Verifies one delivery and returns its event (``id``, ``type``, ``created_at``,
    ``api_version``, ``data``).

    ``secret`` is the endpoint's whole signing secret, ``whsec_...``; ``body`` the request body
    exactly as received (bytes; a str is taken as its UTF-8 bytes); ``now`` the current unix time
    in seconds (default: the system clock). Raises WebhookVerificationError for a delivery to
    reject, and ValueError for a secret that is not a Svc signing secret (a configuration
    mistake should be loud, not a stream of rejections).
    """
    if not secret.startswith("whsec_"):
        raise ValueError("the signing secret is the whole string Svc showed, starting with whsec_")
    timestamp = _header(headers, "Svc-Webhook-Timestamp")
    signature = _header(headers, "Svc-Webhook-Signature")
    webhook_id = _header(headers, "Svc-Webhook-Id")
    if timestamp is None or signature is None or webhook_id is None:
        raise WebhookVerificationError("missing_header")
    if not _TIMESTAMP.fullmatch(timestamp):
        raise WebhookVerificationError("bad_timestamp")
    current = int(time.time()) if now is None else now
    if abs(current - int(timestamp)) > tolerance:
        raise WebhookVerificationError("stale_timestamp")
    # Svc sends exactly one signature; anything else (a list, another scheme) is refused whole.
    if not _SIGNATURE.fullmatch(signature):
        raise WebhookVerificationError("bad_signature_format")
    expected = compute_signature(secret, timestamp, body)
    # Both are `v1=` + 64 hex digits here, so the lengths are equal, as compare_digest prefers.
    if not hmac.compare_digest(expected.encode("ascii"), signature.encode("ascii")):
        raise WebhookVerificationError("signature_mismatch")
    try:
        event = json.loads(body)
    except ValueError:  # json.JSONDecodeError and UnicodeDecodeError are both ValueErrors
        raise WebhookVerificationError("bad_body") from None
    if (
        not isinstance(event, dict)
        or not isinstance(event.get("id"), str)
        or not isinstance(event.get("type"), str)
        or not isinstance(event.get("data"), (dict, list))
    ):
        raise WebhookVerificationError("bad_body")
    if event["id"] != webhook_id:
        raise WebhookVerificationError("id_mismatch")
    return event
