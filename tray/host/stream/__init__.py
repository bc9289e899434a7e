"""Stream parsing of shell output: OSC 133 / OSC 7 marks, command blocks, clean text."""

from __future__ import annotations

from termwise.tray.host.stream.blocks import CommandBlock
from termwise.tray.host.stream.clean import clean_text
from termwise.tray.host.stream.parser import StreamParser
from termwise.tray.host.stream.ring import ByteRing, HeadTailBuffer

__all__ = ["ByteRing", "CommandBlock", "HeadTailBuffer", "StreamParser", "clean_text"]
