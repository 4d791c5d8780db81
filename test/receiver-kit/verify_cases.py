"""Runs examples/receiver/python/svc_webhooks.verify on each case read from stdin (a JSON list of
{secret, headers, body_base64, now}) and prints one verdict per case as a JSON list: "ok:<event
id>", the WebhookVerificationError's reason, or "config_error" for a ValueError. Used by
python.test.ts, which gives the TypeScript verifier the same cases."""

import base64
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples/receiver/python"))

from svc_webhooks import WebhookVerificationError, verify  # noqa: E402


def verdict(case):
    body = base64.b64decode(case["body_base64"])
    try:
        event = verify(case["secret"], case["headers"], body, now=case["now"])
    except WebhookVerificationError as error:
        return error.reason
    except ValueError:
        return "config_error"
    return "ok:" + event["id"]


print(json.dumps([verdict(case) for case in json.load(sys.stdin)]))
