"""A finding: one thing wrong or risky in a declared cluster, pointing at a file and line."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

SEVERITIES = ("error", "warning", "info")
_RANK = {"info": 0, "warning": 1, "error": 2}


def at_least(severity: str, threshold: str) -> bool:
    return _RANK[severity] >= _RANK[threshold]


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    message: str
    file: str
    line: int | None = None
    suppressed: bool = False
    resource: str | None = None  # a Pulumi URN, when the finding comes from a deployed program
    fix: str | None = None  # what to change in this stack (key, value), when the rule can say; else its remediation

    def suppress(self) -> "Finding":
        return replace(self, suppressed=True)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "suppressed": self.suppressed,
        }
        if self.resource is not None:
            out["resource"] = self.resource
        if self.fix is not None:
            out["fix"] = self.fix
        return out

    def sort_key(self) -> tuple[Any, ...]:
        return (self.file, self.line or 0, -_RANK[self.severity], self.rule, self.message)
