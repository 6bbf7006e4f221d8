"""The integration pattern of docs/API.md §1 for Python agents: submit the record, run the
action only once the receipt is in, record the outcome if asked. A frozen or revoked agent
raises AgentBlockedError and the action does not run."""
from __future__ import annotations

import functools
import json
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

from .client import Agent, LedgerClient, Submitted

F = TypeVar("F", bound=Callable[..., Any])


def _jsonable(value: Any) -> Any:
    """The value as JSON would carry it (anything else as its repr), for a payload."""
    return json.loads(json.dumps(value, default=repr, allow_nan=False))


class Ledger:
    """One agent's recorder.

    >>> ledger = Ledger(LedgerClient.from_login(), Agent.load("py-bot"))
    >>> @ledger.recorded("tool.invoke")
    ... def run_shell(command: str) -> str: ...
    >>> with ledger.record("deploy.release", subject={"kind": "service", "id": "api"}, action={"verb": "deploy", "target": "prod"}):
    ...     deploy()
    """

    def __init__(self, client: LedgerClient, agent: Agent, subject: dict[str, Any] | None = None):
        self.client = client
        self.agent = agent
        self.subject = subject or {"kind": "agent", "id": agent.agent_id}
        # The last record this recorder submitted, with its receipt.
        self.last: Submitted | None = None

    def submit(self, operation_type: str, *, subject: dict[str, Any] | None = None, action: dict[str, Any], payload: Any = None) -> Submitted:
        self.last = self.client.submit(self.agent, operation_type, subject=subject or self.subject, action=action, payload=payload)
        return self.last

    @contextmanager
    def record(self, operation_type: str, *, action: dict[str, Any], subject: dict[str, Any] | None = None, payload: Any = None, outcome: bool = False) -> Iterator[Submitted]:
        """Submits the record on entry (the block runs only once the receipt is in); with
        `outcome=True`, records `<operation_type>.result` with `ok` and the error, if any."""
        submitted = self.submit(operation_type, subject=subject, action=action, payload=payload)
        try:
            yield submitted
        except BaseException as error:
            if outcome:
                self.submit(f"{operation_type}.result", subject=subject, action={**action, "of": submitted.record["operation_id"]}, payload={"ok": False, "error": repr(error)})
            raise
        if outcome:
            self.submit(f"{operation_type}.result", subject=subject, action={**action, "of": submitted.record["operation_id"]}, payload={"ok": True})

    def recorded(self, operation_type: str = "tool.invoke", *, subject: dict[str, Any] | None = None, outcome: bool = False) -> Callable[[F], F]:
        """Decorates a tool function: each call is recorded (verb = the function's name, the
        arguments as payload) before the function runs."""

        def decorate(function: F) -> F:
            @functools.wraps(function)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                action = {"verb": function.__name__, "target": str(args[0])[:1024] if args else ""}
                payload = {"args": _jsonable(list(args)), "kwargs": _jsonable(kwargs)}
                with self.record(operation_type, subject=subject, action=action, payload=payload, outcome=outcome):
                    return function(*args, **kwargs)

            return wrapper  # type: ignore[return-value]

        return decorate
