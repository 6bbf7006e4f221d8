"""The client's files, in exactly the layout and formats of the `agent-ledger` CLI, so an
agent set up by one is usable by the other (docs/CLI.md, Local files):
`AGENT_LEDGER_HOME` (default `~/.agent-ledger`) holds `credentials` and
`agents/<agent_id>/{config.json, key, chain.json, status-cache.json, errors.log, lock}`.

Secrets (the key, the credentials) are read only when nobody but their owner can read or
write them; every file is replaced atomically; the lock is the CLI's own, so a Python agent
and a hook of the same agent never sign on the same chain head at once.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import socket
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import b64u
from .errors import ProtocolError

AGENT_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}")
# The CLI's lock: a holder older than this is stale whoever it is.
_STALE_AFTER_MS = 120_000
# A breaker of the lock older than this was left by a process that died while breaking.
_BREAKER_STALE_S = 5.0


class StateError(Exception):
    """A client file that is missing, unsafe or corrupt; the message says how to fix it."""


def ledger_home(env: dict[str, str] | None = None) -> Path:
    configured = (env if env is not None else os.environ).get("AGENT_LEDGER_HOME", "")
    return Path(configured).resolve() if configured.strip() else Path.home() / ".agent-ledger"


def agent_dir(agent_id: str, home: Path | None = None) -> Path:
    if not AGENT_ID_PATTERN.fullmatch(agent_id):
        raise StateError(f'invalid agent id "{agent_id}": use 1-128 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit')
    return (home or ledger_home()) / "agents" / agent_id


def write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    """A temp file beside `path`, fsync, rename over it: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(temp)
        raise
    os.close(fd)
    os.replace(temp, path)


