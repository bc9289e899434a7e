# Termwise ZDOTDIR wrapper (copied as .zshrc): give the user their ZDOTDIR back, run
# their own .zshrc, then add the integration. zsh reads .zlogin from the user's ZDOTDIR.
if [[ -z ${TERMWISE_USER_ZDOTDIR-} && $__termwise_user_zdotdir == "$HOME" ]]; then
  unset ZDOTDIR
else
  export ZDOTDIR=$__termwise_user_zdotdir
fi
unset TERMWISE_USER_ZDOTDIR
[[ -r ${ZDOTDIR:-$HOME}/.zshrc ]] && builtin source "${ZDOTDIR:-$HOME}/.zshrc"
builtin source "$__termwise_zdotdir/termwise.zsh"
# The wrapper folder was made for this one shell and is not read again: remove it.
if [[ $__termwise_zdotdir == */termwise-zsh-* && -f $__termwise_zdotdir/termwise.zsh ]]; then
  command rm -rf -- "$__termwise_zdotdir"
fi
unset __termwise_user_zdotdir __termwise_zdotdir
