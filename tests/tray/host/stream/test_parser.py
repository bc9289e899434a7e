"""StreamParser cuts marked shell output into command blocks, however it is split."""

from __future__ import annotations

import pytest
from termwise.tray.host.stream import CommandBlock, StreamParser
from termwise.tray.host.stream.parser import path_from_file_url, unescape_command


def osc(body: bytes, st: bool = False) -> bytes:
    return b"\x1b]" + body + (b"\x1b\\" if st else b"\x07")


def command(cmd: bytes, output: bytes, code: int | None, cwd: bytes = b"/home/u") -> bytes:
    """One prompt-command-output cycle as bash with the integration prints it."""
    return (
        osc(b"133;A")
        + b"\x1b[32mu@h\x1b[0m$ "
        + osc(b"133;B")
        + cmd
        + b"\r\n"
        + osc(b"133;C")
        + output
        + osc(b"7;file://h" + cwd)
        + (osc(b"133;D;%d" % code) if code is not None else osc(b"133;D"))
    )


SESSION = (
    command(b"echo hi", b"hi\r\n", 0)
    + command(b"ls /nonexistent", b"ls: cannot access '/nonexistent'\r\n", 2)
    + command(b"cd /tmp", b"", 0, b"/tmp")
    + command(b"printf 'a\\rb\\rdone\\n'", b"a\rb\rdone\r\n", 0, b"/tmp")
    + command(b"vi", b"\x1b[?1049hSECRET SCREEN\x1b[?1049lback\r\n", 0, b"/tmp")
    + osc(b"133;A")
    + b"$ "
)


def check_session(parser: StreamParser) -> None:
    blocks = parser.blocks()
    assert [b.command for b in blocks] == [
        "echo hi",
        "ls /nonexistent",
        "cd /tmp",
        "printf 'a\\rb\\rdone\\n'",
        "vi",
    ]
    assert [b.exit_code for b in blocks] == [0, 2, 0, 0, 0]
    assert [b.cwd for b in blocks] == ["/home/u", "/home/u", "/tmp", "/tmp", "/tmp"]
    assert blocks[0].text() == "hi"
    assert blocks[3].text() == "done"
    assert blocks[4].text() == "back"
    assert "SECRET" not in blocks[4].text()
    assert [b.index for b in blocks] == [0, 1, 2, 3, 4]
    assert parser.has_marks and parser.cwd == "/tmp"


def test_whole_session_in_one_read() -> None:
    """A session fed in one piece gives every command with its output, exit code and cwd."""
    parser = StreamParser()
    parser.feed(SESSION)
    check_session(parser)


def test_byte_by_byte() -> None:
    """Marks split at every possible byte boundary are still found."""
    parser = StreamParser()
    for i in range(len(SESSION)):
        parser.feed(SESSION[i : i + 1])
    check_session(parser)


@pytest.mark.parametrize("size", [2, 3, 5, 7, 13, 64])
def test_fixed_size_chunks(size: int) -> None:
    """Reads of any size give the same blocks."""
    parser = StreamParser()
    for i in range(0, len(SESSION), size):
        parser.feed(SESSION[i : i + size])
    check_session(parser)


def test_st_terminated_marks() -> None:
    """Marks ended by ESC \\ instead of BEL work the same."""
    parser = StreamParser()
    data = (
        osc(b"133;A", st=True)
        + osc(b"133;B", st=True)
        + b"false\r\n"
        + osc(b"133;C", st=True)
        + osc(b"133;D;1", st=True)
    )
    for i in range(len(data)):
        parser.feed(data[i : i + 1])
    [block] = parser.blocks()
    assert (block.command, block.exit_code) == ("false", 1)


def test_explicit_command_line_wins_over_echo() -> None:
    """The command sent in OSC 633;E (escaped) is used rather than the redrawn echo."""
    parser = StreamParser()
    parser.feed(
        osc(b"133;A")
        + osc(b"133;B")
        + b"ec\x08\x08\x1b[Kgarbled"
        + osc(b"633;E;echo a\\x3b echo b\\\\c")
        + osc(b"133;C")
        + b"a\r\n"
        + osc(b"133;D;0")
    )
    assert parser.blocks()[0].command == "echo a; echo b\\c"


