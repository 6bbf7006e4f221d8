"""Builds this package's wheel with the standard library alone (Python 3.11+: tomllib), so that the
service can hand the wheel out from any machine that has a python3, with no pip, build or
hatchling installed: `npm start` and `cdk synth` run it (lib/client-files/, docs/CLI.md
"Installing the CLI from the service").

    python3 build_wheel.py --outdir DIR      prints the wheel's file name

What it writes is what hatchling writes for pyproject.toml's [tool.hatch.build.targets.wheel]
(tests/test_wheel.py builds that one): the packages' .py files and a .dist-info with METADATA
(core metadata 2.1, packaging.python.org "Core metadata specifications"), WHEEL, entry_points.txt,
LICENSE and RECORD (PEP 427 / packaging.python.org "Binary distribution format"). It is
reproducible: entries in a fixed order with a fixed time stamp, so one source gives one SHA-256
(the index lists it, and a deploy of unchanged sources uploads nothing new).
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import re
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# zip time stamps cannot be before 1980; every entry gets this one (as SOURCE_DATE_EPOCH would).
STAMP = (1980, 1, 1, 0, 0, 0)


def _normalized(name: str) -> str:
    """The distribution name as wheel file names spell it (PEP 427: runs of -_. become _)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _metadata(project: dict, readme: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"License: {project['license']}",
        f"Requires-Python: {project['requires-python']}",
        *(f"Requires-Dist: {dependency}" for dependency in project.get("dependencies", [])),
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(lines) + "\n\n" + readme


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build(outdir: Path) -> Path:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    packages = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    name, version = _normalized(project["name"]), project["version"]
    dist_info = f"{name}-{version}.dist-info"

    files: list[tuple[str, bytes]] = []
    for package in packages:
        source = ROOT / package
        for path in sorted(source.rglob("*.py")):
            if "__pycache__" not in path.parts:
                files.append((f"{source.name}/{path.relative_to(source).as_posix()}", path.read_bytes()))
    scripts = "".join(f"{script} = {target}\n" for script, target in project.get("scripts", {}).items())
    files += [
        (f"{dist_info}/METADATA", _metadata(project, (ROOT / project["readme"]).read_text(encoding="utf-8")).encode()),
        (f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: agent-ledger build_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{dist_info}/entry_points.txt", f"[console_scripts]\n{scripts}".encode()),
        (f"{dist_info}/LICENSE", (ROOT / "LICENSE").read_bytes()),
    ]
    record = "".join(f"{_record_line(entry, data)}\n" for entry, data in files) + f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode()))

    outdir.mkdir(parents=True, exist_ok=True)
    wheel = outdir / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for entry, data in files:
            info = zipfile.ZipInfo(entry, STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return wheel


def main() -> int:
    parser = argparse.ArgumentParser(description="Build the agent-ledger wheel with the standard library.")
    parser.add_argument("--outdir", required=True, type=Path)
    args = parser.parse_args()
    print(build(args.outdir).name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
