"""Exact theoretical return to player of every dynamic bet (``hilo_rtp``, ...)."""

from pricing.analysis.hilo import HiLoReport, hilo_rtp
from pricing.analysis.report import BetReport

__all__ = ["BetReport", "HiLoReport", "hilo_rtp"]
