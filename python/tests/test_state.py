"""The CLI's files: owner-only secrets, atomic chain state, and the lock shared with the CLI's hook."""
import json
import os
import sys
import threading

import pytest

from agent_ledger.state import AgentFiles, AgentLock, ChainHead, StateError, read_credentials, read_owner_only, write_atomic


def test_secrets_readable_by_others_are_refused(tmp_path):
    secret = tmp_path / "key"
    write_atomic(secret, b"pem", 0o600)
    assert read_owner_only(secret, "agent key") == b"pem"
    os.chmod(secret, 0o644)
    with pytest.raises(StateError, match="chmod 600"):
        read_owner_only(secret, "agent key")
    link = tmp_path / "link"
    link.symlink_to(secret)
    with pytest.raises(StateError, match="symbolic link"):
        read_owner_only(link, "agent key")


def test_chain_state_round_trips_and_corruption_says_how_to_heal(tmp_path):
    files = AgentFiles("bot-1", tmp_path)
    assert files.read_chain() is None
    files.write_chain(ChainHead(3, "A" * 43), "op-3")
    assert json.loads(files.chain.read_text()) == {"seq_no": 3, "chain_hash": "A" * 43, "operation_id": "op-3"}
    assert files.read_chain() == ChainHead(3, "A" * 43)
    files.chain.write_text("{")
    with pytest.raises(StateError, match="rm "):
        files.read_chain()


def test_agent_ids_stay_inside_the_home(tmp_path):
    for bad in ("../x", "a/b", "", ".hidden"):
        with pytest.raises(StateError):
            AgentFiles(bad, tmp_path)


def test_the_lock_serializes_and_breaks_a_dead_holder(tmp_path):
    # Eight threads find the same dead holder at once, twenty times over: breaking it must be
    # exclusive too, or one thread removes the lock another has just taken.
    path = tmp_path / "lock"
    dead = json.dumps({"pid": 2**22 + 12345, "host": os.uname().nodename, "at": 0, "token": "dead"})
    inside, overlaps = [], []
    start = threading.Barrier(8)

    def worker():
        start.wait()
        with AgentLock(path):
            inside.append(1)
            if len(inside) > 1:
                overlaps.append(1)
            threading.Event().wait(0.002)
            inside.pop()

    # Threads switch every microsecond rather than every 5 ms, so that one can stop between
    # any two file operations of another, as processes on a loaded machine do.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(20):
            path.write_text(dead)
            threads = [threading.Thread(target=worker) for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not overlaps
    assert not path.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


def test_credentials_in_both_formats_give_the_current_login(tmp_path):
    """The CLI's login keeps one token per service origin; the single-login file of earlier versions still reads."""
    path = tmp_path / "credentials"
    write_atomic(path, json.dumps({"url": "http://127.0.0.1:3000", "token": "alt_old"}).encode())
    assert read_credentials(tmp_path) == {"url": "http://127.0.0.1:3000", "token": "alt_old"}
    a = {"url": "https://a.example", "token": "alt_a", "expires_at": None}
    b = {"url": "https://b.example/ledger", "token": "alt_b"}
    write_atomic(path, json.dumps({"current": "https://b.example", "origins": {"https://a.example": a, "https://b.example": b}}).encode())
    assert read_credentials(tmp_path) == b
    write_atomic(path, json.dumps({"current": None, "origins": {"https://a.example": a}}).encode())
    with pytest.raises(StateError, match="names no current login"):
        read_credentials(tmp_path)
    write_atomic(path, b'{"origins": []}')
    with pytest.raises(StateError, match="not a credentials file"):
        read_credentials(tmp_path)
