"""agent-ledger for Python: sign and submit operation records to an agent-ledger service, and
verify its export bundles offline (docs/PROTOCOL.md, docs/EXPORT.md).

Written from the repository's documents and held to the same conformance vectors and export
fixtures as the TypeScript implementation.
"""
from .canonical import MAX_RECORD_DEPTH, canonical_bytes, canonicalize, parse_strict
from .client import Agent, LedgerClient, Submitted
from .errors import AgentBlockedError, CanonicalizationError, LedgerApiError, LedgerTransportError, ProtocolError
from .ledger import Ledger
from .verify import verify_export

__version__ = "0.1.0"
__all__ = [
    "Agent", "AgentBlockedError", "CanonicalizationError", "Ledger", "LedgerApiError", "LedgerClient",
    "LedgerTransportError", "MAX_RECORD_DEPTH", "ProtocolError", "Submitted", "canonical_bytes",
    "canonicalize", "parse_strict", "verify_export",
]
