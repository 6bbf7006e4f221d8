"""The SDK against the local stack (`npm start`, in memory): the README's ten-line example,
a chain of records, a frozen agent whose action does not run, and an export verified
offline by this package's verifier and command."""
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agent_ledger import AgentBlockedError, Ledger, LedgerClient, verify_export
from agent_ledger.state import StateError

from conftest import REPO


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _json(url: str, method: str, path: str, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    headers = {"content-type": "application/json"} if data is not None else {}
    if token:
        headers["authorization"] = f"Bearer {token}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url + path, data=data, method=method, headers=headers), timeout=60) as r:
            text = r.read()
            return json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {path}: {error.code} {error.read()[:500]!r}") from None


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    port = _free_port()
    env = {**os.environ, "PORT": str(port), "LEDGER_EPOCH_MS": "2000", "LEDGER_EPOCH_GRACE_MS": "500", "LEDGER_DATA_DIR": str(tmp_path_factory.mktemp("ledger"))}
    process = subprocess.Popen(["node", "--import", "tsx", "local/main.ts", "--memory"], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = None
    deadline = time.monotonic() + 180
    lines = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"ledger listening on (http://\S+)", line)
        if match:
            url = match.group(1)
            break
    if url is None:
        process.kill()
        pytest.fail("the local stack did not start:\n" + "".join(lines[-40:]))
    # Keep draining its output so it never blocks on a full pipe.
    import threading

    log = open(tmp_path_factory.mktemp("log") / "ledger.log", "w")
    threading.Thread(target=lambda: [log.write(line) or log.flush() for line in process.stdout], daemon=True).start()
    print("local stack log:", log.name)
    yield url
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def token(service):
    email = f"py-{secrets.token_hex(4)}@example.test"
    password = secrets.token_urlsafe(12)
    _json(service, "POST", "/api/auth/sign-up/email", {"name": "Py", "email": email, "password": password})
    session = _json(service, "POST", "/api/auth/sign-in/email", {"email": email, "password": password})["token"]
    _json(service, "POST", "/v1/onboarding/personal", None, session)
    return _json(service, "POST", "/v1/auth/token", {}, session)["token"]


def _readme_example() -> str:
    text = (REPO / "python" / "README.md").read_text(encoding="utf-8")
    return re.search(r"## Ten lines.*?```python\n(.*?)```", text, re.S).group(1)


def test_readme_example_signs_submits_and_verifies(service, token, tmp_path):
    code = _readme_example()
    assert len([l for l in code.splitlines() if l.strip()]) <= 10
    env = {**os.environ, "LEDGER_URL": service, "LEDGER_TOKEN": token, "AGENT_ID": "py-readme", "AGENT_LEDGER_HOME": str(tmp_path),
           "PYTHONPATH": str(REPO / "python" / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ran pytest -q True"
    chain = json.loads((tmp_path / "agents" / "py-readme" / "chain.json").read_text())
    assert chain["seq_no"] == 1
    assert oct((tmp_path / "agents" / "py-readme" / "key").stat().st_mode & 0o777) == "0o600"
    key = (tmp_path / "agents" / "py-readme" / "key").read_bytes()
    # Run again, as a person would: the agent it made is reused, its chain goes on.
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "ran pytest -q True"
    assert json.loads((tmp_path / "agents" / "py-readme" / "chain.json").read_text())["seq_no"] == 2
    assert (tmp_path / "agents" / "py-readme" / "key").read_bytes() == key


def test_register_agent_refuses_a_directory_of_another_service(service, token, tmp_path):
    client = LedgerClient(service, token)
    client.register_agent("py-elsewhere", home=tmp_path)
    other = LedgerClient(service.replace("127.0.0.1", "localhost"), token)
    with pytest.raises(StateError, match="belongs to"):
        other.register_agent("py-elsewhere", home=tmp_path)


def test_chain_freeze_and_export(service, token, tmp_path):
    client = LedgerClient(service, token)
    start = int(time.time() * 1000) - 1000
    agent = client.register_agent("py-e2e", home=tmp_path)
    ledger = Ledger(client, agent, subject={"kind": "repository", "id": "acme/app"})
    ran = []

    @ledger.recorded("tool.invoke")
    def shell(command: str) -> str:
        ran.append(command)
        return command.upper()

    assert [shell("ls"), shell("make"), shell("make test")] == ["LS", "MAKE", "MAKE TEST"]
    with ledger.record("deploy.release", action={"verb": "deploy", "target": "staging"}, outcome=True):
        ran.append("deploy")
    assert ledger.last.receipt["seq_no"] == 5  # three calls, the deploy and its outcome

    # The chain head lives where the CLI keeps it; a second client resumes from it.
    again = LedgerClient(service, token)
    assert again.submit(type(agent).load("py-e2e", home=tmp_path), "note.add", subject={"kind": "x", "id": "y"}, action={"verb": "note", "target": ""}).head.seq_no == 6

    client.freeze_agent("py-e2e", "investigating")
    with pytest.raises(AgentBlockedError) as refused:
        shell("rm -rf /")
    assert refused.value.code == "AGENT_FROZEN"
    assert "rm -rf /" not in ran

    job = client.create_export(format="json", start_time=start, end_time=int(time.time() * 1000) + 1000, agent_id="py-e2e")
    deadline = time.monotonic() + 120
    while True:
        detail = client.get_export(job["export_id"])
        status = detail.get("export", detail).get("status")
        if status in ("done", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert status == "done", detail
    bundle = client.download_export(job["export_id"])
    report = verify_export(bundle, jwks=client.jwks())
    assert report.valid, [f.__dict__ for f in report.findings if f.status == "failed"]
    assert report.counts["operations"] == 6 and report.trust == "trusted_jwks"

    path = tmp_path / "export.json"
    path.write_bytes(bundle)
    cli = subprocess.run([sys.executable, "-m", "agent_ledger", "verify", str(path), "--jwks", f"{service}/.well-known/service/jwks.json"],
                         env={**os.environ, "PYTHONPATH": str(REPO / "python" / "src")}, capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    assert "export bundle verified" in cli.stdout
    untrusted = subprocess.run([sys.executable, "-m", "agent_ledger", "verify", str(path)],
                               env={**os.environ, "PYTHONPATH": str(REPO / "python" / "src")}, capture_output=True, text=True, timeout=120)
    assert untrusted.returncode == 3
