"""`termwise doctor`: checks of everything Termwise relies on, each with its fix."""

from __future__ import annotations

from termwise.tray.system.doctor.base import CheckResult, DoctorContext, Status
from termwise.tray.system.doctor.runner import run_checks

__all__ = ["CheckResult", "DoctorContext", "Status", "run_checks"]
