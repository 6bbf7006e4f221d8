"""The offline verifier of export bundles (docs/EXPORT.md)."""
from .bundle import BUNDLE_VERSION, verify_export
from .report import CHECKS, Finding, Report

__all__ = ["BUNDLE_VERSION", "CHECKS", "Finding", "Report", "verify_export"]