def test_echoed_command_with_line_editing() -> None:
    """Without an explicit command, the echoed line is cleaned (backspace, erase)."""
    parser = StreamParser()
    parser.feed(osc(b"133;A") + osc(b"133;B") + b"ecko\x08\x08ho hi\r\n" + osc(b"133;C"))
    parser.feed(b"hi\r\n" + osc(b"133;D;0"))
    assert parser.blocks()[0].command == "echo hi"


def test_unescape_and_file_urls() -> None:
    """Command escapes and OSC 7 URLs decode to plain text and paths."""
    assert unescape_command(b"a\\x0ab\\\\\\x1b") == "a\nb\\\x1b"
    assert path_from_file_url(b"file://host/home/u/my%20dir/%C3%A9") == "/home/u/my dir/é"
    assert path_from_file_url(b"file:///C:/Users/me") == "C:/Users/me"
    assert path_from_file_url(b"http://x/y") is None


def test_alternate_screen_variants_are_kept_out() -> None:
    """Output drawn on the alternate screen (1049, 1047, 47) is not part of the block."""
    for mode in (b"1049", b"1047", b"47"):
        parser = StreamParser()
        parser.feed(osc(b"133;A") + osc(b"133;B") + b"top\r\n" + osc(b"133;C"))
        parser.feed(b"before\r\n\x1b[?" + mode + b"h")
        assert parser.in_alt_screen
        parser.feed(b"FULLSCREEN\x1b[2J\x1b[H more")
        parser.feed(b"\x1b[?" + mode + b"lafter\r\n" + osc(b"133;D;0"))
        assert not parser.in_alt_screen
        assert parser.blocks()[0].text() == "before\nafter"


def test_alternate_screen_left_on_is_reset_at_the_next_prompt() -> None:
    """A program that died in full screen does not swallow the following commands."""
    parser = StreamParser()
    parser.feed(osc(b"133;A") + osc(b"133;B") + b"crash\r\n" + osc(b"133;C") + b"\x1b[?1049hX")
    parser.feed(osc(b"133;D;139") + command(b"echo ok", b"ok\r\n", 0))
    assert [b.text() for b in parser.blocks()] == ["", "ok"]


def test_other_private_modes_pass_through() -> None:
    """Bracketed paste and cursor modes are not mistaken for the alternate screen."""
    parser = StreamParser()
    parser.feed(command(b"x", b"\x1b[?25lone\x1b[?2004h\r\n\x1b[?25h", 0))
    assert not parser.in_alt_screen
    assert parser.blocks()[0].text() == "one"


def test_utf8_split_across_reads() -> None:
    """A character split between reads arrives whole."""
    parser = StreamParser()
    data = command(b"echo \xc3\xa9\xe2\x9c\x93", "café ✓ 日本\r\n".encode(), 0)
    for i in range(len(data)):
        parser.feed(data[i : i + 1])
    block = parser.blocks()[0]
    assert block.command == "echo é✓"
    assert block.text() == "café ✓ 日本"


def test_block_ring_is_bounded_and_indices_keep_counting() -> None:
    """Only the newest max_blocks stay; their indices count every command ever run."""
    parser = StreamParser(max_blocks=3)
    for i in range(10):
        parser.feed(command(b"echo %d" % i, b"%d\r\n" % i, 0))
    blocks = parser.blocks()
    assert [b.index for b in blocks] == [7, 8, 9]
    assert [b.text() for b in blocks] == ["7", "8", "9"]
    assert [b.index for b in parser.blocks(2)] == [8, 9]
    assert parser.blocks(0) == []


def test_raw_ring_is_bounded() -> None:
    """The raw ring keeps the newest bytes only, up to its size."""
    parser = StreamParser(ring_bytes=1000)
    for i in range(100):
        parser.feed(b"%04d" % i + b"." * 96)
    tail = parser.raw_tail(10_000)
    assert len(tail) == 1000
    assert tail.startswith(b"0090") and tail.endswith(b"." * 96)
    assert parser.raw_tail(4) == b"...."


