"""The SDK never carries its API token across a redirect (docs/CLI.md "Several services"):
service A answers a redirect to service B, and B must never see A's token. urllib follows
redirects with every header by default, so the SDK refuses them instead; the export download
alone follows its redirect to the object store, without the token."""
from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator

import pytest

from agent_ledger.client import LedgerClient
from agent_ledger.errors import LedgerTransportError


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: list[str | None]
    location: str | None = None

    def _answer(self) -> None:
        self.seen.append(self.headers.get("authorization"))
        if self.location is not None:
            self.send_response(302)
            self.send_header("location", self.location + self.path)
            self.end_headers()
            return
        body = b'{"agent_id": "a"}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        return


def _serve(seen: list[str | None], location: str | None = None) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = type("Handler", (_Recorder,), {"seen": seen, "location": location})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@contextlib.contextmanager
def _redirecting() -> Iterator[tuple[str, list[str | None], list[str | None]]]:
    """Service A, which redirects every request to B; yields A's URL and what each one saw."""
    seen_a: list[str | None] = []
    seen_b: list[str | None] = []
    b, b_url = _serve(seen_b)
    a, a_url = _serve(seen_a, location=b_url)
    try:
        yield a_url, seen_a, seen_b
    finally:
        a.shutdown()
        b.shutdown()


def test_a_redirect_to_another_service_is_refused_and_carries_no_token() -> None:
    with _redirecting() as (a_url, seen_a, seen_b):
        client = LedgerClient(a_url, "tok_of_a", max_attempts=1)
        with pytest.raises(LedgerTransportError, match=r"redirect \(HTTP 302\) to http://127\.0\.0\.1:\d+; redirects are not followed"):
            client.get_agent("a")
        with pytest.raises(LedgerTransportError, match="redirects are not followed"):
            client.request("POST", "/v1/agents/a/freeze", {"reason": "x"})
        assert seen_a == ["Bearer tok_of_a", "Bearer tok_of_a"]
        assert seen_b == []


def test_the_export_download_follows_its_redirect_without_the_token() -> None:
    with _redirecting() as (a_url, seen_a, seen_store):
        assert LedgerClient(a_url, "tok_of_a").download_export("e1") == b'{"agent_id": "a"}'
        assert seen_a == ["Bearer tok_of_a"]
        assert seen_store == [None]
