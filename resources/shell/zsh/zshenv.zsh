# Termwise ZDOTDIR wrapper (copied as .zshenv): run the user's own .zshenv from the
# user's ZDOTDIR, then let zsh continue with the wrapper's other files.
typeset -g __termwise_zdotdir=$ZDOTDIR
if [[ -n ${TERMWISE_USER_ZDOTDIR-} ]]; then
  ZDOTDIR=$TERMWISE_USER_ZDOTDIR
else
  ZDOTDIR=$HOME
fi
[[ -r $ZDOTDIR/.zshenv ]] && builtin source "$ZDOTDIR/.zshenv"
# The user's .zshenv may have moved ZDOTDIR; that is where their other files live.
typeset -g __termwise_user_zdotdir=$ZDOTDIR
ZDOTDIR=$__termwise_zdotdir