def read_owner_only(path: Path, what: str) -> bytes:
    """A secret file's bytes, refused when it is a link, another user's, or readable by others."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise StateError(f"{what} not found at {path}") from None
    except OSError as error:
        if error.errno == 40:  # ELOOP
            raise StateError(f"{what} at {path} is a symbolic link; refusing to follow it") from None
        raise StateError(f"cannot read {what} at {path}: {error}") from None
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid():
            raise StateError(f"{what} at {path} belongs to another user (uid {info.st_uid}); it must be yours")
        if info.st_mode & 0o077:
            raise StateError(f"{what} at {path} can be read or changed by others (mode {stat.S_IMODE(info.st_mode):o}); fix it with: chmod 600 {path}")
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_credentials(home: Path | None = None) -> dict[str, Any]:
    """The current login in `credentials` as `agent-ledger login` writes it (mode 0600):
    `{url, token, expires_at?}`. The file holds one login per service origin,
    `{"current": origin, "origins": {origin: {url, token, expires_at}}}` (docs/CLI.md, Several
    services); the single-login file of earlier versions, `{url, token}`, is read as it is."""
    path = (home or ledger_home()) / "credentials"
    try:
        data = json.loads(read_owner_only(path, "credentials"))
    except StateError as error:
        if str(error).startswith("credentials not found"):
            raise StateError(f"not logged in (no {path}): run `agent-ledger login --url URL` first") from None
        raise
    except ValueError:
        data = None
    if isinstance(data, dict) and "origins" in data:
        origins = data.get("origins")
        current = data.get("current")
        if not isinstance(origins, dict):
            data = None
        elif not isinstance(current, str) or current not in origins:
            raise StateError(f"not logged in ({path} names no current login): run `agent-ledger login --url URL` first")
        else:
            data = origins[current]
    if not isinstance(data, dict) or not isinstance(data.get("url"), str) or not data.get("token"):
        raise StateError(f"{path} is not a credentials file written by agent-ledger")
    return data


@dataclass
class ChainHead:
    seq_no: int
    chain_hash: str


class AgentFiles:
    """One agent's directory."""

    def __init__(self, agent_id: str, home: Path | None = None):
        self.dir = agent_dir(agent_id, home)
        self.config = self.dir / "config.json"
        self.key = self.dir / "key"
        self.chain = self.dir / "chain.json"
        self.status_cache = self.dir / "status-cache.json"
        self.errors = self.dir / "errors.log"
        self.lock = self.dir / "lock"

    def read_config(self) -> dict[str, Any]:
        try:
            config = json.loads(self.config.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StateError(f"no agent directory at {self.dir}: register the agent first (or check AGENT_LEDGER_HOME)") from None
        except ValueError:
            raise StateError(f"{self.config} is not valid JSON") from None
        for field in ("agent_id", "org_id", "url", "kid"):
            if not isinstance(config.get(field), str) or not config[field]:
                raise StateError(f"{self.config} has no {field}")
        return config

    def write_config(self, config: dict[str, Any]) -> None:
        write_atomic(self.config, (json.dumps(config, indent=2) + "\n").encode())

    def read_chain(self) -> ChainHead | None:
        """The stored head, or None when chain.json does not exist (fetch it from the service)."""
        try:
            data = json.loads(self.chain.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValueError:
            data = None
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("seq_no"), int)
            or data["seq_no"] < 0
            or not b64u.is_b64u(data.get("chain_hash"), 32)
        ):
            raise StateError(f"{self.chain} is corrupt; delete it to resynchronise the chain head from the service: rm {self.chain}")
        return ChainHead(data["seq_no"], data["chain_hash"])

    def write_chain(self, head: ChainHead, operation_id: str | None = None) -> None:
        data: dict[str, Any] = {"seq_no": head.seq_no, "chain_hash": head.chain_hash}
        if operation_id:
            data["operation_id"] = operation_id
        write_atomic(self.chain, (json.dumps(data, separators=(",", ":")) + "\n").encode())

    def write_status_cache(self, status: str) -> None:
        write_atomic(self.status_cache, (json.dumps({"status": status, "checked_at": int(time.time() * 1000)}, separators=(",", ":")) + "\n").encode())

    def log_error(self, message: str) -> None:
        try:
            fd = os.open(self.errors, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000Z"
                os.write(fd, f"{stamp} {' '.join(message.split())}\n".encode())
            finally:
                os.close(fd)
        except OSError:
            pass


class AgentLock:
    """The CLI's lock file (client/src/local/lock.ts): created with O_EXCL, holding
    `{pid, host, at, token}`; a holder that died or is older than two minutes is broken."""

    def __init__(self, path: Path):
        self.path = path
        self.token = secrets.token_hex(8)

    def acquire(self, timeout_s: float = 30.0) -> "AgentLock":
        deadline = time.monotonic() + timeout_s
        wait = 0.002
        while True:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                try:
                    holder = {"pid": os.getpid(), "host": socket.gethostname(), "at": int(time.time() * 1000), "token": self.token}
                    os.write(fd, json.dumps(holder, separators=(",", ":")).encode())
                finally:
                    os.close(fd)
                return self
            except FileExistsError:
                pass
            try:
                text = self.path.read_text(encoding="utf-8")
            except FileNotFoundError:
                continue
            if self._stale(text) and (text != "" or self._settled_empty()):
                self._break(text)
            if time.monotonic() >= deadline:
                raise StateError(f"another process of this agent holds {self.path}")
            time.sleep(wait + secrets.randbelow(1000) / 1000 * wait)
            wait = min(wait * 2, 0.05)

    def _stale(self, text: str) -> bool:
        try:
            holder = json.loads(text)
            pid, at, host = int(holder["pid"]), int(holder["at"]), holder.get("host")
        except (ValueError, KeyError, TypeError):
            return True
        if time.time() * 1000 - at > _STALE_AFTER_MS:
            return True
        if host != socket.gethostname():
            return False
        try:
            os.kill(pid, 0)
            return False
        except PermissionError:
            return False
        except OSError:
            return True

    def _settled_empty(self) -> bool:
        time.sleep(0.1)
        try:
            return self.path.read_text(encoding="utf-8") == ""
        except FileNotFoundError:
            return False

    def _break(self, stale_text: str) -> None:
        """Delete the stale lock unless it changed since it was read. Breaking is itself
        exclusive (`<lock>.break`, O_EXCL), as in the CLI: two threads that read the same stale
        holder must not both break, or the second removes the lock the first has just taken
        and a third takes it beside the first."""
        breaker = self.path.with_name(f"{self.path.name}.break")
        try:
            os.close(os.open(breaker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except OSError:
            # Someone else is breaking, or died doing it (a breaker is held for two file
            # operations, so one older than a few seconds was abandoned).
            try:
                if time.time() - breaker.stat().st_mtime > _BREAKER_STALE_S:
                    breaker.unlink()
            except OSError:
                pass
            return
        try:
            if self.path.read_text(encoding="utf-8") == stale_text:
                self.path.unlink()
        except OSError:
            pass
        finally:
            try:
                breaker.unlink()
            except OSError:
                pass

    def release(self) -> None:
        try:
            if json.loads(self.path.read_text(encoding="utf-8")).get("token") == self.token:
                os.unlink(self.path)
        except (OSError, ValueError):
            pass

    def __enter__(self) -> "AgentLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def check_secret_path_free(path: Path) -> None:
    if path.exists() or path.is_symlink():
        raise ProtocolError("STATE", f"{path} already exists; refusing to overwrite an agent key")
