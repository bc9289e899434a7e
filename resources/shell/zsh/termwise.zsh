# Termwise shell integration for zsh, sourced after the user's own .zshrc by the
# ZDOTDIR wrapper. Marks prompt, command line, output and exit status with OSC 133
# (and 633;E for the command text) and the cwd with OSC 7, from precmd/preexec hooks.

[[ -o interactive ]] || return 0
(( ${+__termwise_loaded} )) && return 0
typeset -g __termwise_loaded=1 __termwise_ran='' __termwise_lastpwd='' __termwise_cwdurl='' __termwise_lastpath=''

__termwise_escape() {
  emulate -L zsh
  # The command line travels inside an OSC: backslash, ';' and control bytes escaped.
  local s=$1
  s=${s//\\/\\\\}
  s=${s//;/\\x3b}
  s=${s//$'\n'/\\x0a}
  s=${s//$'\r'/\\x0d}
  s=${s//$'\e'/\\x1b}
  s=${s//$'\a'/\\x07}
  print -rn -- "$s"
}

__termwise_urlpath() {
  emulate -L zsh
  local LC_ALL=C s=$1 out='' c i
  for (( i = 1; i <= ${#s}; i++ )); do
    c=${s[i]}
    if [[ $c == [a-zA-Z0-9/._~-] ]]; then
      out+=$c
    else
      out+=%${(l:2::0:)$(( [##16] #c ))}
    fi
  done
  print -rn -- "$out"
}

__termwise_cwd() {
  if [[ $PWD != "$__termwise_lastpwd" ]]; then
    __termwise_lastpwd=$PWD
    __termwise_cwdurl=$(__termwise_urlpath "$PWD")
  fi
  print -rn -- $'\e]7;file://'"${HOST-}${__termwise_cwdurl}"$'\a'
}

# First precmd hook: $? is still the command's status here.
__termwise_precmd() {
  local st=$?
  emulate -L zsh
  if [[ -n $__termwise_ran ]]; then
    __termwise_ran=''
    __termwise_cwd
    print -rn -- $'\e]133;D;'"$st"$'\a'
  fi
  return $st  # later hooks still see the command's status
}

# Last precmd hook: mark the prompt, even if a theme rewrote PS1 meanwhile.
__termwise_prompt() {
  local st=$?
  emulate -L zsh
  [[ $PWD == "$__termwise_lastpwd" ]] || __termwise_cwd
  # PATH as the shell has it now (a venv or an export changes it): the rules look there.
  if [[ $PATH != "$__termwise_lastpath" ]]; then
    __termwise_lastpath=$PATH
    print -rn -- $'\e]633;P;TermwisePath='"$(__termwise_escape "$PATH")"$'\a'
  fi
  if [[ $PS1 != *'133;A'* ]]; then
    PS1=$'%{\e]133;A\a%}'"$PS1"$'%{\e]133;B\a%}'
  fi
  return $st
}

__termwise_preexec() {
  emulate -L zsh
  __termwise_ran=1
  print -rn -- $'\e]633;E;'"$(__termwise_escape "${1:-$3}")"$'\a\e]133;C\a'
}

typeset -ga precmd_functions preexec_functions
precmd_functions=(__termwise_precmd "${precmd_functions[@]}" __termwise_prompt)
preexec_functions+=(__termwise_preexec)

# ---- Words typed at the prompt (Termwise sessions only) ---------------------------------
# `?? question` asks for commands, `??` alone fixes the last failed command, and
# `deploy URL` plans a deployment. `??` would be a glob pattern: the alias runs the
# function under `noglob`, so `?? what is *` stays literal too.
__termwise_ask() {
  "${TERMWISE_CMD:-termwise}" ask --from-prompt -- "$*"
}
alias '??'='noglob __termwise_ask'

# A `deploy` of the user's own (alias or function) wins; a `deploy` program on PATH
# still gets every argument that does not look like a repository.
if (( ! ${+aliases[deploy]} && ! ${+functions[deploy]} )); then
  deploy() {
    case ${1-} in
      ''|-*|*://*|git@*|*/*|.|..) ;;
      *) if (( ${+commands[deploy]} )); then command deploy "$@"; return; fi ;;
    esac
    "${TERMWISE_CMD:-termwise}" deploy --from-prompt "$@"
  }
fi

# ---- Replacing the prompt's line (Termwise never appends to half-typed text) -------------
# Termwise clears the line before it types a command, and before it presses Enter it asks
# the shell what the line holds. Both go through private key sequences that no terminal
# sends, bound in every keymap (emacs, viins, vicmd), so the user's keymap does not matter:
#   ESC [ 9271 ~  clear the line (in vi command mode: back to insert mode)
#   ESC [ 9272 ~  report the line as OSC 633;TermwiseBuffer;<percent-encoded>[;changed]
#   ESC [ 9274 ~  redraw the prompt and line (Termwise printed a notice above them)
# "changed" means zsh may not run the line as it stands (`!` history expansion is on).
__termwise_clear_line() {
  BUFFER=''
  CURSOR=0
  [[ $KEYMAP == vicmd ]] && zle -K viins
  return 0
}
__termwise_report_line() {
  local flag=''
  [[ -o banghist && $BUFFER == *'!'* ]] && flag=';changed'
  print -rn -- $'\e]633;TermwiseBuffer;'"$(__termwise_urlpath "$BUFFER")$flag"$'\a'
}
__termwise_redraw() {
  zle -I  # Termwise printed a notice: draw the prompt again below it
}
zle -N __termwise_clear_line
zle -N __termwise_report_line
zle -N __termwise_redraw
() {
  local keymap
  for keymap in emacs viins vicmd; do
    bindkey -M $keymap $'\e[9271~' __termwise_clear_line
    bindkey -M $keymap $'\e[9272~' __termwise_report_line
    bindkey -M $keymap $'\e[9274~' __termwise_redraw
  done
}
print -rn -- $'\e]633;P;TermwiseLine=report\a'
