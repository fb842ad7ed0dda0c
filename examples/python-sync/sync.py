#!/usr/bin/env python3
"""Keeps a local copy of an account's calls: the sync a backend writes against the call-handling API.

Python 3.9 or later, its standard library only. The first run walks every page of GET /v1/calls by its cursor;
each later run asks only for calls created after the newest it has (`since`, which compares `created_at`), and
fetches again each call it last saw in progress: calls have no `updated_at`, so a list never says that one ended.
429 is retried after its Retry-After; 500, 502, 503, 504 and a lost connection after a growing, jittered backoff.

    python3 sync.py --base-url http://127.0.0.1:4010 --key sk_sandbox_all --state calls.json

It prints one line of JSON: how many calls it holds, how many are new or changed, and how many answers it retried.
"""

import argparse
import email.utils
import json
import os
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

RETRIED_STATUSES = {500, 502, 503, 504}
MAX_ATTEMPTS = 8
# Retry-After is the server's word, but a sync must not sleep for ever on a wrong one.
MAX_WAIT_SECONDS = 60
TIMEOUT_SECONDS = 30


class ApiError(Exception):
    """An answer the sync does not retry (a 4xx other than 429), with the API's error envelope."""

    def __init__(self, status, body):
        error = body.get("error", {}) if isinstance(body, dict) else {}
        super().__init__(f"{status} {error.get('code')}: {error.get('message')}")
        self.status = status
        self.error = error


class Client:
    def __init__(self, base_url, key, sleep=time.sleep):
        self.base_url = base_url.rstrip("/")
        self.key = key
        self.sleep = sleep
        self.retried = {"429": 0, "5xx": 0, "connection": 0}

    def get(self, path, query=None):
        url = self.base_url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        request = urllib.request.Request(
            url, headers={"Authorization": f"Bearer {self.key}", "Accept": "application/json"}
        )
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                    return json.load(response)
            except urllib.error.HTTPError as error:
                body = _json_or_none(error.read())
                if attempt == MAX_ATTEMPTS or (error.code != 429 and error.code not in RETRIED_STATUSES):
                    raise ApiError(error.code, body) from None
                self.retried["429" if error.code == 429 else "5xx"] += 1
                self.sleep(_wait(error.headers.get("Retry-After"), attempt))
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if attempt == MAX_ATTEMPTS:
                    raise
                self.retried["connection"] += 1
                self.sleep(_backoff(attempt))
        raise AssertionError("unreachable")

    def pages(self, path, query):
        """Every item of a list, page after page, following next_cursor while has_more."""
        query = dict(query)
        while True:
            page = self.get(path, query)
            yield from page["data"]
            if not page.get("has_more"):
                return
            query["cursor"] = page["next_cursor"]


def _json_or_none(raw):
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _backoff(attempt):
    """0.2 s, 0.4 s, 0.8 s ... up to 10 s, each with up to half again of jitter, so that clients spread out."""
    base = min(0.2 * 2 ** (attempt - 1), 10)
    return base + random.uniform(0, base / 2)


def _wait(retry_after, attempt):
    """Retry-After in seconds or as an HTTP date; without one, the backoff."""
    if retry_after is None:
        return _backoff(attempt)
    if retry_after.strip().isdigit():
        return min(int(retry_after), MAX_WAIT_SECONDS)
    try:
        when = email.utils.parsedate_to_datetime(retry_after).timestamp()
    except (TypeError, ValueError):
        return _backoff(attempt)
    return min(max(when - time.time(), 0), MAX_WAIT_SECONDS)


def sync(client, state, page_size=100):
    """Brings `state` (`calls` by id, `newest` created_at) up to date; returns what changed."""
    calls = state.setdefault("calls", {})
    query = {"limit": page_size}
    if state.get("newest"):
        query["since"] = state["newest"]
    # Calls seen in progress, fetched again below: only the call itself says that it ended.
    open_ids = [call_id for call_id, call in calls.items() if call["status"] == "in-progress"]
    new = changed = 0
    for call in client.pages("/v1/calls", query):
        new += call["id"] not in calls
        calls[call["id"]] = call
    for call_id in open_ids:
        try:
            call = client.get(f"/v1/calls/{urllib.parse.quote(call_id)}")["data"]
        except ApiError as error:
            if error.status != 404:
                raise
            del calls[call_id]
            changed += 1
            continue
        changed += call != calls[call_id]
        calls[call_id] = call
    if calls:
        state["newest"] = max(call["created_at"] for call in calls.values())
    return {"new": new, "changed": changed}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default=os.environ.get("SANDBOX_URL", "http://127.0.0.1:4010"))
    parser.add_argument("--key", default=os.environ.get("SANDBOX_KEY", "sk_sandbox_all"))
    parser.add_argument("--state", default="calls.json", help="the local copy, read and written back")
    parser.add_argument("--page-size", type=int, default=100)
    options = parser.parse_args(argv)

    state = {}
    if os.path.exists(options.state):
        with open(options.state, encoding="utf-8") as file:
            state = json.load(file)
    client = Client(options.base_url, options.key)
    try:
        changes = sync(client, state, options.page_size)
    except ApiError as error:
        print(f"sync failed: {error}", file=sys.stderr)
        return 1
    with open(options.state + ".tmp", "w", encoding="utf-8") as file:
        json.dump(state, file)
    os.replace(options.state + ".tmp", options.state)
    print(json.dumps({"calls": len(state["calls"]), **changes, "retried": client.retried, "newest": state.get("newest")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
