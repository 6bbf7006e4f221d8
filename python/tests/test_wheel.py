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


def test_standard_library_wheel_matches_hatchlings(tmp_path):
    """build_wheel.py (what the service hands out, lib/client-files/) holds the same files as the
    hatchling wheel, byte for byte, with a RECORD that lists each with its hash, and it is
    reproducible: two builds, one SHA-256."""
    import base64
    import hashlib

    source = tmp_path / "src"
    shutil.copytree(REPO / "python", source, ignore=shutil.ignore_patterns("tests", "dist", "build", "__pycache__", "*.egg-info"))
    out = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check", "--wheel", "--outdir", str(tmp_path / "hatch"), str(source)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    (hatch,) = (tmp_path / "hatch").glob("*.whl")
    wheels = []
    for n in (1, 2):
        run = subprocess.run([sys.executable, str(REPO / "python" / "build_wheel.py"), "--outdir", str(tmp_path / f"std{n}")], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == hatch.name
        wheels.append(tmp_path / f"std{n}" / hatch.name)
    assert hashlib.sha256(wheels[0].read_bytes()).hexdigest() == hashlib.sha256(wheels[1].read_bytes()).hexdigest()

    ours, theirs = zipfile.ZipFile(wheels[0]), zipfile.ZipFile(hatch)
    package = lambda archive: {n: archive.read(n) for n in archive.namelist() if not n.startswith("agent_ledger-")}
    assert package(ours) == package(theirs)
    dist_info = "agent_ledger-0.1.0.dist-info"
    assert ours.read(f"{dist_info}/entry_points.txt") == theirs.read(f"{dist_info}/entry_points.txt")
    record = [line.split(",") for line in ours.read(f"{dist_info}/RECORD").decode().splitlines()]
    assert sorted(name for name, _, _ in record) == sorted(ours.namelist())
    for name, digest, size in record:
        if name.endswith("RECORD"):
            continue
        data = ours.read(name)
        assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode() and int(size) == len(data)
    metadata = ours.read(f"{dist_info}/METADATA").decode()
    assert "Requires-Dist: cryptography>=38" in metadata and "Requires-Python: >=3.11" in metadata
