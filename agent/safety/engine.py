"""The rules engine: walks parsed scripts, applies the data rules and collects findings."""

from __future__ import annotations

import posixpath
import re

from termwise.agent.safety import (
    configured,
    previews,
    recurse,
    shellwords,
    stdin_code,
)
from termwise.agent.safety.downloads import downloaded_then_run, written_then_run
from termwise.agent.safety.flags import Invocation, read_invocation
from termwise.agent.safety.held import Held
from termwise.agent.safety.model import SEVERITY, Command, Family, Finding, Level, Redirect, Script
from termwise.agent.safety.rules import VERB_WORDS, CommandSpec, RuleSet, load_rules
from termwise.agent.safety.sedscript import sed_effects

MAX_DEPTH = 40  # shells inside shells, wrappers inside wrappers
MAX_MESSAGE = 160
MAX_REVIEW = 20_000  # longer inputs are at least "confirm", and skip the raw-text rules
TEXT_BUDGET = 50_000
FLATTEN_AT = 20  # substitutions deeper than this are checked flat, without more recursion
_WIN_SUFFIX = re.compile(r"\.(exe|com|cmd|bat)$", re.I)


class Analyzer:
    """Collects findings over one `classify` call (a fresh object per call; not shared)."""

    def __init__(self, budget: int = TEXT_BUDGET) -> None:
        self.findings: list[Finding] = []
        self.budget = budget  # characters of nested text still worth parsing (iex iex iex …)
        # The folder an earlier `cd` on the line moved to (None: where the line starts), so
        # `cd ~/.ssh && rm id_rsa` is read as `rm ~/.ssh/id_rsa`.
        self.cwd: str | None = None
        # A line that sets TMPDIR (TMP, TEMP) itself: $TMPDIR no longer means the temp folder.
        self.temp_reassigned = False
        self.links: dict[str, str] = {}  # symlinks made on the line: link → target
        self.held = Held()  # x='…', Set-Alias x …: what later commands on the line may run

    def add(self, level: Level, rule: str, message: str, at: int | None = None) -> None:
        """A finding, at the end of the reasons or before the one at index `at`."""
        if len(message) > MAX_MESSAGE:  # a 100 kB "command name" must not flood the reasons
            message = message[: MAX_MESSAGE - 1] + "…"
        finding = Finding(level, rule, message)
        if at is None:
            self.findings.append(finding)
        else:
            self.findings.insert(at, finding)

    # --- text and scripts -------------------------------------------------------------

    def text_for(
        self, text: str, family: Family, depth: int, why: str, rule: str = "runs-given-line"
    ) -> None:
        """Judge `text` as a line another command runs (a git setting, a trap, a file just
        written); when it is risky, `why` leads its reasons so they say where it comes from."""
        start = len(self.findings)
        self.text(text, family, depth)
        level = verdict_level(self.findings[start:])
        if level != "safe":
            self.add(level, rule, why, at=start)

    def text(self, text: str, family: Family, depth: int = 0) -> None:
        """Parse `text` as `family` and analyse everything it would run."""
        if depth > MAX_DEPTH:
            self.add("confirm", "too-deep", "commands nested too deeply to review")
            return
        if depth > 0 and len(text) > self.budget:
            self.add("confirm", "too-long", "too much nested code to review")
            return
        self.budget -= len(text) if depth > 0 else 0
        if family == "powershell" and ("'" in text or '"' in text):  # iex ('rm' + ' -r …')
            from termwise.agent.safety.powershell import joined_strings

            text = joined_strings(text)
        if len(text) > MAX_REVIEW:
            self.add("confirm", "too-long", f"{len(text)} characters are more than anyone reviews")
        rules = load_rules(family)
        if _SETS_TEMP.search(text):
            self.temp_reassigned = True
        if len(text) <= MAX_REVIEW:  # pattern rules stay fast on anything a person could read
            # PowerShell: not in comments or single-quoted strings (data, unless run as code)
            scan = text
            if family == "powershell":  # imported here: only PowerShell lines need it
                from termwise.agent.safety.powershell import code_text

                scan = code_text(text)
            lowered = text.lower()
            for text_rule in rules.texts:
                if text_rule.requires_any and not any(w in lowered for w in text_rule.requires_any):
                    continue
                if shellwords.matches_in_code(text_rule.regex, text, scan):
                    self.add(text_rule.level, text_rule.id, text_rule.message)
        script = parse(text, family)
        if not script.pipelines and not script.problems:
            if depth == 0:
                self.add("confirm", "empty", "there is no command to check")
            return
        self.script(script, rules, depth)

    def script(self, script: Script, rules: RuleSet, depth: int) -> None:
        for problem in script.problems:
            self.add("confirm", "unparsed", problem)
        self.findings.extend(script.findings)
        for target in downloaded_then_run(script):
            self.add("dangerous", "remote-code-exec", f"runs {target}, a file it just downloaded")
        for text in written_then_run(script):  # echo 'rm -rf ~' > x.sh && sh x.sh
            self.text_for(text, rules.family, depth + 1, f"runs a file this line wrote: `{text}`")
        for pipeline in script.pipelines:
            self.pipeline(pipeline, rules, depth)
            if len(pipeline) == 1:
                self._follow_cd(pipeline[0], rules)
                if rules.family == "posix":
                    self._follow_ln(pipeline[0].words)

    def _follow_cd(self, command: Command, rules: RuleSet) -> None:
        """After `cd DIR`, relative paths are read from DIR (unknown after `cd $X` or `cd -`)."""
        words = command.words
        if not words or _fold(words[0], rules) not in _CD_WORDS:
            return
        args = [w for w in words[1:] if not (w[:1] == "-" or w.lower() == "/d")]
        dynamic = any(command.dynamic[1:])
        target = args[0] if args else ("~" if rules.family == "posix" else None)
        if target is None or dynamic or target == "-":
            self.cwd = None
            return
        if self.cwd is not None:
            target = shellwords.from_folder(self.cwd, target, rules.family)
        self.cwd = target if not shellwords.relative(target, rules.family) else None

    def _follow_ln(self, words: list[str]) -> None:
        """After `ln -s /etc /tmp/x`, a path under /tmp/x is read as under /etc."""
        made = shellwords.symlink_made(words)
        if made:
            target, link = made
            link = posixpath.normpath(self.path(link, "posix"))
            if shellwords.relative(target, "posix"):
                target = posixpath.join(posixpath.dirname(link), target)  # relative to the link
            self.links[link] = target

    def path(self, value: str, family: Family) -> str:
        """A path argument as rules compare it, read from the folder a `cd` moved to and
        through symlinks made earlier on the line."""
        if self.cwd is not None and value:
            value = shellwords.from_folder(self.cwd, value, family)
        if self.links and family == "posix":
            value = shellwords.through_links(value, self.links)
        return shellwords.normalize_path(value, family)

    def pipeline(self, pipeline: list[Command], rules: RuleSet, depth: int) -> None:
        names = [self.names(c, rules) for c in pipeline]
        for rule in rules.pipelines:
            for i, upstream in enumerate(names):
                if upstream & rule.sources and any(n & rule.sinks for n in names[i + 1 :]):
                    self.add(rule.level, rule.id, rule.message)
                    break
        for i, command in enumerate(pipeline):
            self.command(command, rules, depth)
            if i + 1 < len(pipeline):
                stdin_code.fed_as_script(
                    self, command, names[i + 1 :], pipeline[i + 1], rules.family, depth
                )
            if i > 0:
                stdin_code.reads_code_from_pipe(self, command, rules)

    def names(self, command: Command, rules: RuleSet) -> set[str]:
        """Every program name the command would start, through wrappers and nested scripts."""
        found: set[str] = set()
        if command.words:
            found.update(recurse.chain(command.words, rules))
        else:
            for nested in command.nested:
                for pipe in nested.pipelines:
                    for inner in pipe:
                        found |= self.names(inner, rules)
        return found

    # --- one command ------------------------------------------------------------------

    def command(self, command: Command, rules: RuleSet, depth: int) -> None:
        outer_cwd = self.cwd  # a cd inside ( … ) or $( … ) stays there
        for nested in command.nested:
            if depth < FLATTEN_AT:
                self.script(nested, rules, depth + 1)
            else:
                for inner in flatten(nested):
                    self.command(inner, rules, depth)
            self.cwd = outer_cwd
        if command.words and command.nested:
            self._fed_by_download(command, rules)
        self.redirects(command.redirects, rules)
        for assignment in command.assignments:
            configured.variable(self, assignment, command.stdin_text, depth)  # GIT_SSH_COMMAND
            var = assignment.split("=", 1)[0].rstrip("+")
            for env_rule in rules.env:
                if env_rule.names.match(_fold(var, rules)):
                    self.add(env_rule.level, env_rule.id, f"{var}: {env_rule.message}")
        if command.stdin_text:
            stdin_code.stdin_script(self, command, rules, depth)
        if command.stdin_text is not None or any(r.op == "<" for r in command.redirects):
            stdin_code.reads_code_from_pipe(self, command, rules, "given on its input")
        words = command.words
        if command.assignments and words:
            words = shellwords.temp_assignment(command.assignments, words)
        if words:
            line = self.held.line_for(words, command.dynamic, rules.family)
            if line is not None:  # x='rm -rf ~'; $x
                self.text_for(line[0], rules.family, depth + 1, line[1], "held-value")
            self.argv(words, command.dynamic, rules, depth)
        elif command.assignments and not command.redirects and not command.nested:
            self.add("safe", "assignment", "only sets a shell variable")
        elif not command.assignments and not command.redirects and not command.nested:
            self.add("safe", "expression", "only evaluates a value")
        self.held.record(command, rules.family)

    def _fed_by_download(self, command: Command, rules: RuleSet) -> None:
        """`bash -c "$(curl …)"`, `sh <(wget …)`, `iex (iwr …)`: downloaded code runs directly."""
        own = self.names(Command(words=command.words, dynamic=command.dynamic), rules)
        inner: set[str] = set()
        for nested in command.nested:
            for pipe in nested.pipelines:
                for c in pipe:
                    inner |= self.names(c, rules)
        for rule in rules.pipelines:
            if own & rule.sinks and inner & rule.sources:
                self.add(rule.level, rule.id, rule.message)

    def redirects(self, redirects: list[Redirect], rules: RuleSet) -> None:
        for redirect in redirects:
            if redirect.op.startswith("<"):
                continue
            words = (
                shellwords.braced([redirect.target])
                if rules.family == "posix"
                else [redirect.target]
            )
            targets = [self.path(w, rules.family) for w in words]
            if rules.harmless_targets is not None and all(
                rules.harmless_targets.match(t) for t in targets
            ):
                continue
            fired = False
            for rule in rules.redirects:
                if redirect.op in rule.ops and any(rule.targets.match(t) for t in targets):
                    self.add(rule.level, rule.id, f"{rule.message} ({redirect.target})")
                    fired = True
            if not fired:
                verb = "appends to" if ">>" in redirect.op else "overwrites"
                self.add("confirm", "redirect-write", f"{verb} {redirect.target}")

    def argv(self, words: list[str], dynamic: list[bool], rules: RuleSet, depth: int) -> None:
        """Analyse one argument vector: wrappers and interpreters recurse, the rest meets rules."""
        if depth > MAX_DEPTH:
            self.add("confirm", "too-deep", "commands nested too deeply to review")
            return
        if not words:
            return
        if dynamic and dynamic[0]:
            self.add(
                "confirm",
                "dynamic-command",
                f"the program name comes from an expansion ({words[0]})",
            )
            self._computed_word(words, dynamic, rules, depth)
            return
        name = resolve_name(words[0], rules)
        args = words[1:]
        if not name:
            self.add("confirm", "unknown-command", "empty program name")
            return
        if name != words[0] and not _trusted_location(words[0], rules):
            # /tmp/x/ls is not the system ls: a path outside the system folders is unknown code.
            self.add("confirm", "untrusted-path", f"{words[0]} is not in a system folder")
        if not name.isascii():
            self.add(
                "confirm",
                "lookalike-name",
                f"{words[0]!r} has non-ASCII letters; it is not the command it resembles",
            )
        if name.startswith("git-") and _is_git_subcommand(name[4:], rules):
            # git-reset, /usr/libexec/git-core/git-push: git's own programs for its subcommands
            self.argv(["git", name[4:], *args], [False, False, *dynamic[1:]], rules, depth + 1)
            return
        if recurse.handle(self, name, args, dynamic[1:], rules, depth):
            return
        spec = rules.spec_for(name)
        if spec is not None and previews.only_help(
            args, bool(spec.subcommands or spec.readonly_verbs), spec.help_words
        ):
            self.add("safe", "help", f"{name} {' '.join(args)} only prints help or its version")
            return
        canonical = spec.name if spec is not None else name
        if rules.family == "powershell" and previews.cmdlet_preview(canonical, args):
            self.add("confirm", "whatif", f"{words[0]} -WhatIf only shows what it would change")
            return
        inv = read_invocation(name, spec, args)
        shown = previews.preview_switch(spec, inv, canonical) if spec is not None else None
        if shown:
            self.add("safe", "preview", shown)
            return  # the rules judge what it would do; a preview does none of it
        if canonical == "rm" and rules.family == "posix" and shellwords.rm_asks(args):
            inv.flags.discard("force")  # rm -rf -i: the last of -f and -i wins; it asks
        self.apply_rules(inv, canonical, rules)
        if canonical == "dd" and rules.family == "posix":
            # dd's `of=` is where it writes: the same targets matter as for `>`.
            self.redirects(_dd_outputs(args), rules)
        if spec is not None and spec.name == "sed":  # its script language can write and run
            lines: list[str] = []
            for rule_id, message in sed_effects(args, dynamic[1:], lines):
                self.add("confirm", rule_id, message)
            for line in lines:
                self.text_for(line, "posix", depth + 1, f"sed runs `{line}`")
        self.base_level(inv, spec)

    def _computed_word(
        self, words: list[str], dynamic: list[bool], rules: RuleSet, depth: int
    ) -> None:
        """`$(echo rm) -rf /`, `$x -rf ~`: with destructive arguments, assume the worst program."""
        literal = shellwords.echoed_word(words[0])
        candidates = [literal] if literal else list(rules.computed_candidates)
        if literal is None and len(words) > 1 and not dynamic[1] and _WRAPPER_VAR.search(words[0]):
            # `$SUDO rm -rf /tmp/x`: a variable named like a wrapper runs the command after it
            self.argv(words[1:], dynamic[1:], rules, depth + 1)
            return
        for candidate in candidates:
            trial = Analyzer(budget=min(self.budget, 5_000))
            trial.argv([candidate, *words[1:]], [False, *dynamic[1:]], rules, depth + 1)
            if verdict_level(trial.findings) == "dangerous":
                reasons = [f.message for f in trial.findings if f.level == "dangerous"]
                self.add(
                    "dangerous",
                    "dynamic-command-destructive",
                    f"the program name is computed when it runs; as {candidate} this "
                    f"{reasons[0] if reasons else 'is destructive'}",
                )
                return

    def apply_rules(self, inv: Invocation, canonical: str, rules: RuleSet) -> None:
        joined = " ".join(inv.args)
        joined_sub = " ".join(inv.sub_args)
        values = shellwords.expanded(inv.values, rules.family)
        positionals = shellwords.expanded(inv.positionals, rules.family)
        for rule in rules.rules_for(canonical):
            if rule.subcommands and (
                inv.subcommand is None or _fold(inv.subcommand, rules) not in rule.subcommands
            ):
                continue
            if rule.flags_all and not rule.flags_all <= inv.flags:
                continue
            if rule.flags_any and not rule.flags_any & inv.flags:
                continue
            if rule.global_flags_any and not rule.global_flags_any & inv.global_flags:
                continue
            if rule.flags_none and rule.flags_none & inv.flags:
                continue
            if rule.args_any is not None and not any(
                rule.args_any.match(self.path(v, rules.family)) for v in values
            ):
                continue
            text = joined_sub if rule.subcommands else joined
            if rule.argv_regex is not None and not rule.argv_regex.search(text):
                continue
            if len(inv.positionals) < rule.min_positionals:
                continue
            if rule.verbs_any is not None and not any(
                rule.verbs_any.fullmatch(w) for w in inv.positionals[:VERB_WORDS]
            ):
                continue
            paths = [self.path(v, rules.family) for v in positionals]
            if rule.unless_all_args is not None and paths:
                if all(rule.unless_all_args.match(p) and self._trusted_temp(p) for p in paths):
                    continue
            if rule.all_args is not None and not (
                paths and all(rule.all_args.match(p) for p in paths)
            ):
                continue
            if rule.last_arg_any is not None and not (paths and rule.last_arg_any.match(paths[-1])):
                continue
            self.add(rule.level, rule.id, rule.message)

    def _trusted_temp(self, path: str) -> bool:
        """`/tmp/{a,../etc}` and `$TMPDIR/x` after `TMPDIR=/` are not under the temp folder."""
        if ".." in path:
            return False
        return not (self.temp_reassigned and path.lstrip("\"'").startswith(("$T", "%T", "$env:T")))

    def base_level(self, inv: Invocation, spec: CommandSpec | None) -> None:
        """The verdict a command earns by what it is, before any pattern rule."""
        name = inv.name
        if spec is None:
            self.add("confirm", "unknown-command", f"{name} is not a known read-only command")
            return
        if spec.subcommands:
            if inv.subcommand is None:
                if spec.safe_without_subcommand:
                    self.add("safe", "known-safe", name)
                else:
                    self.add("confirm", "unknown-subcommand", f"{name} without a known subcommand")
                return
            sub = inv.sub_spec
            label = " ".join(w for w in (name, inv.subcommand, inv.nested) if w)
            if sub is None:
                self.add("confirm", "unknown-subcommand", f"{label} is not known to be read-only")
                return
            self._spec_level(sub, inv, label)
            return
        self._spec_level(spec, inv, name)

    def _spec_level(self, spec: CommandSpec, inv: Invocation, label: str) -> None:
        if spec.readonly_verbs is not None:
            words = inv.positionals[:4]
            changing = spec.changing_verbs
            if any(spec.readonly_verbs.match(w) for w in words) and not (
                changing is not None and any(changing.match(w) for w in words)
            ):
                self.add("safe", "known-safe", f"{label} {' '.join(words[:3])}".strip())
            else:
                self.add("confirm", "changes", spec.message or f"{label} changes things")
            return
        if spec.level is not None:
            # the id names the rule, not the spelling typed (DELETE and delete are one rule)
            rule_id = label.replace(" ", "-").lower()
            self.add(spec.level, rule_id, spec.message or f"{label} changes things")
        elif spec.safe:
            bad = spec.unsafe_flags & inv.flags
            if bad:
                typed = ", ".join(sorted(inv.raw_flags.get(b, b) for b in bad))
                self.add("confirm", "writes", f"{label} with {typed} changes things")
            elif spec.safe_args is not None and not set(_own_args(inv, spec)) <= spec.safe_args:
                what = spec.message or "runs code or changes things with these arguments"
                self.add("confirm", "changes", f"{label} {what}")
            elif spec.max_positionals is not None and len(inv.positionals) > spec.max_positionals:
                what = spec.message or "may write files with these arguments"
                self.add("confirm", "writes", f"{label} {what}")
            else:
                self.add("safe", "known-safe", label)
        else:
            self.add("confirm", "changes", spec.message or f"{label} changes things")


