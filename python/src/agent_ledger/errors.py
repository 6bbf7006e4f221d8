"""The errors this package raises, one class per kind of failure a caller may treat apart."""


class ProtocolError(ValueError):
    """Input that breaks a rule of docs/PROTOCOL.md (not JSON, not canonical, a bad key...)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class CanonicalizationError(ProtocolError):
    """A value that has no RFC 8785 canonical form under the protocol's limits."""

    def __init__(self, message: str):
        super().__init__("CANONICALIZATION", message)


class LedgerApiError(Exception):
    """An error answer of the service: the docs/API.md §7 envelope `{error: {code, message}}`."""

    def __init__(self, status: int, code: str, message: str, retry_after_ms: int | None = None):
        super().__init__(f"{code} ({status}): {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retry_after_ms = retry_after_ms


class LedgerTransportError(Exception):
    """The service could not be reached, or answered something that is not the API."""


class AgentBlockedError(LedgerApiError):
    """The agent may not act: it is frozen or revoked (AGENT_FROZEN, AGENT_REVOKED), or its key is
    revoked or retired. The action it asked to record must not run."""
