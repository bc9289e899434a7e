@rem Termwise shell integration for cmd.exe, run with `cmd /k <this file>`.
@rem PROMPT marks the end of the previous command (OSC 133;D), the prompt (A), the
@rem cwd (OSC 9;9) and where typing starts (B), with $e. cmd cannot report exit codes
@rem or mark when a command starts, so the parser reads the first echoed line as the
@rem command. No "echo off" here: it would stay off for the interactive prompt.
@rem ---- Words typed at the prompt (Termwise sessions only): `?? question` asks for
@rem commands, `??` alone fixes the last failed command, `deploy URL` plans a deployment.
@rem doskey macros expand only as the first word typed at the prompt, never in scripts.
@if defined TERMWISE_CMD (doskey ??="%TERMWISE_CMD%" ask --from-prompt -- $*) else (doskey ??=termwise ask --from-prompt -- $*)
@where deploy >nul 2>&1 || if defined TERMWISE_CMD (doskey deploy="%TERMWISE_CMD%" deploy --from-prompt $*) else (doskey deploy=termwise deploy --from-prompt $*)
@rem Already marked (a PROMPT inherited from a Termwise session): keep it as it is.
@if defined PROMPT if not "%PROMPT:133;A=%"=="%PROMPT%" goto :eof
@if not defined PROMPT set "PROMPT=$P$G"
@set "PROMPT=$e]133;D$e\$e]133;A$e\$e]9;9;$P$e\%PROMPT%$e]133;B$e\"
