"""A small program instrumented with sentry-sdk 1.9 (Debian python3-sentry-sdk), as a user
would write it. Run by sentry-python.test.ts with /usr/bin/python3 and SENTRY_DSN set: a
session around ten identical exceptions from three users and a message, then a flush.
Prints one JSON line: the SDK version."""
import json
import os

import sentry_sdk

sentry_sdk.init(
    dsn=os.environ["SENTRY_DSN"],
    release="shop@3.0.0",
    environment="production",
    traces_sample_rate=0,
)

USERS = [
    {"id": "u-1", "email": "one@example.com"},
    {"id": "u-2"},
    {"username": "three"},
]


def checkout(cart):
    if not cart:
        raise ValueError("boom from python")
    return len(cart)


hub = sentry_sdk.Hub.current
hub.start_session()
for i in range(10):
    with sentry_sdk.push_scope() as scope:
        scope.user = USERS[i % 3]
        try:
            checkout([])
        except ValueError as err:
            sentry_sdk.capture_exception(err)
sentry_sdk.capture_message("hello from python", level="warning")
hub.end_session()
sentry_sdk.flush(timeout=10)
print(json.dumps({"version": sentry_sdk.VERSION}))
