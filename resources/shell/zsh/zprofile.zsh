# Termwise ZDOTDIR wrapper (copied as .zprofile): a login shell's .zprofile, run from
# the user's ZDOTDIR.
ZDOTDIR=$__termwise_user_zdotdir
[[ -r $ZDOTDIR/.zprofile ]] && builtin source "$ZDOTDIR/.zprofile"
ZDOTDIR=$__termwise_zdotdir