_CD_WORDS = frozenset({"cd", "pushd", "chdir", "set-location", "sl", "push-location"})
_SETS_TEMP = re.compile(r"(?i)(^|[\s;&|(])(\$env:)?(TMPDIR|TMP|TEMP)\s*=|\bset\s+\"?(TMP|TEMP)=")


def _is_git_subcommand(word: str, rules: RuleSet) -> bool:
    git = rules.spec_for("git")
    return git is not None and word in git.subcommands


def _own_args(inv: Invocation, spec: CommandSpec) -> list[str]:
    """The arguments a spec judges: a subcommand's are those after its name."""
    return inv.sub_args if spec is inv.sub_spec else inv.args


_WRAPPER_VAR = re.compile(
    r"(?i)^\$\{?(sudo|doas|su_cmd|as_root|priv\w*|\w*_?prefix|run_?as|maybe_sudo)\}?$"
)


def flatten(script: Script) -> list[Command]:
    """Every command of a script and its substitutions, without their nesting (iterative)."""
    found: list[Command] = []
    stack = [script]
    while stack:
        current = stack.pop()
        for pipeline in current.pipelines:
            for command in pipeline:
                stack.extend(command.nested)
                found.append(
                    Command(command.words, command.dynamic, command.assignments, command.redirects)
                )
    return found


