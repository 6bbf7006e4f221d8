"""`LedgerClient`: the agent-ledger HTTP API (docs/API.md §4) over the standard library's
urllib, and `submit()`, which does what docs/API.md §2.1 asks of an SDK: it fills in every
generated member, signs, keeps the agent's chain head in the CLI's files under the agent's
lock, retries RATE_LIMITED with backoff honouring Retry-After, resynchronises after
PREV_HASH_MISMATCH, and checks each receipt against the service's JWKS before returning it.
"""
from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import b64u, keys
from .key_history import prove_possession
from .errors import AgentBlockedError, LedgerApiError, LedgerTransportError
from .receipt import RECEIPT_FIELDS, verify_receipt
from .record import GENESIS, chain_hash, sign_record
from .state import AgentFiles, AgentLock, ChainHead, StateError, ledger_home, read_owner_only, write_atomic

# The refusals after which the action must not run (docs/API.md §7).
BLOCKING_CODES = {"AGENT_FROZEN", "AGENT_REVOKED", "KEY_REVOKED", "KEY_RETIRED", "UNKNOWN_AGENT"}
_MAX_RESYNCS = 3


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """urllib follows redirects with every header, Authorization included, to whatever host
    they name: an API answer that redirects ends as an HTTPError instead (docs/CLI.md
    "Several services": a token is only ever sent to the origin that issued it)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[override]
        return None


_NO_REDIRECTS = urllib.request.build_opener(_RefuseRedirects)


@dataclass
class Agent:
    """An agent this machine can sign for: its files in AGENT_LEDGER_HOME, read once."""

    files: AgentFiles
    config: dict[str, Any]

    @property
    def agent_id(self) -> str:
        return self.config["agent_id"]

    @classmethod
    def load(cls, agent_id: str, home: Path | None = None) -> "Agent":
        files = AgentFiles(agent_id, home)
        return cls(files, files.read_config())

    def private_key(self):
        return keys.private_key_from_pem(read_owner_only(self.files.key, "agent key"))


@dataclass
class Submitted:
    record: dict[str, Any]
    receipt: dict[str, Any]
    head: ChainHead


class LedgerClient:
    """A client for one service and one token.

    >>> ledger = LedgerClient("http://127.0.0.1:3000", token)
    >>> agent = ledger.register_agent("py-bot")
    >>> ledger.submit(agent, "tool.invoke", subject={"kind": "workspace", "id": "/src"},
    ...               action={"verb": "Bash", "target": "ls"}).receipt["seq_no"]
    1
    """

    def __init__(self, url: str, token: str | None = None, *, timeout: float = 10.0, max_attempts: int = 5, base_delay: float = 0.25, max_delay: float = 10.0):
        parsed = urllib.parse.urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"the service URL must be http(s): {url!r}")
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._jwks: dict[str, Any] | None = None

    @classmethod
    def from_login(cls, home: Path | None = None, **options: Any) -> "LedgerClient":
        """The client `agent-ledger login` set up (AGENT_LEDGER_HOME/credentials)."""
        from .state import read_credentials

        credentials = read_credentials(home)
        return cls(credentials["url"], credentials["token"], **options)

    # -- HTTP ---------------------------------------------------------------------------------

    def _send(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with _NO_REDIRECTS.open(request, timeout=self.timeout) as response:
                text = response.read()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            if 300 <= error.code < 400:
                target = urllib.parse.urljoin(self.url + path, error.headers.get("location") or "")
                there = urllib.parse.urlsplit(target)
                raise LedgerTransportError(
                    f"{method} {path}: the service answered a redirect (HTTP {error.code}) to {there.scheme}://{there.netloc}; "
                    "redirects are not followed, so the API token only ever goes to the service that issued it"
                ) from None
            raw = error.read()
            try:
                envelope = json.loads(raw)["error"]
                code, message = str(envelope["code"]), str(envelope.get("message", ""))
            except (ValueError, KeyError, TypeError):
                raise LedgerTransportError(f"{method} {path}: HTTP {error.code} without the API's error envelope") from None
            retry_after = error.headers.get("retry-after")
            retry_ms = int(float(retry_after) * 1000) if retry_after and retry_after.replace(".", "", 1).isdigit() else None
            kind = AgentBlockedError if code in BLOCKING_CODES else LedgerApiError
            raise kind(error.code, code, message, retry_ms) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            raise LedgerTransportError(f"{method} {path}: {getattr(error, 'reason', error)}") from None
        except ValueError:
            raise LedgerTransportError(f"{method} {path}: the answer is not JSON") from None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One JSON request; RATE_LIMITED is retried with full-jitter exponential backoff,
        never sooner than Retry-After (docs/API.md §8)."""
        for attempt in range(1, self.max_attempts + 1):
            try:
                return self._send(method, path, body)
            except LedgerApiError as error:
                if error.code != "RATE_LIMITED" or attempt == self.max_attempts:
                    raise
                exponential = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
                wait = exponential / 2 + random.random() * exponential / 2
                time.sleep(min(self.max_delay, max((error.retry_after_ms or 0) / 1000, wait)))
        raise AssertionError("unreachable")

    # -- the API ------------------------------------------------------------------------------

    def jwks(self, refresh: bool = False) -> dict[str, Any]:
        """The service's receipt keys (GET /.well-known/service/jwks.json), cached."""
        if self._jwks is None or refresh:
            self._jwks = self.request("GET", "/.well-known/service/jwks.json")
        return self._jwks

    def get_agent(self, agent_id: str) -> dict[str, Any]:
        return self.request("GET", f"/v1/agents/{urllib.parse.quote(agent_id, safe='')}")

    def freeze_agent(self, agent_id: str, reason: str) -> dict[str, Any]:
        return self.request("POST", f"/v1/agents/{urllib.parse.quote(agent_id, safe='')}/freeze", {"reason": reason})

    def unfreeze_agent(self, agent_id: str, reason: str) -> dict[str, Any]:
        return self.request("POST", f"/v1/agents/{urllib.parse.quote(agent_id, safe='')}/unfreeze", {"reason": reason})

    def get_operation(self, operation_id: str) -> dict[str, Any]:
        return self.request("GET", f"/v1/operations/{urllib.parse.quote(operation_id, safe='')}")

    def verify_operation(self, operation_id: str) -> dict[str, Any]:
        return self.request("POST", f"/v1/operations/{urllib.parse.quote(operation_id, safe='')}/verify")

    def create_export(self, **body: Any) -> dict[str, Any]:
        return self.request("POST", "/v1/exports", body)["export"]

    def get_export(self, export_id: str) -> dict[str, Any]:
        return self.request("GET", f"/v1/exports/{urllib.parse.quote(export_id, safe='')}")

    def download_export(self, export_id: str) -> bytes:
        """The finished export's bytes (the service redirects to the object store; the token
        is not sent there)."""
        request = urllib.request.Request(
            f"{self.url}/v1/exports/{urllib.parse.quote(export_id, safe='')}/download",
            headers={"authorization": f"Bearer {self.token}"} if self.token else {},
        )

        class _NoAuthOnRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[override]
                new = super().redirect_request(req, fp, code, msg, headers, newurl)
                if new is not None:
                    new.remove_header("Authorization")
                return new

        opener = urllib.request.build_opener(_NoAuthOnRedirect)
        try:
            with opener.open(request, timeout=max(self.timeout, 60)) as response:
                return response.read()
        except urllib.error.URLError as error:
            raise LedgerTransportError(f"download of export {export_id}: {getattr(error, 'reason', error)}") from None

    def register_agent(self, agent_id: str, *, home: Path | None = None, integration_type: str = "sdk", display_name: str | None = None) -> Agent:
        """Generates a key, registers the agent, and writes its directory as `agent-ledger agent
        init` does (config.json, key with mode 0600, chain.json at GENESIS).

        Idempotent: when this machine already holds the agent (a second run of the same
        script), the agent it made is returned as it is, once the service confirms it knows
        the agent with that key; nothing is registered again."""
        files = AgentFiles(agent_id, home or ledger_home())
        if files.config.exists():
            return self._existing_agent(Agent(files, files.read_config()))
        private = keys.generate_agent_key()
        public = b64u.encode(keys.raw_public_key(private))
        kid = f"{agent_id[:100]}-k1"
        # docs/PROTOCOL.md "Proof of possession": the key signs (org_id, agent_id, kid, registered_at).
        org_id = self.request("GET", "/v1/auth/me")["user"]["org_id"]
        proof = prove_possession(private, org_id, agent_id, kid, int(time.time() * 1000))
        body: dict[str, Any] = {"agent_id": agent_id, "integration_type": integration_type, "keys": [{"kid": kid, "public_key": public, "algorithm": "ed25519", "proof": proof}]}
        if display_name:
            body["display_name"] = display_name
        answer = self.request("POST", "/v1/agents/register", body)
        write_atomic(files.key, keys.private_key_to_pem(private), 0o600)
        config = {
            "agent_id": agent_id,
            "org_id": answer["agent"]["org_id"],
            "url": self.url,
            "tool": integration_type,
            "on_error": "deny",
            "kid": kid,
            "public_key": public,
            "timeout_ms": int(self.timeout * 1000),
            "max_payload_bytes": 262_144,
            "created_at": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        files.write_config(config)
        files.write_chain(ChainHead(0, GENESIS))
        return Agent(files, config)

    def _existing_agent(self, agent: Agent) -> Agent:
        """The agent this machine set up before, if it is this service's and the service holds its key."""
        url = agent.config.get("url")
        if url is not None and url.rstrip("/") != self.url.rstrip("/"):
            raise StateError(f"agent {agent.agent_id} at {agent.files.dir} belongs to {url}, not {self.url}: use another agent id or AGENT_LEDGER_HOME")
        keys_known = {key["kid"]: key for key in self.get_agent(agent.agent_id).get("keys", [])}
        known = keys_known.get(agent.config.get("kid", ""))
        if known is None or known.get("public_key") != agent.config.get("public_key"):
            raise StateError(f"the service does not hold the key of agent {agent.agent_id} that {agent.files.dir} has: use another agent id, or remove that directory")
        return agent

    def chain_head(self, agent_id: str) -> ChainHead:
        """The agent's head as the service has it (GENESIS and 0 before its first record)."""
        chain = self.get_agent(agent_id).get("chain") or {}
        return ChainHead(int(chain.get("seq_no", 0)), chain.get("chain_hash") or GENESIS)

    def submit(self, agent: Agent, operation_type: str, *, subject: dict[str, Any], action: dict[str, Any], payload: Any = None, ttl_ms: int = 60_000) -> Submitted:
        """Signs and submits the agent's next record under its lock; returns it with a receipt
        that the service's JWKS verifies and that acknowledges exactly this record.
        Raises AgentBlockedError when the agent may not act (frozen, revoked)."""
        files, config = agent.files, agent.config
        private = agent.private_key()
        lock = AgentLock(files.lock).acquire(timeout_s=max(self.timeout, 5.0))
        try:
            head = files.read_chain()
            for resyncs in range(_MAX_RESYNCS + 1):
                if head is None:
                    head = self.chain_head(config["agent_id"])
                record = sign_record(
                    private,
                    org_id=config["org_id"],
                    agent_id=config["agent_id"],
                    kid=config["kid"],
                    prev_chain_hash=head.chain_hash,
                    operation_type=operation_type,
                    subject=subject,
                    action=action,
                    payload=payload,
                    ttl_ms=ttl_ms,
                )
                try:
                    receipt = self.request("POST", "/v1/operations", record)["receipt"]
                except AgentBlockedError as error:
                    if error.code in ("AGENT_FROZEN", "AGENT_REVOKED"):
                        files.write_status_cache("frozen" if error.code == "AGENT_FROZEN" else "revoked")
                    files.log_error(str(error))
                    raise
                except LedgerApiError as error:
                    if error.code == "PREV_HASH_MISMATCH" and resyncs < _MAX_RESYNCS:
                        head = None
                        continue
                    files.log_error(str(error))
                    raise
                self._check_receipt(receipt, record, head)
                new_head = ChainHead(receipt["seq_no"], receipt["chain_hash"])
                files.write_chain(new_head, record["operation_id"])
                return Submitted(record, receipt, new_head)
        finally:
            lock.release()
        raise AssertionError("unreachable")

    def _check_receipt(self, receipt: Any, record: dict[str, Any], head: ChainHead) -> None:
        if not isinstance(receipt, dict) or any(f not in receipt for f in RECEIPT_FIELDS):
            raise LedgerTransportError(f"the answer for {record['operation_id']} is not a receipt")
        if receipt["operation_id"] != record["operation_id"] or receipt["chain_hash"] != chain_hash(head.chain_hash, record) or receipt["seq_no"] != head.seq_no + 1:
            raise LedgerTransportError(f"the receipt for {record['operation_id']} does not acknowledge the submitted record")
        if not verify_receipt(receipt, self.jwks()) and not verify_receipt(receipt, self.jwks(refresh=True)):
            raise LedgerTransportError(f"the receipt for {record['operation_id']} does not verify with the service's JWKS")
