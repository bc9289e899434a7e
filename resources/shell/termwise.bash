# Termwise shell integration for bash, loaded with `bash --rcfile <this file>`.
# It loads the user's own startup files first, then marks prompt, command line, output
# and exit status with OSC 133 (and 633;E for the command text) and the cwd with OSC 7.
# Nothing here edits a dotfile; everything is guarded for `set -u` and user hooks.

if [ -n "${TERMWISE_SHELL_LOGIN-}" ]; then
  # Launched where a terminal would start a login shell (macOS): behave like one.
  unset TERMWISE_SHELL_LOGIN
  [ -r /etc/profile ] && . /etc/profile
  if [ -r "$HOME/.bash_profile" ]; then . "$HOME/.bash_profile"
  elif [ -r "$HOME/.bash_login" ]; then . "$HOME/.bash_login"
  elif [ -r "$HOME/.profile" ]; then . "$HOME/.profile"
  fi
else
  # bash itself has already read the system-wide bashrc where the distro builds it in
  # (Debian's /etc/bash.bashrc); --rcfile only replaces ~/.bashrc.
  [ -r "$HOME/.bashrc" ] && . "$HOME/.bashrc"
fi

__termwise_escape() {
  # The command line travels inside an OSC: backslash, ';' and control bytes escaped.
  local s=$1
  s=${s//\\/\\\\}
  s=${s//;/\\x3b}
  s=${s//$'\n'/\\x0a}
  s=${s//$'\r'/\\x0d}
  s=${s//$'\e'/\\x1b}
  s=${s//$'\a'/\\x07}
  builtin printf '%s' "$s"
}

__termwise_urlpath() {
  local LC_ALL=C s=$1 out='' c i
  for (( i = 0; i < ${#s}; i++ )); do
    c=${s:i:1}
    case $c in
      [a-zA-Z0-9/._~-]) out+=$c ;;
      *) builtin printf -v c '%%%02X' "'$c"; out+=$c ;;
    esac
  done
  builtin printf '%s' "$out"
}

__termwise_histnum() {
  local h
  h=$(HISTTIMEFORMAT='' builtin history 1 2>/dev/null)
  h=${h#"${h%%[![:space:]]*}"}
  builtin printf '%s' "${h%%[!0-9]*}"
}

# Runs inside PS0's command substitution, once per command line, before it executes.
__termwise_preexec() {
  local line num
  line=$(HISTTIMEFORMAT='' builtin history 1 2>/dev/null)
  num=${line#"${line%%[![:space:]]*}"}
  num=${num%%[!0-9]*}
  # Not in history (ignorespace, ignoredups, history off): the parser falls back to the
  # echoed line, which is better than naming the previous command.
  if [ -n "$num" ] && [ "$num" != "${__termwise_lasthist-}" ]; then
    line=${line#"${line%%[0-9]*}"}
    line=${line#"$num"}
    line=${line#\*}
    line=${line#"${line%%[![:space:]]*}"}
    builtin printf '\033]633;E;%s\a' "$(__termwise_escape "$line")"
  fi
  builtin printf '\033]133;C\a'
}

# First thing at every prompt: $? is still the command's status here.
__termwise_precmd() {
  local status=$?
  if [ -n "${__termwise_ran-}" ]; then
    if [ "$PWD" != "${__termwise_lastpwd-}" ]; then
      __termwise_lastpwd=$PWD
      __termwise_cwdurl=$(__termwise_urlpath "$PWD")
    fi
    builtin printf '\033]7;file://%s%s\a\033]133;D;%s\a' "${HOSTNAME-}" "${__termwise_cwdurl-}" "$status"
  fi
  __termwise_ran=
  return "$status"  # the user's prompt hooks still see the command's status
}

# Last thing before the prompt is drawn: mark it, even if a hook rewrote PS1.
__termwise_prompt() {
  local status=$?
  if [ "$PWD" != "${__termwise_lastpwd-}" ]; then
    __termwise_lastpwd=$PWD
    __termwise_cwdurl=$(__termwise_urlpath "$PWD")
    builtin printf '\033]7;file://%s%s\a' "${HOSTNAME-}" "$__termwise_cwdurl"
  fi
  # PATH as the shell has it now (a venv or an export changes it): the rules look there.
  if [ "${PATH-}" != "${__termwise_lastpath-}" ]; then
    __termwise_lastpath=${PATH-}
    builtin printf '\033]633;P;TermwisePath=%s\a' "$(__termwise_escape "$__termwise_lastpath")"
  fi
  case ${PS1-} in
    *'133;A'*) ;;
    *) PS1='\[\e]133;A\a\]'"${PS1-}"'\[\e]133;B\a\]' ;;
  esac
  __termwise_lasthist=$(__termwise_histnum)
  __termwise_at_prompt=1
  return "$status"
}

# bash before 4.4 has no PS0: there the DEBUG trap notices the first command after a
# prompt instead (a user DEBUG trap set before this point still runs, from ours).
__termwise_debug() {
  if [ -n "${__termwise_user_debug-}" ]; then
    eval "$__termwise_user_debug"
  fi
  [ -n "${__termwise_at_prompt-}" ] || return 0
  [ -z "${COMP_LINE-}" ] || return 0  # a completion function, not a command
  __termwise_at_prompt=
  # An empty line runs nothing: the next command is the prompt's own hook.
  [ "${BASH_COMMAND-}" = __termwise_precmd ] && return 0
  __termwise_ran=1
  __termwise_preexec
  return 0
}

if [ -z "${__termwise_loaded-}" ]; then
  __termwise_loaded=1
  __termwise_none=''
  if [ -z "${TERMWISE_BASH_DEBUG_TRAP-}" ] \
    && (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then
    # PS0 is expanded after a line is read, before it runs: the arithmetic sets the
    # "a command ran" flag in this shell, the substitution prints the C mark. Ours goes
    # first so a user PS0's text never reads as part of the command line.
    PS0='${__termwise_none:$((__termwise_ran=1)):0}$(__termwise_preexec)'"${PS0-}"
  else
    __termwise_user_debug=$(trap -p DEBUG)
    __termwise_user_debug=${__termwise_user_debug#"trap -- "}
    __termwise_user_debug=${__termwise_user_debug%" DEBUG"}
    if [ -n "$__termwise_user_debug" ]; then
      eval "__termwise_user_debug=$__termwise_user_debug"  # unquote trap -p's quoting
    fi
    trap '__termwise_debug' DEBUG
  fi
  unset TERMWISE_BASH_DEBUG_TRAP
  if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
    PROMPT_COMMAND=(__termwise_precmd "${PROMPT_COMMAND[@]}" __termwise_prompt)
  elif [ -n "${PROMPT_COMMAND-}" ]; then
    PROMPT_COMMAND=$'__termwise_precmd\n'"$PROMPT_COMMAND"$'\n__termwise_prompt'
  else
    PROMPT_COMMAND=$'__termwise_precmd\n__termwise_prompt'
  fi
fi

# ---- Words typed at the prompt (Termwise sessions only) ---------------------------------
# `?? question` asks for commands, `??` alone fixes the last failed command, and
# `deploy URL` plans a deployment. `??` is an alias because aliases expand before
# globbing; its `set -f` keeps `?? what is *` literal, and the function puts globbing back.
__termwise_ask() {
  case ${__termwise_glob-} in *f*) ;; *) set +f ;; esac
  unset __termwise_glob
  "${TERMWISE_CMD:-termwise}" ask --from-prompt -- "$*"
}
alias '??'='__termwise_glob=$-; set -f; __termwise_ask'

# A `deploy` of the user's own (alias or function) wins; a `deploy` program on PATH
# still gets every argument that does not look like a repository.
if ! alias deploy >/dev/null 2>&1 && ! declare -F deploy >/dev/null 2>&1; then
  deploy() {
    case ${1-} in
      ''|-*|*://*|git@*|*/*|.|..) ;;
      *) if type -P deploy >/dev/null 2>&1; then command deploy "$@"; return; fi ;;
    esac
    "${TERMWISE_CMD:-termwise}" deploy --from-prompt "$@"
  }
fi

# ---- Replacing the prompt's line (Termwise never appends to half-typed text) -------------
# Termwise clears the line before it types a command, and before it presses Enter it asks
# the shell what the line holds. Both go through private key sequences that no terminal
# sends, bound in every keymap (emacs, vi insert, vi command), so a user's own bindings
# or vi mode do not change what they do:
#   ESC [ 9271 ~  clear the line (in vi command mode: back to insert mode first)
#   ESC [ 9272 ~  report the line as OSC 633;TermwiseBuffer;<percent-encoded>[;changed]
#   ESC [ 9274 ~  redraw the prompt and line (Termwise printed a notice above them)
# "changed" means bash would not run the line as it stands (history expansion of `!`).
__termwise_report_line() {
  local line=${READLINE_LINE-} flag='' expanded h=${histchars:-'!^'}
  if [[ $- == *H* && ( $line == *"${h:0:1}"* || $line == "${h:1:1}"* ) ]]; then
    if ! expanded=$(builtin history -p -- "$line" 2>/dev/null) || [[ $expanded != "$line" ]]; then
      flag=';changed'
    fi
  fi
  builtin printf '\033]633;TermwiseBuffer;%s%s\a' "$(__termwise_urlpath "$line")" "$flag"
}

if [[ $- == *i* && -z ${__termwise_line_keys-} ]] \
  && builtin bind -m emacs '"\e[9271~": kill-whole-line' 2>/dev/null; then
  __termwise_line_keys=clear
  builtin bind -m vi-insert '"\e[9271~": kill-whole-line'
  builtin bind -m vi-command '"\e[9273~": vi-insertion-mode'
  builtin bind -m vi-command '"\e[9271~": "\e[9273~\e[9271~"'
  for __termwise_map in emacs vi-insert vi-command; do  # after a notice from Termwise
    builtin bind -m "$__termwise_map" '"\e[9274~": redraw-current-line'
  done
  if (( BASH_VERSINFO[0] >= 4 )); then  # READLINE_LINE came with bash 4.0
    for __termwise_map in emacs vi-insert vi-command; do
      builtin bind -m "$__termwise_map" -x '"\e[9272~": __termwise_report_line'
    done
    unset __termwise_map
    __termwise_line_keys=report
  fi
  builtin printf '\033]633;P;TermwiseLine=%s\a' "$__termwise_line_keys"
fi
