# Termwise shell integration for Windows PowerShell 5.1 and PowerShell 7, dot-sourced
# after the user's profile has loaded (`-NoExit -Command ". '<this file>'"`).
# It wraps the prompt function (OSC 133 A/B/D with the exit status, OSC 7 and 9;9 for
# the cwd) and PSReadLine's PSConsoleHostReadLine (OSC 633;E with the command line,
# then OSC 133;C). No profile or other file is written.

if (Test-Path variable:global:__TermwiseState) { return }

$global:__TermwiseState = @{
    # PowerShell 5.1 has no `e escape: build the control characters by code.
    Esc            = [string][char]0x1b
    Bel            = [string][char]0x07
    OriginalPrompt = $function:prompt
    ReadLine       = $null
    LastHistoryId  = -1
    LastPath       = $null
}
$__termwiseLast = Get-History -Count 1
if ($__termwiseLast) { $global:__TermwiseState.LastHistoryId = $__termwiseLast.Id }
Remove-Variable __termwiseLast

function global:__Termwise-Osc([string]$Body) {
    $global:__TermwiseState.Esc + ']' + $Body + $global:__TermwiseState.Bel
}

# The command line travels inside an OSC: backslash, ';' and control characters escaped.
function global:__Termwise-Escape([string]$Text) {
    $builder = New-Object System.Text.StringBuilder
    foreach ($ch in $Text.ToCharArray()) {
        $code = [int]$ch
        if ($ch -eq '\') { [void]$builder.Append('\\') }
        elseif ($ch -eq ';') { [void]$builder.Append('\x3b') }
        elseif ($code -lt 0x20 -or $code -eq 0x7f) { [void]$builder.Append(('\x{0:x2}' -f $code)) }
        else { [void]$builder.Append($ch) }
    }
    $builder.ToString()
}

function global:__Termwise-Cwd {
    $location = Get-Location
    if ($location.Provider.Name -ne 'FileSystem') { return '' }
    $path = $location.ProviderPath
    $url = ([System.Uri]$path).AbsoluteUri  # file:///C:/Users/me%20too
    (__Termwise-Osc "7;$url") + (__Termwise-Osc "9;9;`"$path`"")
}

function global:prompt {
    # $? and $LASTEXITCODE first: anything run here would overwrite them.
    $succeeded = $?
    $native = $global:LASTEXITCODE
    $state = $global:__TermwiseState
    $out = ''
    $last = Get-History -Count 1
    if ($last -and $last.Id -ne $state.LastHistoryId) {
        # A command ran since the last prompt (an empty line adds no history entry).
        $state.LastHistoryId = $last.Id
        if ($succeeded) { $code = 0 }
        elseif ($native -is [int] -and $native -ne 0) { $code = $native }
        else { $code = 1 }
        $out += (__Termwise-Cwd) + (__Termwise-Osc "133;D;$code")
    }
    else {
        $out += __Termwise-Cwd
    }
    if ($env:Path -ne $state.LastPath) {
        # PATH as the shell has it now (a venv or a module changes it): the rules look there.
        $state.LastPath = $env:Path
        $out += __Termwise-Osc ('633;P;TermwisePath=' + (__Termwise-Escape $env:Path))
    }
    $out += __Termwise-Osc '133;A'
    $global:LASTEXITCODE = $native  # the user's prompt sees the command's status
    if ($state.OriginalPrompt) {
        $out += (& $state.OriginalPrompt) -join ''
    }
    else {
        $out += "PS $($executionContext.SessionState.Path.CurrentLocation)$('>' * ($nestedPromptLevel + 1)) "
    }
    $global:LASTEXITCODE = $native
    $out + (__Termwise-Osc '133;B')
}

# Under -Command the host may load PSReadLine only when its interactive loop starts;
# load it now so its line reader exists to be wrapped (the host won't load it twice).
if (-not (Get-Module PSReadLine)) {
    Import-Module PSReadLine -ErrorAction SilentlyContinue
}

# PSReadLine reads every interactive line through this function: the line it returns
# is what runs next, so the command line and the "output starts" mark go out here.
if (Get-Command PSConsoleHostReadLine -CommandType Function -ErrorAction SilentlyContinue) {
    $global:__TermwiseState.ReadLine = $function:PSConsoleHostReadLine
    function global:PSConsoleHostReadLine {
        $line = & $global:__TermwiseState.ReadLine
        if ($line -and $line.Trim()) {
            [Console]::Write((__Termwise-Osc "633;E;$(__Termwise-Escape $line)") + (__Termwise-Osc '133;C'))
        }
        $line
    }
}

# ---- Words typed at the prompt (Termwise sessions only) ---------------------------------
# `?? question` asks for commands, `??` alone fixes the last failed command, and
# `deploy URL` plans a deployment. `??` is only an operator inside expressions, so at the
# start of a line it names this function; `termwise-ask` is the same word spelt plainly.
function global:__Termwise-Program {
    if ($env:TERMWISE_CMD) { $env:TERMWISE_CMD } else { 'termwise' }
}
function global:termwise-ask {
    & (__Termwise-Program) ask --from-prompt -- ($args -join ' ')
}
# -Name is taken literally (a -Path would read the question marks as wildcards); this
# file is dot-sourced at the top level, so the function lands in the global scope.
New-Item -Path function: -Name '??' -Value { termwise-ask @args } -Force | Out-Null
# A `deploy` command of the user's own wins.
if (-not (Get-Command deploy -ErrorAction SilentlyContinue)) {
    function global:deploy { & (__Termwise-Program) deploy --from-prompt @args }
}

# ---- Replacing the prompt's line (Termwise never appends to half-typed text) -------------
# Termwise clears the line before it types a command, and before it presses Enter it asks
# PSReadLine what the line holds. Both are private chords no one presses by accident
# (the terminal sends them as ESC [ 24;8 ~ and ESC [ 23;8 ~):
#   Ctrl+Alt+Shift+F12  RevertLine: the line is emptied
#   Ctrl+Alt+Shift+F11  report the line as OSC 633;TermwiseBuffer;<percent-encoded>
if (Get-Command Set-PSReadLineKeyHandler -ErrorAction SilentlyContinue) {
    $__termwiseClear = {
        [Microsoft.PowerShell.PSConsoleReadLine]::RevertLine()
    }
    $__termwiseReport = {
        $line = $null
        $cursor = $null
        [Microsoft.PowerShell.PSConsoleReadLine]::GetBufferState([ref]$line, [ref]$cursor)
        [Console]::Write((__Termwise-Osc ('633;TermwiseBuffer;' + [Uri]::EscapeDataString($line))))
    }
    try {
        Set-PSReadLineKeyHandler -Chord 'Ctrl+Alt+Shift+F12' -ScriptBlock $__termwiseClear `
            -BriefDescription 'TermwiseClearLine'
        Set-PSReadLineKeyHandler -Chord 'Ctrl+Alt+Shift+F11' -ScriptBlock $__termwiseReport `
            -BriefDescription 'TermwiseReportLine'
        if ((Get-PSReadLineOption).EditMode -eq 'Vi') {
            Set-PSReadLineKeyHandler -ViMode Command -Chord 'Ctrl+Alt+Shift+F12' `
                -ScriptBlock { [Microsoft.PowerShell.PSConsoleReadLine]::ViInsertMode(); [Microsoft.PowerShell.PSConsoleReadLine]::RevertLine() }
            Set-PSReadLineKeyHandler -ViMode Command -Chord 'Ctrl+Alt+Shift+F11' -ScriptBlock $__termwiseReport
        }
        [Console]::Write((__Termwise-Osc '633;P;TermwiseLine=report'))
    }
    catch {
        # An old PSReadLine without these: Termwise only types (it cannot check the line).
    }
    Remove-Variable __termwiseClear, __termwiseReport
}
