"""Where the repository's shared files are: the conformance vectors every implementation runs."""
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "protocol" / "test" / "vectors"


def load_vectors(name: str):
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


@pytest.fixture
def repo() -> Path:
    return REPO