def test_huge_output_keeps_head_and_tail_with_a_note() -> None:
    """A command printing megabytes keeps its first and last lines and says what it dropped."""
    parser = StreamParser(block_bytes=64 * 1024)
    parser.feed(osc(b"133;A") + osc(b"133;B") + b"seq 1 1000000\r\n" + osc(b"133;C"))
    lines = [b"%d\r\n" % i for i in range(1, 1_000_001)]
    for i in range(0, len(lines), 5000):
        parser.feed(b"".join(lines[i : i + 5000]))
    parser.feed(osc(b"133;D;0"))
    block = parser.blocks()[0]
    text = block.text()
    assert len(block.output) < 70 * 1024
    assert text.startswith("1\n2\n3\n")
    assert text.endswith("999999\n1000000")
    assert "bytes of output dropped by termwise" in text
    dropped = int(text.split("[... ")[1].split(" bytes")[0])
    total = sum(len(x) for x in lines)
    head, _, tail = block.output.partition(b"\r\n[... ")
    tail = tail.split(b"...]\r\n", 1)[1]
    assert dropped + len(head) + len(tail) == total  # every byte kept or counted
    assert block.dropped > 0


def test_no_marks_gives_the_last_screenful() -> None:
    """An unknown shell without marks still yields the last screen of clean text."""
    parser = StreamParser()
    for i in range(100):
        parser.feed(b"\x1b[33mline %d\x1b[0m\r\n" % i)
    parser.feed(b"$ ")
    assert not parser.has_marks
    assert parser.blocks() == []
    screen = parser.screen_text(rows=5, cols=80).split("\n")
    assert screen == ["line 96", "line 97", "line 98", "line 99", "$"]


def test_screen_text_wraps_at_the_width() -> None:
    """Lines longer than the terminal wrap as they would on screen."""
    parser = StreamParser()
    parser.feed(b"x" * 25 + b"\r\n$ ")
    assert parser.screen_text(rows=4, cols=10).split("\n") == ["x" * 10, "x" * 10, "x" * 5, "$"]


def test_cmd_style_prompt_without_c_mark() -> None:
    """cmd.exe can only mark prompts: the first echoed line is the command, the rest output."""
    parser = StreamParser()
    prompt = (
        osc(b"133;D")
        + osc(b"133;A")
        + osc(b"9;9;C:\\Users\\me")
        + b"C:\\Users\\me>"
        + osc(b"133;B")
    )
    parser.feed(prompt + b"dir nothing\r\nFile Not Found\r\n\r\n" + prompt + b"\r\n" + prompt)
    [block] = parser.blocks()
    assert block.command == "dir nothing"
    assert block.text() == "File Not Found"
    assert block.exit_code is None
    assert parser.cwd == "C:\\Users\\me"


def test_on_block_listener_and_its_failures() -> None:
    """Each finished block is reported once; a failing listener does not stop parsing."""
    seen: list[CommandBlock] = []

    def listener(block: CommandBlock) -> None:
        seen.append(block)
        raise RuntimeError("listener bug")

    parser = StreamParser(on_block=listener)
    parser.feed(command(b"a", b"1\r\n", 0) + command(b"b", b"2\r\n", 1))
    assert [b.command for b in seen] == ["a", "b"]
    assert len(parser.blocks()) == 2


def test_running_block_and_clock() -> None:
    """While a command runs its output so far is visible; times come from the clock."""
    ticks = iter([10.0, 12.5])
    parser = StreamParser(clock=lambda: next(ticks))
    parser.feed(osc(b"133;A") + osc(b"133;B") + b"make\r\n" + osc(b"133;C") + b"building\r\n")
    running = parser.running_block()
    assert running is not None and running.ended is None and running.text() == "building"
    parser.feed(osc(b"133;D;0"))
    assert parser.running_block() is None
    block = parser.blocks()[0]
    assert (block.started, block.ended) == (10.0, 12.5)
    assert block.to_json() == {
        "command": "make",
        "exit_code": 0,
        "cwd": None,
        "output": "building",
        "started": 10.0,
        "ended": 12.5,
    }
    agent = block.to_agent_block()
    assert (agent.command, agent.output, agent.exit_code) == ("make", "building", 0)


def test_unterminated_foreign_osc_does_not_swallow_output() -> None:
    """An OSC that never ends is passed on after its size limit; later marks still work."""
    parser = StreamParser()
    parser.feed(osc(b"133;A") + osc(b"133;B") + b"cat junk\r\n" + osc(b"133;C"))
    parser.feed(b"\x1b]52;c;" + b"A" * 70_000)
    parser.feed(b"\r\nvisible\r\n" + osc(b"133;D;0"))
    block = parser.blocks()[0]
    assert block.exit_code == 0
    assert "visible" in block.text()


