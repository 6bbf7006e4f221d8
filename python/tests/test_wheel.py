"""The package builds offline into a wheel (hatchling) that holds the whole package and
works on its own: unpacked into an empty directory, its command verifies an export."""
import os
import shutil
import subprocess
import sys
import zipfile

from conftest import REPO


def test_wheel_builds_offline_and_runs(tmp_path):
    source = tmp_path / "src"
    # Build from a copy, so the build leaves nothing behind in the repository.
    shutil.copytree(REPO / "python", source, ignore=shutil.ignore_patterns("tests", "dist", "build", "__pycache__", "*.egg-info"))
    out = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check", "--wheel", "--outdir", str(tmp_path / "dist"), str(source)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    (wheel,) = (tmp_path / "dist").glob("agent_ledger-0.1.0-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "agent_ledger/verify/bundle.py" in names and "agent_ledger/client.py" in names
    assert not any(n.startswith("tests/") for n in names)
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    fixtures = REPO / "protocol" / "test" / "fixtures" / "exports"
    run = subprocess.run([sys.executable, "-m", "agent_ledger", "verify", str(fixtures / "cases" / "genuine-all.json"), "--jwks", str(fixtures / "jwks.json")],
                         env={**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(site)}, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("export bundle verified")