def _trusted_location(word: str, rules: RuleSet) -> bool:
    """True when `word` names no folder, or a folder the rules list as a system one."""
    cut = max(word.rfind("/"), word.rfind("\\"))
    if cut < 0:
        return True
    folder = shellwords.normalize_path(word[:cut] or "/", rules.family)
    return rules.trusted_dirs is not None and rules.trusted_dirs.match(folder) is not None


def _fold(text: str, rules: RuleSet) -> str:
    return text.lower() if rules.case_insensitive else text


def resolve_name(word: str, rules: RuleSet) -> str:
    """`/usr/bin/sudo` → sudo; `C:\\Windows\\System32\\CMD.EXE` → cmd (case folded on Windows)."""
    name = word
    windowsy = rules.case_insensitive or "\\" in name or _WIN_SUFFIX.search(name) is not None
    if windowsy:
        name = re.split(r"[\\/]", name)[-1]
        name = _WIN_SUFFIX.sub("", name).lower()
    elif "/" in name:
        name = name.rsplit("/", 1)[-1]
    return name


def parse(text: str, family: Family) -> Script:
    """Dispatch to the family's parser."""
    if family == "posix":
        from termwise.agent.safety.posix import parse_posix

        return parse_posix(text)
    if family == "powershell":
        from termwise.agent.safety.powershell import parse_powershell

        return parse_powershell(text)
    from termwise.agent.safety.cmd import parse_cmd

    return parse_cmd(text)


def verdict_level(findings: list[Finding]) -> Level:
    if not findings:
        return "confirm"
    return max((f.level for f in findings), key=lambda level: SEVERITY[level])


def _dd_outputs(args: list[str]) -> list[Redirect]:
    """dd's output files as redirections: it truncates them first unless given both
    `oflag=append` and `conv=notrunc`."""

    def has(key: str, value: str) -> bool:
        return any(a.startswith(key) and value in a[len(key) :].split(",") for a in args)

    op = ">>" if has("oflag=", "append") and has("conv=", "notrunc") else ">"
    # A device is the dd-to-device rule's: judged once, not again as a redirection.
    return [
        Redirect(op, a[3:])
        for a in args
        if a.startswith("of=") and len(a) > 3 and not a.startswith("of=/dev/")
    ]
