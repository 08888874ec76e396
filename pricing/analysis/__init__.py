"""Exact theoretical return to player of every dynamic bet (``hilo_rtp``, ``goagae_rtp``)."""

from pricing.analysis.goagae import GoaGaeReport, goagae_rtp
from pricing.analysis.hilo import HiLoReport, hilo_rtp
from pricing.analysis.report import BetReport

__all__ = ["BetReport", "GoaGaeReport", "HiLoReport", "goagae_rtp", "hilo_rtp"]