def test_new_command_without_d_closes_the_previous_block() -> None:
    """A prompt mark during a running command (no D seen) ends it with no exit code."""
    parser = StreamParser()
    parser.feed(osc(b"133;A") + osc(b"133;B") + b"sleep\r\n" + osc(b"133;C") + b"zz\r\n")
    parser.feed(command(b"echo next", b"next\r\n", 0))
    assert [(b.command, b.exit_code) for b in parser.blocks()] == [
        ("sleep", None),
        ("echo next", 0),
    ]


def test_end_of_stream_finishes_the_running_command() -> None:
    """When the shell ends mid-command (`exit 3`), that command gets the shell's status."""
    seen: list[CommandBlock] = []
    parser = StreamParser(on_block=seen.append)
    parser.feed(osc(b"133;A") + osc(b"133;B") + b"exit 3\r\n" + osc(b"133;C") + b"exit\r\n")
    block = parser.end_of_stream(3)
    assert block is not None and (block.command, block.exit_code, block.text()) == (
        "exit 3",
        3,
        "exit",
    )
    assert seen == [block]
    assert parser.end_of_stream(3) is None  # nothing left running


def test_end_of_stream_flushes_a_held_back_tail() -> None:
    """Bytes held back as a possible escape start are not lost when the stream ends."""
    parser = StreamParser()
    parser.feed(b"no marks here \x1b")
    parser.end_of_stream()
    assert parser.raw_tail(100).endswith(b"\x1b")
    assert parser.screen_text() == "no marks here"


@pytest.mark.parametrize("size", [4800, 1_000_000])
def test_a_broken_osc_does_not_swallow_output_up_to_a_distant_bell(size: int) -> None:
    """An OSC opener whose terminator comes far later leaves the output in between."""
    parser = StreamParser(block_bytes=4 * 1024 * 1024)
    parser.feed(osc(b"133;A") + osc(b"133;B") + b"cat log\r\n" + osc(b"133;C"))
    body = b"\x1b]0;broken title\r\n" + b"log line\r\n" * 10_000 + b"bell\x07\r\n"
    data = body + osc(b"133;D;0")
    for i in range(0, len(data), size):
        parser.feed(data[i : i + size])
    text = parser.blocks()[0].text()
    assert text.count("log line") == 10_000


def test_command_line_carried_on_the_c_mark() -> None:
    """kitty/WezTerm-style `133;C;cmdline_url=...` names the command too."""
    parser = StreamParser()
    parser.feed(osc(b"133;A") + osc(b"133;B") + b"garbled echo")
    parser.feed(osc(b"133;C;cmdline_url=git%20log%20--oneline%3B%20ls") + osc(b"133;D;0"))
    parser.feed(osc(b"133;A") + osc(b"133;B") + osc(b"133;C;cmdline=make all") + osc(b"133;D;2"))
    assert [(b.command, b.exit_code) for b in parser.blocks()] == [
        ("git log --oneline; ls", 0),
        ("make all", 2),
    ]


@pytest.mark.parametrize("split", [1, 3, 7, 1000])
def test_the_shells_path_is_read_back_whole_however_split(split: int) -> None:
    """PATH travels escaped (a Windows PATH is full of ';'); the newest report wins and the
    text printed around it is untouched."""
    # as the integration sends it: backslash doubled, ';' as \x3b
    first = b"C:\\\\Program Files\\\\Git\\\\cmd\\x3bC:\\\\Tools\\x3b/opt/a b"
    second = b"/home/u/.venv/bin:/usr/bin"
    one = b"before " + osc(b"633;P;TermwisePath=" + first) + b"middle "
    two = osc(b"633;P;TermwisePath=" + second, st=True) + b"after"
    parser = StreamParser()
    for part in (one, two):
        for i in range(0, len(part), split):
            parser.feed(part[i : i + split])
        if part is one:
            assert parser.shell_path == "C:\\Program Files\\Git\\cmd;C:\\Tools;/opt/a b"
    assert parser.shell_path == "/home/u/.venv/bin:/usr/bin"
    assert parser.screen_text() == "before middle after"
