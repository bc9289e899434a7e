"""Stream parsing of shell output: OSC 133 / OSC 7 marks, command blocks, clean text."""
